"""The server's bot levels (``random``, ``easy``, ``normal``, ``hard``) as offline baselines: OpenSpiel bots
(:func:`make_bot`) and policies for the PettingZoo and Gymnasium environments (:class:`BaselinePolicy`).

They run the server's own code, imported, not copied: :func:`engine.ai.decide_blind`, the call a worker
makes for a bot seat.  So a baseline decides exactly as the server's bot does: it samples a world from
what its seat knows (``game.determinize``) and plays the level on that world; it never reads another
seat's hand, the deck order or the state's generator.  The only differences are the ones a researcher
asks for:

* the generator is seeded (``seed``), where a worker seeds it from the operating system, so a baseline
  replays its decisions: ``random`` and ``easy`` always, ``normal`` and ``hard`` when they search on an
  ``iterations`` budget (a time budget depends on the machine's speed, as on the server);
* the search levels' budget can be overridden: ``think_ms`` (the server's default is
  :data:`engine.ai.DEFAULT_THINK_MS`, 500 ms for ``normal``, 2000 ms for ``hard``) or ``iterations``
  (a fixed number of searches, machine-independent).

A learner's policy can be seated against them in OpenSpiel's ``evaluate_bots`` through
:class:`PolicyBot`; ``python -m bench.strength --agent module:attr`` measures one that way.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.observation import make_observation

from engine import ai
from engine.core import Action, Game
from research.actions import codec

#: A learner's policy as :class:`PolicyBot` calls it: ``policy(observation, info) -> action id``, where
#: ``info`` holds ``"action_mask"`` (int8, 1 for each legal id) and ``"legal_actions"`` (sorted ids).
Policy = Callable[[np.ndarray, dict[str, Any]], int]


class Baseline:
    """One level deciding for the seat to move of an engine state, as a worker does.

    ``think_ms`` and ``iterations`` apply to the search levels only (``normal``, ``hard``); with neither,
    they think for the server's default time.
    """

    def __init__(
        self,
        game: Game,
        level: str,
        seed: int | None = None,
        think_ms: float | None = None,
        iterations: int | None = None,
    ) -> None:
        if level not in ai.LEVELS:
            raise ValueError(f"unknown bot level {level!r}; known: {', '.join(ai.LEVELS)}")
        if iterations is not None and iterations < 1:
            raise ValueError(f"iterations must be at least 1, not {iterations!r}")
        if think_ms is not None and think_ms <= 0:
            raise ValueError(f"think_ms must be positive, not {think_ms!r}")
        self.game = game
        self.level = level
        self.think_ms = think_ms
        self.iterations = iterations
        self.codec = codec(game)
        self.rng = random.Random(seed)  # None: seeded from the operating system, like a worker's

    def action(self, state: Any, seat: int) -> Action:
        """The JSON action the level plays for ``seat`` (the seat to move) in the engine ``state``."""
        to_move = self.game.to_move(state)
        if to_move != seat:
            raise ValueError(f"seat {seat} is not to move (seat {to_move} is)")
        return ai.decide_blind(self.game, state, seat, self.level, self.rng, self.think_ms, self.iterations)

    def action_id(self, state: Any, seat: int) -> int:
        """:meth:`action` as its stable id (:mod:`research.actions`)."""
        return self.codec.encode(self.action(state, seat))


class _Memoryless(pyspiel.Bot):  # type: ignore[misc]  # pyspiel is untyped
    """A bot that keeps nothing between decisions: OpenSpiel's notifications have nothing to update."""

    def restart_at(self, state: Any) -> None:
        return None

    def inform_action(self, state: Any, player_id: int, action: int) -> None:
        return None

    def provides_policy(self) -> bool:
        return False


class BaselineBot(_Memoryless):
    """A level as an OpenSpiel bot for one seat of a game of :mod:`research.openspiel_game`.

    The bot keeps nothing between decisions (each is a fresh search of worlds sampled from the seat's
    information), so ``restart_at`` and ``inform_action`` have nothing to do; ``step`` reads the wrapped
    engine state only through :func:`engine.ai.decide_blind`.
    """

    def __init__(self, player_id: int, baseline: Baseline) -> None:
        pyspiel.Bot.__init__(self)
        self._player_id = player_id
        self.baseline = baseline

    def player_id(self) -> int:
        return self._player_id

    def step(self, state: Any) -> int:
        return self.baseline.action_id(state.engine_state, self._player_id)


def make_bot(
    game: Any,
    player: int,
    level: str,
    seed: int | None = None,
    think_ms: float | None = None,
    iterations: int | None = None,
) -> BaselineBot:
    """A ``pyspiel.Bot`` playing ``level`` for seat ``player`` of ``game`` (loaded by
    :func:`research.openspiel_game.load`), e.g. for ``open_spiel.python.algorithms.evaluate_bots``."""
    return BaselineBot(player, Baseline(game.engine, level, seed, think_ms, iterations))


def engine_position(env: Any) -> tuple[Game, Any]:
    """The engine game and the full engine state (``None`` before the first ``reset``) behind a
    PettingZoo or Gymnasium environment of :mod:`research`, wrappers and all: what a baseline is handed,
    to sample its seat's worlds from (never a learner's input)."""
    inner = getattr(env, "unwrapped", env)
    game = getattr(inner, "game", None)
    if not isinstance(game, Game) or not hasattr(inner, "state"):
        raise TypeError(f"{type(env).__name__} is not a research environment with a game and a state")
    return game, inner.state


class BaselinePolicy:
    """A level as a policy for an environment: ``policy(observation, agent_or_info) -> action id``.

    The PettingZoo way, ``policy(obs, agent)`` inside ``env.agent_iter()``; the Gymnasium way,
    ``policy(obs, info)`` after ``reset``/``step``.  The observation is not what it decides from (a level
    is not a learner): it reads the environment's engine state through :func:`engine_position` and
    decides for the seat to move, as the server's bot does (:class:`Baseline`).
    """

    def __init__(
        self,
        env: Any,
        level: str,
        seed: int | None = None,
        think_ms: float | None = None,
        iterations: int | None = None,
    ) -> None:
        self.env = env
        game, _ = engine_position(env)
        self.baseline = Baseline(game, level, seed, think_ms, iterations)

    def __call__(self, observation: Any = None, agent_or_info: Any = None) -> int:
        game, state = engine_position(self.env)
        seat = None if state is None else game.to_move(state)
        if seat is None:
            raise ValueError("no decision is pending: reset the environment, or the game is over")
        if isinstance(agent_or_info, str) and agent_or_info != f"player_{seat}":
            raise ValueError(f"{agent_or_info} is not to move (player_{seat} is)")
        return self.baseline.action_id(state, seat)


def observation_of(state: Any, player: int) -> np.ndarray:
    """OpenSpiel's ``observation_tensor`` of ``player`` as a numpy array: the hashed tensor, or the
    feature vector in a game loaded with ``observation=features``."""
    return np.asarray(state.observation_tensor(player), np.float32)


def features_of(state: Any, player: int) -> np.ndarray:
    """The feature vector of ``player`` (:mod:`research.features`, what the Gymnasium environment observes
    by default), through OpenSpiel's observation API with ``params={"observation": "features"}``."""
    game = state.get_game()
    observer = _FEATURE_OBSERVERS.get(str(game))
    if observer is None:
        kind = pyspiel.IIGObservationType(perfect_recall=False)
        observer = _FEATURE_OBSERVERS[str(game)] = make_observation(game, kind, {"observation": "features"})
    observer.set_from(state, player)
    return np.array(observer.tensor, np.float32)


_FEATURE_OBSERVERS: dict[str, Any] = {}


class PolicyBot(_Memoryless):
    """A learner's policy (:data:`Policy`) as an OpenSpiel bot, so it can sit in ``evaluate_bots`` beside
    the baselines.  It acts for whichever seat is to move when asked (one bot can play any seat, as
    ``bench.strength`` rotates it); ``observe(state, player)`` builds the policy's observation, by default
    :func:`observation_of` (the game's ``observation_tensor``), or e.g. :func:`features_of` for a policy
    trained on the feature vectors in a game loaded with the hashed form."""

    def __init__(
        self,
        policy: Policy,
        player_id: int | None = None,
        observe: Callable[[Any, int], np.ndarray] | None = None,
    ) -> None:
        pyspiel.Bot.__init__(self)
        self.policy = policy
        self._player_id = player_id
        self.observe = observation_of if observe is None else observe

    def player_id(self) -> int:
        return -1 if self._player_id is None else self._player_id

    def step(self, state: Any) -> int:
        player = state.current_player()
        legal = state.legal_actions(player)
        mask = np.zeros(state.get_game().num_distinct_actions(), np.int8)
        mask[legal] = 1
        action = int(self.policy(self.observe(state, player), {"action_mask": mask, "legal_actions": legal}))
        if action not in legal:
            raise ValueError(f"the policy chose {action}, which is not legal here (see the action mask)")
        return action
