"""Our games for learning frameworks (the ``research`` extra; from a clone of the repository:
``pip install -e '.[research]'``, see docs/research.md).

* :mod:`research.actions`: the stable integer id of every action (the frameworks' action space), and
  China's factored encoding (small output heads mapped to and from those ids).
* :mod:`research.observation`: observation and information-state strings and tensors, built from a
  seat's view and the events it was shown only.
* :mod:`research.features`: a documented feature vector per game (every slice named), beside the
  hashed tensor.
* :mod:`research.gym_env`: one seat against fixed opponents as a Gymnasium environment
  (``tabletop/China-v0``, ...), and its vectorised form.
* :mod:`research.openspiel_game`: the games registered as OpenSpiel Python games (needs ``open_spiel``).
* :mod:`research.pettingzoo_env`: the games as PettingZoo AEC environments (needs ``pettingzoo``).
* :mod:`research.remote`: an agent trained offline, fed from the HTTP API's answers.
* :mod:`research.baselines`: the server's bot levels as OpenSpiel bots and environment policies (the
  workers' own :func:`engine.ai.decide_blind`), and a learner's policy seated among them.

Nothing here is imported by the engine, the service or the workers.
"""
