"""Match records (``tabletop-record/1``, or ``/2`` with takebacks; see docs/records.md) as training data:
per seat, what it saw, what it could do, what it did and what it got.

    from research.records import read_ndjson, to_arrays, trajectories
    trajs = [t for record in read_ndjson("dataset/records.ndjson") for t in trajectories(record)]
    batch = to_arrays(trajs)      # obs [N, D] float32, action [N] int64, mask [N, A] bool, return [N], ...

A record is replayed through the OpenSpiel game (:mod:`research.openspiel_game`) from its deal
(``setup.seed``), so each observation is the tensor the adapters would have given that seat at that
decision: the hashed view tensor (``observation="hashed"``, the OpenSpiel ``observation_tensor`` and
the PettingZoo ``"observation"``), the documented feature vector (``"features"``, the adapters'
``observation="features"``), or the information-state tensor (``"info_state"``: the hashed view and
the bag of events the seat was shown, OpenSpiel's ``information_state_tensor``).  Nothing is read from
the record but the deal, the players, the options and the actions: the observations are recomputed,
never trusted from the file.

A record with takebacks (``tabletop-record/2``) gives the trajectories of the live line: the decisions
in force (:func:`engine.records.in_force`), as if the taken-back ones had never been made, so a step's
observation is what the seat would see in the game as it ended, not what it saw before a takeback;
``SeatTrajectory.decisions`` keeps the record's numbers, so they skip the taken-back decisions.

The replay checks as it goes: each decision's seat is the seat the rules put to move, its action is
legal there and its id (:mod:`research.actions`) maps back to that very action, and the final result is
the record's.  A record that disagrees raises :class:`RecordTrajectoryError` naming the decision (the
full event-by-event check is ``engine.records.replay``; this one needs no more than the adapters do).

Rewards follow the adapters' terminal reward model: 0 after every decision but a seat's last, which
gets the seat's return (rank-based, zero-sum: first +1, last -1); ``returns`` is that return at every
step (undiscounted return-to-go).  Only *full* records (a finished match, read after its end) hold the
deal; a seat's or a spectator's record is refused.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import orjson
import pyspiel

from engine.records import FORMATS, in_force
from engine.registry import get_game
from research.actions import codec
from research.openspiel_game import TabletopGame, load

#: The observation kinds :func:`trajectories` builds.
OBSERVATIONS = ("hashed", "features", "info_state")


class RecordTrajectoryError(ValueError):
    """A record that cannot be replayed through the adapter: ``n`` is the decision (1-based; 0 for the
    header, ``len(decisions) + 1`` for the result), ``what`` says what disagreed."""

    def __init__(self, n: int, what: str) -> None:
        self.n = n
        self.what = what
        super().__init__(f"decision {n}: {what}")


@dataclass(eq=False)
class SeatTrajectory:
    """One seat's decisions in one match, in order: ``observations[t]`` is what the seat saw when it
    made decision ``t``, ``legal[t]`` the ids it could choose from (ascending), ``actions[t]`` the id it
    chose, ``rewards[t]`` the reward after it; ``final_return`` is the seat's return at the end."""

    match_id: str | None
    game: str
    players: int
    seat: int
    observations: list[np.ndarray] = field(default_factory=list)
    actions: list[int] = field(default_factory=list)
    legal: list[np.ndarray] = field(default_factory=list)
    rewards: list[float] = field(default_factory=list)
    final_return: float = 0.0
    #: The record's decision number (``n``) of each step: which decision of the match it was.
    decisions: list[int] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.actions)

    @property
    def returns(self) -> list[float]:
        """The return-to-go after each step (terminal rewards only, so the final return throughout)."""
        return [self.final_return] * len(self.actions)

    def masks(self, num_actions: int) -> np.ndarray:
        """The legal-action masks, ``[len(self), num_actions]`` bool (the adapters' ``action_mask``)."""
        out = np.zeros((len(self.legal), num_actions), np.bool_)
        for t, ids in enumerate(self.legal):
            out[t, ids] = True
        return out


def read_ndjson(path: str | Path) -> Iterator[dict[str, Any]]:
    """The records of an NDJSON file (``tabletop export``, a dataset's ``records.ndjson``), one at a
    time; a cursor line (``{"type": "cursor", ...}``) of a paged export is skipped."""
    with Path(path).open("rb") as lines:
        for line in lines:
            if line.strip():
                doc = orjson.loads(line)
                if doc.get("type") != "cursor":
                    yield doc


def _plain(doc: Any) -> Any:
    """``doc`` as JSON reads it back (tuples become lists): how the record holds it."""
    return orjson.loads(orjson.dumps(doc))


def game_of(record: dict[str, Any]) -> TabletopGame:
    """The OpenSpiel game of a record's header (its game, players and options)."""
    header = record["header"]
    game: TabletopGame = load(header["game"], players=int(header["players"]), **header.get("options", {}))
    return game


def trajectories(record: dict[str, Any], observation: str = "hashed") -> list[SeatTrajectory]:
    """Every seat's trajectory in ``record`` (a full ``tabletop-record/1`` or ``/2`` document), seat
    order; the taken-back decisions of a ``/2`` one are left out."""
    if observation not in OBSERVATIONS:
        raise ValueError(f"observation must be one of {', '.join(OBSERVATIONS)}, not {observation!r}")
    if record.get("format") not in FORMATS:
        raise RecordTrajectoryError(0, f"format {record.get('format')!r}, not one of {', '.join(FORMATS)}")
    setup = record.get("setup")
    if record.get("perspective") != "full" or not setup:
        raise RecordTrajectoryError(0, "only a full record (a finished match) holds the deal to replay")
    header = record["header"]
    game = game_of(record)
    iig = pyspiel.IIGObservationType(perfect_recall=observation == "info_state")
    observer = game.make_py_observer(
        iig, {"observation": "features" if observation == "features" else "hashed"}
    )
    state = game.dealt(int(setup["seed"]))
    out = [
        SeatTrajectory(header.get("match_id"), header["game"], game.players, s) for s in range(game.players)
    ]
    for decision in in_force(record):
        n, seat = int(decision["n"]), int(decision["seat"])
        if state.is_terminal() or state.current_player() != seat:
            to_move = None if state.is_terminal() else state.current_player()
            raise RecordTrajectoryError(n, f"seat {seat} moved, but the seat to move is {to_move}")
        legal = state.legal_actions()
        code = game.codec.encode(decision["action"])
        if code not in legal or _plain(state.box.actions[code]) != decision["action"]:
            raise RecordTrajectoryError(n, f"action {decision['action']} is not legal for seat {seat}")
        observer.set_from(state, seat)
        mine = out[seat]
        mine.observations.append(observer.tensor.copy())
        mine.legal.append(np.asarray(legal, np.int64))
        mine.actions.append(code)
        mine.rewards.append(0.0)
        mine.decisions.append(n)
        state.apply_action(code)
    end = len(record["decisions"]) + 1  # the result's number: after every decision, taken back or not
    if not state.is_terminal():
        raise RecordTrajectoryError(end, "the record ends before the game does")
    if _plain(game.engine.result(state.engine_state)) != record.get("result"):
        raise RecordTrajectoryError(end, "the replayed result differs from the record's")
    for mine, value in zip(out, state.returns(), strict=True):
        mine.final_return = float(value)
        if mine.rewards:
            mine.rewards[-1] = float(value)
    return out


def to_arrays(trajs: list[SeatTrajectory], masks: bool = True) -> dict[str, np.ndarray]:
    """The steps of ``trajs`` as one batch of numpy arrays, step by step in trajectory order:
    ``obs`` [N, D] float32, ``action`` [N] int64, ``reward`` [N] and ``return`` [N] float32, ``done``
    [N] bool (a trajectory's last step), ``seat`` and ``episode`` (index into ``trajs``) [N] int64, and
    with ``masks`` ``mask`` [N, num_actions] bool (China's 31,251 ids make it the big one: leave it out
    and use ``legal`` from the trajectories when memory is short)."""
    numbered = [(i, t) for i, t in enumerate(trajs) if len(t)]
    steps = [t for _, t in numbered]
    if not steps:
        raise ValueError("no steps: every trajectory is empty")
    games = {t.game for t in steps}
    if len(games) != 1:
        raise ValueError(f"one game per batch (the action ids are per game); got {sorted(games)}")
    batch: dict[str, np.ndarray] = {
        "obs": np.concatenate([np.stack(t.observations) for t in steps]).astype(np.float32, copy=False),
        "action": np.concatenate([np.asarray(t.actions, np.int64) for t in steps]),
        "reward": np.concatenate([np.asarray(t.rewards, np.float32) for t in steps]),
        "return": np.concatenate([np.asarray(t.returns, np.float32) for t in steps]),
        "done": np.concatenate([np.arange(len(t)) == len(t) - 1 for t in steps]),
        "seat": np.concatenate([np.full(len(t), t.seat, np.int64) for t in steps]),
        "episode": np.concatenate([np.full(len(t), i, np.int64) for i, t in numbered]),
    }
    if masks:
        num_actions = codec(get_game(steps[0].game)).num_actions
        batch["mask"] = np.concatenate([t.masks(num_actions) for t in steps])
    return batch
