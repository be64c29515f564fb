"""Play a seat over HTTP with an agent trained offline: the agent's input built from the API's answers.

An agent trained on :mod:`research.openspiel_game` (through OpenSpiel's ``rl_environment`` with
``ObservationType.OBSERVATION``) or :mod:`research.pettingzoo_env` saw observation tensors built from
``game.view(state, seat)`` and legal-action masks over the ids of :mod:`research.actions`.  Over HTTP a
seat gets exactly that view (the match document's ``view``) and its legal actions (``legal-actions``),
so the same tensor and mask can be rebuilt on the client: the agent plays online on the very input it
was trained on.  (A search bot that resamples full states, such as IS-MCTS, cannot: a client never
holds a full state, only its seat's view.)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from engine.core import Action, Game
from research.actions import codec
from research.observation import tensor_size, write_view_tensor


def observation_from_view(game: Game, view: dict[str, Any], seat: int, to_move: bool = True) -> np.ndarray:
    """The observation tensor of ``seat`` from its view, as training produced it."""
    out = np.zeros(tensor_size(game), np.float32)
    write_view_tensor(out, view, seat, to_move)
    return out


def legal_ids(game: Game, actions: list[Action]) -> list[int]:
    """Sorted action ids of the API's legal actions."""
    return codec(game).encode_all(actions)


def time_step_from_match(game: Any, match: dict[str, Any], actions: list[Action]) -> Any:
    """An OpenSpiel ``rl_environment.TimeStep`` for the seat of ``match`` (the match document as that
    seat sees it) whose legal actions are ``actions``: what ``agent.step`` wants.

    ``game`` is the engine game or the OpenSpiel game of :mod:`research.openspiel_game`.
    """
    from open_spiel.python import rl_environment

    engine = getattr(game, "engine", game)
    seat = match["your_seat"]
    players = len(match["view"]["players"])
    info: list[list[float]] = [[] for _ in range(players)]
    legal: list[list[int]] = [[] for _ in range(players)]
    info[seat] = observation_from_view(engine, match["view"], seat, match["to_move"] == seat).tolist()
    legal[seat] = legal_ids(engine, actions)
    return rl_environment.TimeStep(
        observations={"info_state": info, "legal_actions": legal, "current_player": seat},
        rewards=None,
        discounts=None,
        step_type=rl_environment.StepType.MID,
    )


def action_from_id(game: Any, action_id: int) -> Action:
    """The JSON action to POST for an agent's action id."""
    return codec(getattr(game, "engine", game)).decode(int(action_id))
