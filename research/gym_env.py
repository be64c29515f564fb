"""The four games as Gymnasium single-agent environments: one seat learns, the others are opponents.

``import research.gym_env`` registers ``tabletop/China-v0``, ``tabletop/Confucius-v0``,
``tabletop/TajMahal-v0`` and ``tabletop/YearOfDragon-v0``, so ``gym.make("tabletop/China-v0",
players=4, opponents=["easy", "random", "random"])`` and ``gym.make_vec(..., num_envs=8,
vectorization_mode="sync")`` work like any Gymnasium environment; ``check_env`` passes.

* **Opponents**, one per other seat in seat order (or one entry for all): a built-in level by name
  (``"random"``, ``"easy"``, ``"normal"``, ``"hard"``), decided by :func:`engine.ai.decide_blind`, the
  server's own bot call (a world sampled from what that seat knows, never the full state), with
  ``opponent_iterations`` or ``opponent_think_ms`` as the search levels' budget; or any callable
  ``policy(observation, info) -> action id`` (the convention of :data:`research.baselines.Policy`), given
  that seat's observation and an ``info`` with ``"action_mask"`` and ``"legal_actions"``.
* **Observations** are a ``Box``: ``observation="features"`` (default) is the documented feature vector
  of :mod:`research.features`, in [0, 1]; ``"hashed"`` the hashed tensor of
  :mod:`research.observation` (unbounded).  Both come from the learner's seat's view only.
* **Actions** are ``Discrete`` over the stable ids of :mod:`research.actions`.  The legal ones are
  ``info["action_mask"]`` (int8) and :meth:`TabletopGymEnv.action_masks` (bool, what sb3-contrib's
  ``MaskablePPO`` calls).  For China, :func:`research.actions.factored` maps the flat ids to small heads.
* **An illegal action** ends the episode as a loss (reward -1, ``info["illegal_action"]``), the usual
  convention for masked board games, so an unmasked sampler (Gymnasium's own checker samples the whole
  ``Discrete`` space) gets a signal rather than an exception; ``illegal_action="raise"`` raises instead.
* **Reward** is 0 until the game ends, then the learner's rank return (first +1, last -1,
  :func:`research.observation.rank_returns`).  Games always end (each has a proven decision bound), so
  nothing truncates unless a ``TimeLimit`` is added.
* ``reset(seed=s)`` reproduces the deal, the learner's seat (``seat=None`` draws one per episode) and the
  opponents' choices; without a seed each reset continues the environment's generator.

``env.unwrapped.game`` and ``env.unwrapped.state`` are the engine game and the full state (for tooling
and :class:`research.baselines.BaselinePolicy`, never for a learner's input).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from engine import ai
from engine.registry import get_game
from research.actions import codec
from research.features import spec
from research.observation import observation_string, rank_returns, tensor_size, write_view_tensor

#: An opponent: a built-in level's name or ``policy(observation, info) -> action id``.
Opponent = str | Callable[[np.ndarray, dict[str, Any]], int]
OBSERVATIONS = ("features", "hashed")

#: Registered ids: ``tabletop/<name>-v0`` for each game.
ENV_IDS = {
    "china": "tabletop/China-v0",
    "confucius": "tabletop/Confucius-v0",
    "taj_mahal": "tabletop/TajMahal-v0",
    "year_of_dragon": "tabletop/YearOfDragon-v0",
}


class TabletopGymEnv(gym.Env[np.ndarray, np.int64]):
    """One seat of one of our games against fixed opponents (see the module docstring)."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi"], "render_fps": 4}  # fps: the checker asks

    def __init__(
        self,
        game_id: str,
        players: int = 3,
        seat: int | None = 0,
        opponents: Sequence[Opponent] | Opponent = "random",
        options: dict[str, Any] | None = None,
        observation: str = "features",
        illegal_action: str = "lose",
        opponent_iterations: int | None = None,
        opponent_think_ms: float | None = None,
        render_mode: str | None = None,
    ) -> None:
        self.game = get_game(game_id)
        self.players = players
        self.options = dict(options or {})
        self.game.setup(players, self.options, seed=0)  # refuse bad players/options at construction
        if seat is not None and not 0 <= seat < players:
            raise ValueError(f"seat must be None or in 0..{players - 1}, not {seat!r}")
        self.seat_option = seat
        listed = [opponents] if isinstance(opponents, str) or callable(opponents) else list(opponents)
        if len(listed) == 1:
            listed = listed * (players - 1)
        if len(listed) != players - 1:
            raise ValueError(f"opponents: give one for each of the {players - 1} other seats, or one for all")
        for o in listed:
            if isinstance(o, str) and o not in ai.LEVELS:
                raise ValueError(f"unknown opponent level {o!r}; known: {', '.join(ai.LEVELS)}")
            if not isinstance(o, str) and not callable(o):
                raise ValueError(f"an opponent is a level name or a callable, not {o!r}")
        self.opponents: list[Opponent] = listed
        self.opponent_iterations = opponent_iterations
        self.opponent_think_ms = opponent_think_ms
        if observation not in OBSERVATIONS:
            raise ValueError(f"observation must be one of {', '.join(OBSERVATIONS)}, not {observation!r}")
        self.observation = observation
        if illegal_action not in ("lose", "raise"):
            raise ValueError(f"illegal_action must be 'lose' or 'raise', not {illegal_action!r}")
        self.illegal_action = illegal_action
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', not {render_mode!r}")
        self.render_mode = render_mode
        self.codec = codec(self.game)
        if observation == "features":
            self.features = spec(game_id)
            self.observation_space = spaces.Box(0.0, 1.0, (self.features.size,), np.float32)
        else:
            self.observation_space = spaces.Box(-np.inf, np.inf, (tensor_size(self.game),), np.float32)
        self.action_space = spaces.Discrete(self.codec.num_actions)
        self.state: Any = None
        self.seat = 0 if seat is None else seat
        self._legal: list[int] = []
        self._rng = random.Random()
        self._done = True  # no episode until reset()

    # -- observations ------------------------------------------------------------------------------

    def _observe(self, seat: int) -> np.ndarray:
        if self.observation == "features":
            return self.features.encode_state(self.game, self.state, seat)
        out = np.zeros(self.observation_space.shape, np.float32)
        write_view_tensor(out, self.game.view(self.state, seat), seat, self.game.to_move(self.state) == seat)
        return out

    def _mask(self, legal: list[int]) -> np.ndarray:
        mask = np.zeros(self.codec.num_actions, np.int8)
        mask[legal] = 1
        return mask

    def _info(self) -> dict[str, Any]:
        info: dict[str, Any] = {"action_mask": self._mask(self._legal), "seat": self.seat}
        if self.game.to_move(self.state) is None:
            info["result"] = self.game.result(self.state)
        return info

    def action_masks(self) -> np.ndarray:
        """The legal ids now, as booleans (sb3-contrib's ``MaskablePPO`` calls this)."""
        return self._mask(self._legal).astype(bool)

    # -- the Gymnasium API --------------------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Deal a game (game ``seed``'s deal, seat and opponents' choices when ``seed`` is given) and
        play the opponents up to the learner's first decision.  ``options`` is Gymnasium's per-reset
        dict and is ignored: the game's options are fixed at construction."""
        super().reset(seed=seed)
        deal = int(self.np_random.integers(2**62))
        self._rng = random.Random(int(self.np_random.integers(2**62)))
        if self.seat_option is None:
            self.seat = int(self.np_random.integers(self.players))
        self.state = self.game.setup(self.players, self.options, seed=deal)
        self._advance()
        self._done = self.game.to_move(self.state) is None
        return self._observe(self.seat), self._info()

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if self._done:
            raise RuntimeError("the episode is over: call reset()")
        code = int(action)
        if code not in self._legal:
            if self.illegal_action == "raise":
                raise ValueError(f"action {code} is not legal now (see info['action_mask'])")
            self._legal = []
            info = {"action_mask": self._mask([]), "seat": self.seat, "illegal_action": code}
            self._done = True
            return self._observe(self.seat), -1.0, True, False, info
        self.game.apply(self.state, self.codec.decode(code))
        self._advance()
        over = self._done = self.game.to_move(self.state) is None
        reward = rank_returns(self.game, self.state, self.players)[self.seat] if over else 0.0
        return self._observe(self.seat), float(reward), over, False, self._info()

    def _advance(self) -> None:
        """Let the opponents move until the learner is to move or the game is over."""
        while (seat := self.game.to_move(self.state)) is not None and seat != self.seat:
            self.game.apply(self.state, self._opponent_action(seat))
        self._legal = [] if seat is None else self.codec.encode_all(self.game.legal_actions(self.state))

    def _opponent_action(self, seat: int) -> dict[str, Any]:
        opponent = self.opponents[seat if seat < self.seat else seat - 1]
        if isinstance(opponent, str):
            return ai.decide_blind(
                self.game,
                self.state,
                seat,
                opponent,
                self._rng,
                think_ms=self.opponent_think_ms,
                iterations=self.opponent_iterations,
            )
        legal = self.codec.encode_all(self.game.legal_actions(self.state))
        code = int(opponent(self._observe(seat), {"action_mask": self._mask(legal), "legal_actions": legal}))
        if code not in legal:
            raise ValueError(f"opponent policy of seat {seat} chose illegal action {code}")
        return self.codec.decode(code)

    def render(self) -> str | None:
        if self.render_mode is None or self.state is None:
            return None
        return observation_string(self.game, self.state, None)

    def action_to_dict(self, action: int) -> dict[str, Any]:
        """The game action (JSON object, as the HTTP API takes it) of an action id."""
        return self.codec.decode(int(action))


def _register() -> None:
    for game_id, env_id in ENV_IDS.items():
        if env_id not in gym.registry:
            gym.register(
                id=env_id, entry_point="research.gym_env:TabletopGymEnv", kwargs={"game_id": game_id}
            )


_register()
