"""The four games as PettingZoo AEC environments: ``research.pettingzoo_env.env("china", players=4)``.

Agents are ``player_0`` .. ``player_{n-1}`` (seat order).  The agent to act is the seat the rules say
is to move (``game.to_move``), which is not always the next seat: out-of-turn decisions (which person to
release, which cards to keep) go to whoever must make them.

* **Action space**: ``Discrete(n)`` over the stable action ids of :mod:`research.actions` (documented
  there; the same action always has the same id).
* **Observation space**: a ``Dict`` with ``"observation"``, the hashed encoding of the agent's view
  (:mod:`research.observation`; built from ``game.view`` only), and ``"action_mask"``, 1 for each legal
  id of the agent to move and all zeros for every other agent (the PettingZoo convention).
  ``observation="features"`` puts the documented feature vector of :mod:`research.features` (in
  [0, 1]) in place of the hashed one.  ``flat_observation=True`` makes the observation the ``Box``
  itself and moves the mask to ``infos[agent]["action_mask"]``, so SuperSuit's observation wrappers
  (``dtype_v0``, ``frame_stack_v1``; ``normalize_obs_v0`` needs the features' finite bounds) apply.
* **Rewards**: 0 until the game ends, then rank-based and zero-sum (first +1, last -1).
* **Truncation**: after ``max_steps`` decisions without an end every agent is truncated (reward 0).
  The default is ``game.max_decisions(players)``, the bound each game derives from its rules, which
  no game reaches; pass a smaller ``max_steps`` to cut episodes short on purpose.
* ``reset(seed=s)`` deals game ``s`` (``game.setup(players, options, seed=s)``), so a seed reproduces a
  deal exactly; without a seed each reset deals a fresh game.

``render()`` returns the spectator's view as JSON text (``render_mode="ansi"``).
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from engine.registry import get_game
from research.actions import action_string, codec
from research.features import spec
from research.observation import (
    observation_string,
    rank_returns,
    tensor_size,
    write_view_tensor,
)


class TabletopEnv(AECEnv):
    """An AEC environment for one of our games, a player count and options."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(
        self,
        game_id: str,
        players: int = 3,
        options: dict[str, Any] | None = None,
        render_mode: str | None = None,
        max_steps: int | None = None,
        observation: str = "hashed",
        flat_observation: bool = False,
    ) -> None:
        super().__init__()
        if observation not in ("hashed", "features"):
            raise ValueError(f"observation must be 'hashed' or 'features', not {observation!r}")
        self.features = spec(game_id) if observation == "features" else None
        self.flat_observation = flat_observation
        self.game = get_game(game_id)
        self.players = players
        self.options = dict(options or {})
        self.game.setup(players, self.options, seed=0)  # refuse bad players/options at construction
        self.max_steps = self.game.max_decisions(players) if max_steps is None else int(max_steps)
        if self.max_steps < 1:
            raise ValueError(f"max_steps must be at least 1, not {max_steps!r}")
        self.steps = 0
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', not {render_mode!r}")
        self.render_mode = render_mode
        self.metadata = {**self.metadata, "name": f"tabletop_{game_id}_v0"}
        self.codec = codec(self.game)
        self.possible_agents = [f"player_{s}" for s in range(players)]
        self._seat = {a: s for s, a in enumerate(self.possible_agents)}
        size = tensor_size(self.game)
        box = (
            spaces.Box(-np.inf, np.inf, (size,), np.float32)
            if self.features is None
            else spaces.Box(0.0, 1.0, (self.features.size,), np.float32)
        )
        mask_space = spaces.Box(0, 1, (self.codec.num_actions,), np.int8)
        obs_space: spaces.Space = (
            box if flat_observation else spaces.Dict({"observation": box, "action_mask": mask_space})
        )
        self.observation_spaces = dict.fromkeys(self.possible_agents, obs_space)
        self.action_spaces = {a: spaces.Discrete(self.codec.num_actions) for a in self.possible_agents}
        self._seeds = random.Random()
        self.state: Any = None
        self._legal: list[int] = []

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a new game: game ``seed`` if given (reproducible), else a fresh one.  ``options`` here
        is PettingZoo's per-reset dict and is ignored: the game's options are fixed at construction."""
        deal = seed if seed is not None else self._seeds.getrandbits(63)
        self.state = self.game.setup(self.players, self.options, seed=deal)
        self.steps = 0
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._select()
        self._flat_masks()

    def _select(self) -> None:
        seat = self.game.to_move(self.state)
        if seat is not None:
            self.agent_selection = self.possible_agents[seat]
            self._legal = self.codec.encode_all(self.game.legal_actions(self.state))

    def _mask(self, agent: str) -> np.ndarray:
        mask = np.zeros(self.codec.num_actions, np.int8)
        if self.game.to_move(self.state) == self._seat[agent]:
            mask[self._legal] = 1
        return mask

    def _flat_masks(self) -> None:
        """With flat observations the masks travel in ``infos`` (kept current after every step)."""
        if self.flat_observation:
            for a in self.agents:
                self.infos[a]["action_mask"] = self._mask(a)

    def observe(self, agent: str) -> Any:
        seat = self._seat[agent]
        if self.features is not None:
            obs = self.features.encode_state(self.game, self.state, seat)
        else:
            obs = np.zeros(tensor_size(self.game), np.float32)
            to_move = self.game.to_move(self.state) == seat
            write_view_tensor(obs, self.game.view(self.state, seat), seat, to_move)
        return obs if self.flat_observation else {"observation": obs, "action_mask": self._mask(agent)}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None or int(action) not in self._legal:
            raise ValueError(f"{agent}: action {action!r} is not legal now (see the action mask)")
        self._cumulative_rewards[agent] = 0.0
        self.game.apply(self.state, self.codec.decode(int(action)))
        self.steps += 1
        self.rewards = dict.fromkeys(self.agents, 0.0)
        if self.game.to_move(self.state) is None:
            returns = rank_returns(self.game, self.state, self.players)
            for a in self.agents:
                self.rewards[a] = returns[self._seat[a]]
            self.terminations = dict.fromkeys(self.agents, True)
            self.infos = {a: {"result": self.game.result(self.state)} for a in self.agents}
        elif self.steps >= self.max_steps:
            self.truncations = dict.fromkeys(self.agents, True)  # no result: rewards stay 0
            self._legal = []  # the episode is over: every mask is empty
            self.infos = {a: {"truncated_after": self.steps} for a in self.agents}
        else:
            self._select()
        self._flat_masks()
        self._accumulate_rewards()

    def action_to_dict(self, action: int) -> dict[str, Any]:
        """The game action (JSON object, as the HTTP API takes it) of an action id."""
        return self.codec.decode(int(action))

    def action_to_string(self, action: int) -> str:
        return action_string(self.codec.decode(int(action)))

    def render(self) -> str | None:
        if self.render_mode is None or self.state is None:
            return None
        return observation_string(self.game, self.state, None)

    def close(self) -> None:
        self.state = None


def env(game_id: str, players: int = 3, options: dict[str, Any] | None = None, **kwargs: Any) -> TabletopEnv:
    """A :class:`TabletopEnv` (the PettingZoo ``env()`` convention); ``kwargs``: ``render_mode``,
    ``max_steps``, ``observation`` (``"hashed"`` or ``"features"``), ``flat_observation``."""
    return TabletopEnv(game_id, players, options, **kwargs)
