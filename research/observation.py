"""What an agent sees, as strings and fixed-size tensors, built only from ``game.view(state, seat)`` and
the events that seat was shown: shared by the OpenSpiel and the PettingZoo adapters.

Nothing here reads the full state, so an agent trained on these observations cannot have learnt from
information its seat would not have over HTTP (where the view and the visible events are all a client
gets).

* **Observation string**: the seat's view as canonical JSON (sorted keys, no spaces).
* **Observation tensor** (``float32``, :func:`tensor_size`): ``max_players`` entries one-hot of the
  observing seat, one entry "this seat is to move", then :data:`VIEW_BUCKETS` buckets of *feature
  hashing* (Weinberger et al. 2009) of the flattened view.  Each leaf of the view JSON has a path
  (``players.2.score``: dict keys and list positions); a number or boolean adds its value, a string or
  null adds 1 for ``path=value``, each into bucket ``crc32(key) mod VIEW_BUCKETS`` with a sign from
  another bit of the same hash, so collisions cancel on average instead of piling up.  Numbers are raw
  (scores, coins, counts), not normalised.  CRC32 is used because Python's ``hash`` is salted per
  process and the layout must be the same in every run.
* **Information state**: perfect recall for the seat.  The string is the view plus a running BLAKE2b
  digest of everything the seat has been shown since the start (its initial view and every event
  visible to it, in order), so two different histories give two different strings; the tensor is the
  observation tensor followed by :data:`HISTORY_BUCKETS` buckets counting those events (each event's
  canonical JSON hashed to one bucket): a bag of what was seen, the usual fixed-size compromise.
  Histories are kept *on demand* (:class:`SeatHistory`): a move only records its events; a seat's
  digest and bag are folded from them when something asks for that seat's information state, and
  cached, so seats nobody reads cost nothing per move; even the initial views are hashed only when
  a history is first read (a game keeps a copy of its initial state until then).  A view's tensor
  reuses the parts of the view (its keys, and their items) already hashed for an earlier view, so
  only what changed is flattened again; the values are the same as hashing every leaf afresh.
* **Returns**: from the final ranking, linear in place: first +1, last -1 (``1 - 2 * place / (n - 1)``),
  so they sum to 0 and a win counts the same whatever the score margin.
"""

from __future__ import annotations

import hashlib
import zlib
from typing import Any

import numpy as np
import orjson

from engine.core import Event, Game, event_visible

#: Hash buckets for the flattened view in the observation tensor.
VIEW_BUCKETS = 1024
#: Hash buckets for the bag of seen events in the information-state tensor.
HISTORY_BUCKETS = 512

_SORTED = orjson.OPT_SORT_KEYS
#: Hashing key -> its signed bucket: ``bucket`` for a + sign, ``bucket + VIEW_BUCKETS`` for a - sign.
_SLOT: dict[str, int] = {}
_SLOT_CAP = 1_000_000  # the vocabulary of paths and values is small; never grow unbounded


def canonical(doc: Any) -> bytes:
    """Canonical JSON of a view or event (sorted keys): the same document always gives the same bytes."""
    return orjson.dumps(doc, option=_SORTED)


def _slot(key: str) -> int:
    """Signed bucket of a hashing key: ``crc32 mod VIEW_BUCKETS``, sign from the hash's top bit."""
    h = zlib.crc32(key.encode())
    found = h % VIEW_BUCKETS + (VIEW_BUCKETS if h & 0x80000000 else 0)
    if len(_SLOT) < _SLOT_CAP:
        _SLOT[key] = found
    return found


def _flatten(doc: Any, path: str, slots: list[int], values: list[float]) -> None:
    """Append each leaf of ``doc`` as its signed bucket and value (scalars handled inline, and each key
    looked up in the bucket cache right here: this runs for every observation of every step)."""
    items = doc.items() if isinstance(doc, dict) else enumerate(doc)
    slot = _SLOT.get
    for key, item in items:
        here = f"{path}.{key}"
        kind = type(item)
        if kind is dict or kind is list or kind is tuple:
            _flatten(item, here, slots, values)
            continue
        if kind is bool:
            value = 1.0 if item else 0.0
        elif kind is int or kind is float:
            value = float(item)
        else:
            here = f"{here}={item}"
            value = 1.0
        found = slot(here)
        slots.append(_slot(here) if found is None else found)
        values.append(value)


def tensor_size(game: Game) -> int:
    """Length of the observation tensor of ``game``."""
    return game.max_players + 1 + VIEW_BUCKETS


def info_tensor_size(game: Game) -> int:
    """Length of the information-state tensor of ``game``."""
    return tensor_size(game) + HISTORY_BUCKETS


#: A part of a view already flattened: ``(path, JSON of the subtree)`` -> the signed buckets and the
#: values of its leaves (numpy arrays).  Consecutive views (and the views of different seats) share
#: most of their subtrees, so most of a view is found here and only what changed is flattened again.
_PARTS: dict[tuple[str, bytes], tuple[np.ndarray, np.ndarray]] = {}
_PARTS_CAP = 20_000  # entries (tens of MB at most); emptied when full, the next views refill it
#: Containers are looked up whole down to this depth (1: the view's own keys; 2: their items).
_PART_DEPTH = 2


def _arrays(slots: list[int], values: list[float]) -> tuple[np.ndarray, np.ndarray]:
    n = len(slots)
    return np.fromiter(slots, np.intp, n), np.fromiter(values, np.float64, n)


def _part(path: str, doc: Any, depth: int, parts: list[tuple[np.ndarray, np.ndarray]]) -> None:
    """Append the leaves of the container ``doc`` at ``path`` to ``parts``, from :data:`_PARTS` when
    seen before.  Equal JSON means equal leaves (a bool, a number, a string and null never print
    alike), so the JSON of the subtree (``orjson``: microseconds) is a safe key."""
    key = (path, orjson.dumps(doc))
    found = _PARTS.get(key)
    if found is None:
        if depth < _PART_DEPTH:
            mine: list[tuple[np.ndarray, np.ndarray]] = []
            _split(doc, path, depth + 1, mine)
            found = _joined(mine)
        else:
            slots: list[int] = []
            values: list[float] = []
            _flatten(doc, path, slots, values)
            found = _arrays(slots, values)
        if len(_PARTS) >= _PARTS_CAP:
            _PARTS.clear()
        _PARTS[key] = found
    parts.append(found)


def _joined(parts: list[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    if len(parts) == 1:
        return parts[0]
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def _split(doc: Any, path: str, depth: int, parts: list[tuple[np.ndarray, np.ndarray]]) -> None:
    """Append the leaves of ``doc``: each container item through :func:`_part`, the scalars as one
    more part."""
    scalars: dict[Any, Any] = {}
    items = doc.items() if isinstance(doc, dict) else enumerate(doc)
    for key, item in items:
        kind = type(item)
        if kind is dict or kind is list or kind is tuple:
            _part(f"{path}.{key}", item, depth, parts)
        else:
            scalars[key] = item
    slots: list[int] = []
    values: list[float] = []
    _flatten(scalars, path, slots, values)
    parts.append(_arrays(slots, values))


def write_view_tensor(out: np.ndarray, view: dict[str, Any], seat: int, to_move: bool) -> None:
    """Fill ``out`` (zeroed first; length :func:`tensor_size`) with the hashed encoding of ``view``.

    The leaves are summed per signed bucket in one ``bincount`` (float64: exact for the integer values
    views hold, so the same numbers as adding them one by one in float32)."""
    out.fill(0.0)
    head = len(out) - VIEW_BUCKETS - 1
    if 0 <= seat < head:
        out[seat] = 1.0
    out[head] = 1.0 if to_move else 0.0
    parts: list[tuple[np.ndarray, np.ndarray]] = []
    _split(view, "", 1, parts)
    slots, values = _joined(parts)
    if len(slots):
        sums = np.bincount(slots, weights=values, minlength=2 * VIEW_BUCKETS)
        out[head + 1 :] = sums[:VIEW_BUCKETS] - sums[VIEW_BUCKETS:]


def event_payload(event: Event) -> bytes:
    """What a seat is shown of one event: its canonical JSON, ``visible_to`` left out."""
    return canonical({k: v for k, v in event.items() if k != "visible_to"})


def event_bucket(event: Event) -> int:
    """History bucket of one event (its canonical JSON, ``visible_to`` left out)."""
    return zlib.crc32(event_payload(event)) % HISTORY_BUCKETS


def chain(digest: bytes, payload: bytes) -> bytes:
    """Next running digest of a seat's history: BLAKE2b-128 of the previous digest and what was shown."""
    return hashlib.blake2b(digest + payload, digest_size=16).digest()


#: One seat's history at some point: its running digest and its bag (event counts per bucket,
#: ``float32``, length :data:`HISTORY_BUCKETS`; never written once stored, so it may be shared).
Seen = tuple[bytes, np.ndarray]


class _Step:
    """One ``apply``'s events, linked to the step before: the log every copy of a state shares up to
    where they part.  ``seen`` caches, per seat, that seat's history up to and including this step."""

    __slots__ = ("events", "initial", "payloads", "prev", "seen")

    def __init__(self, prev: _Step | None, events: list[Event], seen: dict[int, Seen] | None = None) -> None:
        self.prev = prev
        self.events = events
        self.payloads: list[tuple[bytes, int]] | None = None  # (payload, bucket) per event, on demand
        self.seen = seen
        #: At the root only, until its ``seen`` is computed: the game and a copy of the initial state,
        #: whose views start every seat's history (hashed when a history is first read).
        self.initial: tuple[Game, Any] | None = None

    def shown(self) -> list[tuple[bytes, int]]:
        if self.payloads is None:
            payloads = [event_payload(e) for e in self.events]
            self.payloads = [(p, zlib.crc32(p) % HISTORY_BUCKETS) for p in payloads]
        return self.payloads


def _empty_bag() -> np.ndarray:
    return np.zeros(HISTORY_BUCKETS, np.float32)


class SeatHistory:
    """What each seat has been shown so far, per seat and for the spectator (index ``players``: the
    public history), kept on demand.

    A move only links its events onto the log (:meth:`after`, constant time); :meth:`seen` folds a
    seat's digest and bag from the log when it is asked for, and caches the result on the step it
    reached, which every clone sharing that step reuses.  Immutable from outside (each move gives a
    new history), so a cloned state shares it until the next event.
    """

    __slots__ = ("players", "step")

    def __init__(self, players: int, step: _Step) -> None:
        self.players = players
        self.step = step  # its ``seen`` is None at the root until :meth:`ready`

    @classmethod
    def start(cls, players: int) -> SeatHistory:
        """Each seat starts having seen its initial view.  Hashing those views waits for
        :meth:`ready`: OpenSpiel creates many initial states only to learn a tensor's shape."""
        return cls(players, _Step(None, []))

    @classmethod
    def restored(cls, seen: list[Seen]) -> SeatHistory:
        """A history whose every seat (and the public, last) has seen exactly ``seen``."""
        return cls(len(seen) - 1, _Step(None, [], dict(enumerate(seen))))

    def ready(self, game: Game, state: Any) -> SeatHistory:
        """This history, able to start from the initial views; ``state`` must be the initial state
        (call it before the first move).  It keeps a copy of the state, whose views are hashed only
        when a history is first read: a game nobody observes costs one ``clone``, not a view and its
        hash per seat."""
        root = self.step
        if root.prev is None and root.seen is None and root.initial is None:
            root.initial = (game, game.clone(state))
        return self

    @staticmethod
    def _root_seen(root: _Step, seat: int, players: int) -> Seen:
        """``seat``'s history at the root: its initial view hashed, once, when first read.  Per seat:
        OpenSpiel's C++ side learns a tensor's shape from one seat of a fresh initial state (every
        time it sizes a tensor), which so costs one view, not one per seat."""
        seen = root.seen
        if seen is None:
            seen = root.seen = {}
        found = seen.get(seat)
        if found is None:
            assert root.initial is not None, "call ready() before the first move"
            game, state = root.initial
            view = game.view(state, None if seat == players else seat)
            found = seen[seat] = (chain(b"", canonical(view)), _empty_bag())
            if len(seen) > players:  # every seat and the public: the initial state has served
                root.initial = None
        return found

    def after(self, events: list[Event]) -> SeatHistory:
        """The histories once ``events`` (from one ``apply``) were shown to whoever may see them."""
        return SeatHistory(self.players, _Step(self.step, events))

    def seen(self, seat: int) -> Seen:
        """Digest and bag of ``seat`` (``players``: the public history), folded from the log now."""
        path: list[_Step] = []
        step: _Step | None = self.step
        while step is not None and (step.seen is None or seat not in step.seen):
            path.append(step)
            step = step.prev
        if step is None:  # the root, where this seat's initial view is not hashed yet
            step = path.pop()
            digest, bag = self._root_seen(step, seat, self.players)
        else:
            digest, bag = step.seen[seat]  # type: ignore[index]  # the loop stopped at a filled ``seen``
        if not path:
            return digest, bag
        viewer = None if seat == self.players else seat
        bag = bag.copy()
        for s in reversed(path):
            for event, (payload, bucket) in zip(s.events, s.shown(), strict=True):
                if event_visible(event, viewer):
                    digest = chain(digest, payload)
                    bag[bucket] += 1.0
        head = self.step
        if head.seen is None:
            head.seen = {}
        head.seen[seat] = (digest, bag)
        return digest, bag

    def everyone(self) -> list[Seen]:
        """Every seat's history, then the public one (what a copy in another process needs)."""
        return [self.seen(i) for i in range(self.players + 1)]

    def resampled_for(self, seat: int) -> SeatHistory:
        """The histories of a world resampled for ``seat``: its own is kept; the others are unknown to it,
        so they are derived from its own digest (a function of what ``seat`` knows, never of the truth).
        The public history (last entry) is everybody's, so it is kept too."""
        own = self.seen(seat)
        public = self.players
        seen = [
            self.seen(s) if s in (seat, public) else (chain(own[0], f"resampled:{s}".encode()), _empty_bag())
            for s in range(public + 1)
        ]
        return SeatHistory.restored(seen)


def observation_string(game: Game, state: Any, seat: int | None) -> str:
    """The observation string: ``seat``'s view (``None``: the spectator's) as canonical JSON."""
    return canonical(game.view(state, seat)).decode()


def rank_returns(game: Game, state: Any, players: int) -> list[float]:
    """Per seat, ``1 - 2 * place / (n - 1)`` from the final ranking; zeros while the game goes on."""
    result = game.result(state)
    if result is None:
        return [0.0] * players
    ranking = result["ranking"]
    if players == 1:
        return [0.0]
    return [1.0 - 2.0 * ranking.index(s) / (players - 1) for s in range(players)]
