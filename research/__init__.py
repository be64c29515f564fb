"""Our games for learning frameworks (the ``research`` extra; from a clone of the repository:
``pip install -e '.[research]'``, see docs/research.md).

* :mod:`research.actions`: the stable integer id of every action (the frameworks' action space).
* :mod:`research.observation`: observation and information-state strings and tensors, built from a
  seat's view and the events it was shown only.
* :mod:`research.openspiel_game`: the games registered as OpenSpiel Python games (needs ``open_spiel``).
* :mod:`research.pettingzoo_env`: the games as PettingZoo AEC environments (needs ``pettingzoo``).
* :mod:`research.remote`: an agent trained offline, fed from the HTTP API's answers.

Nothing here is imported by the engine, the service or the workers.
"""
