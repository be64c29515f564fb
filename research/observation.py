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
_CRC: dict[str, int] = {}


def canonical(doc: Any) -> bytes:
    """Canonical JSON of a view or event (sorted keys): the same document always gives the same bytes."""
    return orjson.dumps(doc, option=_SORTED)


def _crc(key: str) -> int:
    found = _CRC.get(key)
    if found is None:
        found = zlib.crc32(key.encode())
        if len(_CRC) < 1_000_000:  # the vocabulary of paths and values is small; never grow unbounded
            _CRC[key] = found
    return found


def _flatten(doc: Any, path: str, keys: list[str], values: list[float]) -> None:
    """Append each leaf of ``doc`` as a hashing key and a value (scalars handled inline: this runs for
    every observation of every step, and a call per leaf doubled its cost)."""
    items = doc.items() if isinstance(doc, dict) else enumerate(doc)
    for key, item in items:
        here = f"{path}.{key}"
        kind = type(item)
        if kind is dict or kind is list or kind is tuple:
            _flatten(item, here, keys, values)
        elif kind is bool:
            keys.append(here)
            values.append(1.0 if item else 0.0)
        elif kind is int or kind is float:
            keys.append(here)
            values.append(float(item))
        else:
            keys.append(f"{here}={item}")
            values.append(1.0)


def tensor_size(game: Game) -> int:
    """Length of the observation tensor of ``game``."""
    return game.max_players + 1 + VIEW_BUCKETS


def info_tensor_size(game: Game) -> int:
    """Length of the information-state tensor of ``game``."""
    return tensor_size(game) + HISTORY_BUCKETS


def write_view_tensor(out: np.ndarray, view: dict[str, Any], seat: int, to_move: bool) -> None:
    """Fill ``out`` (zeroed first; length :func:`tensor_size`) with the hashed encoding of ``view``."""
    out.fill(0.0)
    head = len(out) - VIEW_BUCKETS - 1
    if 0 <= seat < head:
        out[seat] = 1.0
    out[head] = 1.0 if to_move else 0.0
    keys: list[str] = []
    values: list[float] = []
    _flatten(view, "", keys, values)
    crc = _CRC.get
    hashes = [crc(k) or _crc(k) for k in keys]
    idx = np.fromiter((h % VIEW_BUCKETS for h in hashes), dtype=np.int64, count=len(hashes))
    val = np.fromiter(
        (-v if h & 0x80000000 else v for h, v in zip(hashes, values, strict=True)),
        dtype=np.float32,
        count=len(hashes),
    )
    np.add.at(out, idx + head + 1, val)


def event_bucket(event: Event) -> int:
    """History bucket of one event (its canonical JSON, ``visible_to`` left out)."""
    return zlib.crc32(canonical({k: v for k, v in event.items() if k != "visible_to"})) % HISTORY_BUCKETS


def chain(digest: bytes, payload: bytes) -> bytes:
    """Next running digest of a seat's history: BLAKE2b-128 of the previous digest and what was shown."""
    return hashlib.blake2b(digest + payload, digest_size=16).digest()


class SeatHistory:
    """What each seat has been shown so far: a running digest and a bag of event buckets per seat, and
    one more entry (index ``players``) for the spectator, i.e. the public history.

    Immutable values (bytes, tuples) so a cloned state can share them until the next event.
    """

    __slots__ = ("bags", "digests")

    def __init__(self, digests: tuple[bytes, ...] | None, bags: tuple[tuple[int, ...], ...]) -> None:
        self.digests = digests  # None: nothing seen but the initial views, not hashed yet (see start)
        self.bags = bags

    @classmethod
    def start(cls, players: int) -> SeatHistory:
        """Each seat starts having seen its initial view.  Hashing those views waits for
        :meth:`ready`: OpenSpiel creates many initial states only to learn a tensor's shape."""
        return cls(None, tuple(() for _ in range(players + 1)))

    def ready(self, game: Game, state: Any) -> SeatHistory:
        """This history with the initial views hashed; ``state`` must be the initial state."""
        if self.digests is not None:
            return self
        seats: list[int | None] = [*range(len(self.bags) - 1), None]
        return SeatHistory(tuple(chain(b"", canonical(game.view(state, s))) for s in seats), self.bags)

    def after(self, events: list[Event]) -> SeatHistory:
        """The histories once ``events`` (from one ``apply``) were shown to whoever may see them."""
        assert self.digests is not None, "call ready() before the first move"
        digests = list(self.digests)
        bags = list(self.bags)
        public = len(digests) - 1
        for i in range(len(digests)):
            seen = [e for e in events if event_visible(e, None if i == public else i)]
            if not seen:
                continue
            for e in seen:
                digests[i] = chain(digests[i], canonical({k: v for k, v in e.items() if k != "visible_to"}))
            bags[i] = bags[i] + tuple(event_bucket(e) for e in seen)
        return SeatHistory(tuple(digests), tuple(bags))

    def resampled_for(self, seat: int) -> SeatHistory:
        """The histories of a world resampled for ``seat``: its own is kept; the others are unknown to it,
        so they are derived from its own digest (a function of what ``seat`` knows, never of the truth).
        The public history (last entry) is everybody's, so it is kept too."""
        assert self.digests is not None, "call ready() first"
        public = len(self.digests) - 1
        digests = tuple(
            d if s in (seat, public) else chain(self.digests[seat], f"resampled:{s}".encode())
            for s, d in enumerate(self.digests)
        )
        bags = tuple(b if s in (seat, public) else () for s, b in enumerate(self.bags))
        return SeatHistory(digests, bags)


def observation_string(game: Game, state: Any, seat: int | None) -> str:
    """The observation string: ``seat``'s view (``None``: the spectator's) as canonical JSON."""
    return canonical(game.view(state, seat)).decode()


def write_history_tensor(out: np.ndarray, bag: tuple[int, ...]) -> None:
    """Fill ``out`` (length :data:`HISTORY_BUCKETS`) with the counts of ``bag``'s event buckets."""
    out.fill(0.0)
    if bag:
        np.add.at(out, np.fromiter(bag, dtype=np.int64, count=len(bag)), 1.0)


def rank_returns(game: Game, state: Any, players: int) -> list[float]:
    """Per seat, ``1 - 2 * place / (n - 1)`` from the final ranking; zeros while the game goes on."""
    result = game.result(state)
    if result is None:
        return [0.0] * players
    ranking = result["ranking"]
    if players == 1:
        return [0.0]
    return [1.0 - 2.0 * ranking.index(s) / (players - 1) for s in range(players)]
