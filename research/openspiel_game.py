"""The four games as OpenSpiel Python games: ``pyspiel.load_game("tabletop_china(players=4)")``.

Importing this module registers ``tabletop_<game id>`` for every game in :data:`engine.registry.GAMES`
(``tabletop_taj_mahal``, ``tabletop_china``, ``tabletop_year_of_dragon``, ``tabletop_confucius``).
Parameters: ``players`` (default 3), every option of the game's option schema under its own name with
its default, ``seed`` (default -1: each new initial state draws a fresh deal; ``>= 0``: every initial
state is the same deal, for reproducible evaluations), and ``observation`` (``hashed``, the default, or
``features``: what the state's tensors and the default observer hold, see below).

Modelling choices, and why:

* **Chance is SAMPLED_STOCHASTIC.**  Our games keep their random generator inside the state, and draw
  from it inside ``apply`` (a deal, a shuffle, the next card), so randomness happens *within* a
  player's move rather than at separate chance decisions.  Declaring it sampled says exactly that:
  there are no chance nodes and no enumerable chance outcomes; the outcome is sampled from the hidden
  generator.  Turning it into explicit chance nodes would mean inventing a finite outcome set (a seed
  out of a few thousand) that under-represents the real deal distribution.  The cost: algorithms that
  need an explicit chance tree (CFR, exact best response) do not apply, which at these games' sizes
  they would not anyway; sampling algorithms (MCTS, IS-MCTS, RL) do.
* **Actions** are the stable ids of :mod:`research.actions`; action strings are the action's canonical
  JSON.
* **Observations** and **information states** come from the seat's view and the events it was shown
  (:mod:`research.observation`); ``IIGObservationType(private_info=NONE)`` gives the spectator's view
  (the public information), ``perfect_recall=True`` the information state.  The view part is the
  hashed view tensor, or with ``observation=features`` the documented feature vector of
  :mod:`research.features`: then ``observation_tensor`` and ``information_state_tensor`` (and so
  OpenSpiel's algorithms and ``rl_environment``, which read those) get the features, as does
  ``make_observation`` without parameters; ``make_observation(game, type, {"observation": ...})``
  picks either form in any game.
* **resample_from_infostate** is ``game.determinize`` for that seat: every hidden thing (other hands,
  deck order, the generator) resampled, consistent with everything the seat has seen.
* **Returns** are rank-based and zero-sum (first +1, last -1), from ``game.result``.
* **max_game_length** is ``game.max_decisions(players)``: a bound each game derives from its rules
  (``flow.max_decisions``), so no game, however stubborn its players, lasts longer.  It is loose on
  purpose (typical games use a quarter to two thirds of it).
* **Pickling and deep copies** (multiprocessing, Ray) go through OpenSpiel's own state serialization
  (``state.serialize()``, ``game.deserialize_state``) and the game's string: a copy has the same
  observations, legal actions, history and continuation, the state's random generator included.
  OpenSpiel's default pickling would serialize the *game* with its random generator, which a Python
  sampled-stochastic game cannot provide ("GetRNGState unimplemented").  For the same reason
  ``pyspiel.serialize_game_and_state`` is pointed at :func:`serialize_game_and_state` when this
  module is imported (other games still go to OpenSpiel's own); ``pyspiel.deserialize_game_and_state``
  reads its text unchanged.
* **Parameters survive a reload by short name**: ``game.get_type().short_name`` is the full game
  string when a parameter differs from its default (:meth:`TabletopGame.get_type`), so Shimmy's
  ``OpenSpielCompatibilityV0(env=game)``, which reloads the game by that name on every reset, keeps
  the player count and options.
* **Speed**: a move records its events and nothing else; observations, information states and
  their histories are computed when first asked for, per seat, and cached on the state (see
  :mod:`research.observation`).  Legal ids are found by the action object for the prebuilt actions
  the games share (:class:`LegalIds`).  Python callers of ``legal_actions``, ``is_chance_node``,
  ``observation_tensor``, ``information_state_tensor`` and the two strings get them straight from
  Python (the C++ route a Python game otherwise takes costs several times the answer); C++ callers
  get the same values through the observer.
"""

from __future__ import annotations

import hashlib
import random
from functools import lru_cache
from typing import Any

import numpy as np
import orjson
import pyspiel

from engine.core import Game
from engine.registry import GAMES
from research.actions import ActionCodec, action_string, codec
from research.features import spec as feature_spec
from research.features.spec import FeatureSpec
from research.observation import (
    HISTORY_BUCKETS,
    SeatHistory,
    canonical,
    info_tensor_size,
    rank_returns,
    tensor_size,
    write_view_tensor,
)

#: Prefix of the registered OpenSpiel short names.
PREFIX = "tabletop_"
_DEFAULT_PLAYERS = 3
#: The forms of the view part of a tensor (the ``observation`` parameter of a game and of an observer).
OBSERVATIONS = ("hashed", "features")


def short_name(game_id: str) -> str:
    """OpenSpiel name of one of our games."""
    return PREFIX + game_id


def _parameters(game: Game) -> dict[str, Any]:
    params: dict[str, Any] = {
        "players": max(game.min_players, _DEFAULT_PLAYERS),
        "seed": -1,
        "observation": OBSERVATIONS[0],
    }
    for name, spec in game.options.get("properties", {}).items():
        assert name not in params, f"{game.id}'s option {name!r} shadows an OpenSpiel parameter"
        params[name] = spec.get("default")
    return params


def _observation_form(kind: Any, game: Game) -> FeatureSpec | None:
    """The feature spec the view part is written with (``features``), or ``None`` (``hashed``)."""
    if kind not in OBSERVATIONS:
        raise ValueError(f"observation must be one of {'|'.join(OBSERVATIONS)}; got {kind!r}")
    return feature_spec(game.id) if kind == "features" else None


def game_type(game: Game, name: str | None = None) -> pyspiel.GameType:
    """The OpenSpiel :class:`pyspiel.GameType` of ``game`` (see the module docstring for the choices);
    ``name``: another short name than the registered one (see :meth:`TabletopGame.get_type`)."""
    return pyspiel.GameType(
        short_name=name or short_name(game.id),
        long_name=f"Tabletop {game.title}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=game.max_players,
        min_num_players=game.min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=_parameters(game),
    )


class LegalIds:
    """The ids of legal actions, through caches: the codec's ``encode`` walks the action's fields, and
    the same few hundred actions come back move after move.

    Two caches: by each action's JSON (any action), and by the action *object* for the games that
    list shared prebuilt actions (``engine.core.ActionTable``; legal actions are never mutated): an
    object met a second time is the same action, found by ``id`` without serializing it.  Every
    object keyed by ``id`` is kept alive by the JSON cache (the first object of each key), so its
    ``id`` cannot be reused by another object while the entry exists."""

    __slots__ = ("by_object", "codec", "known")

    #: Bound on the caches (the actions of one game are finite, but never grow without a limit).
    LIMIT = 200_000

    def __init__(self, codec: ActionCodec) -> None:
        self.codec = codec
        self.known: dict[bytes, tuple[int, Any]] = {}  # JSON -> (id, the first object of that JSON)
        self.by_object: dict[int, int] = {}  # id(object) -> action id, for objects seen twice

    def of(self, actions: list[Any]) -> dict[int, Any]:
        """Id -> action, for every action of ``actions`` (the first of any two with one id)."""
        by_object = self.by_object.get
        out: dict[int, Any] = {}
        for action in actions:
            code = by_object(id(action))
            if code is None:
                code = self._slow(action)
            out.setdefault(code, action)
        return out

    def _slow(self, action: Any) -> int:
        key = orjson.dumps(action)
        found = self.known.get(key)
        if found is None:
            code = self.codec.encode(action)
            if len(self.known) < self.LIMIT:
                self.known[key] = (code, action)
            return code
        code, first = found
        if first is action:  # a shared object: from now on found by identity
            self.by_object[id(action)] = code
        return code


_IDS: dict[str, LegalIds] = {}


def legal_ids(game: Game) -> LegalIds:
    """The (shared) :class:`LegalIds` of ``game``."""
    found = _IDS.get(game.id)
    if found is None:
        found = _IDS[game.id] = LegalIds(codec(game))
    return found


class _Box:
    """The engine state and the seats' histories inside one OpenSpiel state.

    OpenSpiel clones a Python state by deep-copying its attributes and serializes it by pickling them;
    this box makes both use the engine's own ``clone`` and ``encode`` instead of copying the state
    object graph, and shares the immutable histories.
    """

    __slots__ = (
        "actions",
        "features",
        "game",
        "history",
        "ids",
        "legal",
        "mover",
        "size",
        "state",
        "tensors",
        "views",
    )

    def __init__(
        self,
        game: Game,
        state: Any,
        history: SeatHistory,
        features: FeatureSpec | None,
        legal: list[int] | None = None,
        views: dict[int | None, dict[str, Any]] | None = None,
        tensors: dict[tuple[int, bool | None], np.ndarray] | None = None,
    ) -> None:
        self.game = game
        self.state = state
        self.history = history
        self.features = features  # the game's ``observation=features``: the state's tensors hold these
        self.legal = legal  # cached legal ids of ``state``; None until asked
        self.actions: dict[int, Any] = {}  # legal id -> the engine's own action, with ``legal``
        self.mover: int | None = game.to_move(state)  # OpenSpiel asks several times a step
        # Kept here too (not only on the OpenSpiel game) because ``state.get_game()`` costs a C++ call.
        self.ids = legal_ids(game)
        self.size = tensor_size(game)
        # Views and view tensors of ``state`` already computed: OpenSpiel asks for the string and the
        # tensor, of the observation and of the information state, of every seat at every step.  A new
        # state gets new dicts (never cleared in place), so a clone may share them until it moves.
        self.views = {} if views is None else views
        self.tensors = {} if tensors is None else tensors

    def __deepcopy__(self, memo: dict[int, Any]) -> _Box:
        copied = _Box(
            self.game,
            self.game.clone(self.state),
            self.history,
            self.features,
            self.legal,
            self.views,
            self.tensors,
        )
        copied.actions = self.actions  # replaced, never changed in place, like ``legal``
        return copied

    def view(self, seat: int | None) -> dict[str, Any]:
        found = self.views.get(seat)
        if found is None:
            found = self.views[seat] = self.game.view(self.state, seat)
        return found

    def view_tensor(self, seat: int, private: bool, size: int) -> np.ndarray:
        """The hashed view tensor of ``seat`` (its own view, or the public one), cached; read-only."""
        key = (seat, private)
        found = self.tensors.get(key)
        if found is None:
            found = np.zeros(size, np.float32)
            view = self.view(seat if private else None)
            write_view_tensor(found, view, seat, self.mover == seat)
            self.tensors[key] = found
        return found

    def observed(self, seat: int) -> np.ndarray:
        """The view part of ``seat``'s own tensors in the game's form (``observation``), cached;
        read-only."""
        if self.features is None:
            return self.view_tensor(seat, True, self.size)
        key = (seat, None)  # beside the hashed tensors' (seat, private)
        found = self.tensors.get(key)
        if found is None:
            found = self.tensors[key] = self.features.encode_state(self.game, self.state, seat)
        return found

    def bag(self, seat: int, private: bool) -> np.ndarray:
        """The history bag of ``seat`` (or the public one): event counts per bucket; read-only."""
        history = self.ready()
        return history.seen(seat if private else history.players)[1]

    def string(self, seat: int, private: bool, recall: bool) -> str:
        """The observation string (the view), or with ``recall`` the information-state string (the
        view and the running digest of the history)."""
        text = canonical(self.view(seat if private else None)).decode()
        if not recall:
            return text
        history = self.ready()
        digest = history.seen(seat if private else history.players)[0]
        return f"{text}\nhistory:{digest.hex()}"

    def ready(self) -> SeatHistory:
        """The seats' histories, their initial views hashed (needs the state not to have moved yet)."""
        self.history = self.history.ready(self.game, self.state)
        return self.history

    def legal_ids(self) -> list[int]:
        """Sorted legal ids of ``state``, computed once per state; each id's engine action is kept for
        :meth:`apply` (so applying needs no decoding)."""
        if self.legal is None:
            self.actions = self.ids.of(self.game.legal_actions(self.state))
            self.legal = sorted(self.actions)
        return self.legal

    def apply(self, action: Any) -> None:
        """Apply an engine action; only its events are recorded (the seats' histories are folded from
        them when read, see :class:`SeatHistory`)."""
        history = self.history
        if history.step.prev is None:  # the first move: keep the initial state's views (see ready)
            history = self.ready()
        self.history = history.after(self.game.apply(self.state, action))
        self.mover = self.game.to_move(self.state)
        self.legal = None
        self.actions = {}
        self.views = {}
        self.tensors = {}

    def __reduce__(self) -> tuple[Any, ...]:
        """The engine state's own encoding (its random generator included) and every seat's history
        folded (bags as ``{bucket: count}``: a few dozen entries, not 512 floats)."""
        seen = [(d, {int(i): int(b[i]) for i in np.flatnonzero(b)}) for d, b in self.ready().everyone()]
        kind = OBSERVATIONS[0 if self.features is None else 1]
        return (_unbox, (self.game.id, self.game.encode(self.state), seen, kind))


def _unbox(
    game_id: str, data: bytes, seen: list[tuple[bytes, dict[int, int]]], kind: str = OBSERVATIONS[0]
) -> _Box:
    game = GAMES[game_id]
    histories = []
    for digest, counts in seen:
        bag = np.zeros(HISTORY_BUCKETS, np.float32)
        bag[list(counts)] = list(counts.values())
        histories.append((digest, bag))
    return _Box(game, game.decode(data), SeatHistory.restored(histories), _observation_form(kind, game))


class TabletopGame(pyspiel.Game):
    """One of our games, with its players, options and seed fixed by the OpenSpiel parameters."""

    def __init__(self, engine_game: Game, params: dict[str, Any] | None = None) -> None:
        defaults = _parameters(engine_game)
        merged = {**defaults, **(params or {})}
        self.engine = engine_game
        self.players = int(merged["players"])
        self.seed = int(merged["seed"])
        self.features = _observation_form(merged["observation"], engine_game)  # the state's tensors' form
        self.options = {k: merged[k] for k in engine_game.options.get("properties", {})}
        engine_game.setup(self.players, self.options, seed=0)  # refuse bad players/options now, not later
        self.codec = codec(engine_game)
        self._seeds = random.Random()  # fresh deals for seed=-1 (OS entropy)
        info = pyspiel.GameInfo(
            num_distinct_actions=self.codec.num_actions,
            max_chance_outcomes=0,
            num_players=self.players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=engine_game.max_decisions(self.players),
        )
        super().__init__(game_type(engine_game), info, merged)
        # What ``get_type`` answers: the registered type, but named by the full game string when a
        # parameter differs from its default (Shimmy, for one, reloads a game by its short name).
        self._type = game_type(engine_game, str(self)) if merged != defaults else super().get_type()

    def new_initial_state(self) -> TabletopState:
        """A fresh deal (or the fixed ``seed``'s deal).  The engine state is built on first use, so the
        states OpenSpiel creates only to copy another into (``clone``) cost nothing."""
        return TabletopState(self)

    def dealt(self, seed: int) -> TabletopState:
        """The initial state of the engine's deal ``seed``, whatever the game's own ``seed``: the
        server's seeds are 63-bit, past what an OpenSpiel int parameter holds (:mod:`research.records`
        replays server matches from them)."""
        state = TabletopState(self)
        state._seed = seed
        return state

    def make_py_observer(
        self, iig_obs_type: pyspiel.IIGObservationType | None = None, params: dict[str, Any] | None = None
    ) -> TabletopObserver:
        """Observer for OpenSpiel's observation API (``make_observation``, state tensors and strings)."""
        return TabletopObserver(
            self, iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params
        )

    def get_type(self) -> pyspiel.GameType:
        """The game's type, its ``short_name`` loadable back into this very game: the registered name
        with default parameters, else the game string with them (``tabletop_china(...,players=4,...)``),
        which ``pyspiel.load_game`` reads as the name and those parameters.  So tools that reload a game
        by its short name (Shimmy's OpenSpiel environment does, on every reset) keep the parameters.
        Only Python callers see this; OpenSpiel's C++ side keeps the registered type (so ``str(game)``
        is unchanged)."""
        return self._type

    def next_seed(self) -> int:
        return self.seed if self.seed >= 0 else self._seeds.getrandbits(63)

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle as the game's string (its name and parameters): OpenSpiel's default would ask the game
        for its random generator, which a Python sampled-stochastic game cannot give."""
        return (_loaded, (str(self),))


@lru_cache(maxsize=64)
def _loaded(game_string: str) -> pyspiel.Game:
    """The game of ``str(game)``, loaded once per process (states unpickled there share it, as the states
    of one process share their game)."""
    return pyspiel.load_game(game_string)


def _restored(game_string: str, data: str) -> pyspiel.State:
    """A state from ``state.serialize()`` (history, move number and the Python attributes: the deal's
    seed and the engine state with its random generator)."""
    return _loaded(game_string).deserialize_state(data)


class TabletopState(pyspiel.State):
    """An OpenSpiel state wrapping one engine state (see :class:`_Box`)."""

    def __init__(self, game: TabletopGame) -> None:
        super().__init__(game)
        # The game is not kept as an attribute: OpenSpiel deep-copies and pickles every attribute of a
        # Python state, and a sampled-stochastic game cannot be pickled.  ``get_game()`` finds it.
        self._seed = game.next_seed()
        self._b: _Box | None = None

    @property
    def _game(self) -> TabletopGame:
        return self.get_game()

    @property
    def box(self) -> _Box:
        if self._b is None:
            g = self._game
            state = g.engine.setup(g.players, g.options, seed=self._seed)
            self._b = _Box(g.engine, state, SeatHistory.start(g.players), g.features)
        return self._b

    @property
    def engine_state(self) -> Any:
        """The wrapped engine state (the full state: for tooling and tests, never for an agent)."""
        return self.box.state

    # -- the pyspiel.State API -------------------------------------------------------------------

    def current_player(self) -> int:
        seat = (self._b or self.box).mover
        return pyspiel.PlayerId.TERMINAL if seat is None else seat

    def _legal_actions(self, player: int) -> list[int]:
        return (self._b or self.box).legal_ids()

    def _apply_action(self, action: int) -> None:
        box = self._b or self.box
        found = box.actions.get(action)
        box.apply(box.ids.codec.decode(action) if found is None else found)

    def _action_to_string(self, player: int, action: int) -> str:
        return action_string(self._game.codec.decode(action))

    def is_terminal(self) -> bool:
        return (self._b or self.box).mover is None

    def is_chance_node(self) -> bool:
        """Never: chance is sampled inside ``apply`` (see the module docstring).  Answered in Python,
        since OpenSpiel's own answer is a C++ call, in every loop that steps a game."""
        return False

    def returns(self) -> list[float]:
        return rank_returns(self._game.engine, self.box.state, self._game.players)

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> TabletopState:
        """A state ``player_id`` cannot tell from this one: ``determinize`` for that seat, with the seat's
        own history kept and the others' replaced (they are not the seat's to know)."""
        rng = random.Random(int(probability_sampler() * (1 << 53)))
        box = self.box
        clone = TabletopState(self._game)
        clone._b = _Box(
            box.game,
            box.game.determinize(box.state, player_id, rng),
            box.ready().resampled_for(player_id),
            box.features,
        )
        return clone

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle (multiprocessing, Ray workers) through OpenSpiel's state serialization and the game's
        string; see the module docstring."""
        return (_restored, (str(self.get_game()), self.serialize()))

    def __deepcopy__(self, memo: dict[int, Any]) -> TabletopState:
        return self.clone()  # type: ignore[no-any-return]  # pyspiel is untyped

    def __copy__(self) -> TabletopState:
        """A state is mutable, so even a shallow copy is a clone (sharing the engine state would let one
        copy's moves change the other)."""
        return self.clone()  # type: ignore[no-any-return]

    # -- the same, straight from Python ----------------------------------------------------------
    # pyspiel's own ``legal_actions``/``observation_tensor``/... go through C++, which for a Python game
    # calls back into Python, copies the result twice and, for a tensor, builds a second observer on a
    # fresh initial state to learn the shape: several times the cost of the answer.  Python callers get
    # these overrides instead (the same values); C++ callers still get the protocol above.

    def _seat(self, player: int | None) -> int:
        box = self._b or self.box
        seat = box.mover if player is None else player
        if seat is None or not 0 <= seat < box.history.players:
            raise pyspiel.SpielError(f"no observation for player {player!r} (to move: {seat!r})")
        return seat

    def legal_actions(self, player: int | None = None) -> list[int]:
        """The legal ids, ascending (empty for a seat not to move, or at the end)."""
        box = self._b or self.box
        if box.mover is None or (player is not None and player != box.mover):
            return []
        return list(box.legal_ids())

    def observation_tensor(self, player: int | None = None) -> list[float]:
        seat = self._seat(player)
        return (self._b or self.box).observed(seat).tolist()  # type: ignore[no-any-return]

    def information_state_tensor(self, player: int | None = None) -> list[float]:
        seat = self._seat(player)
        box = self.box
        return box.observed(seat).tolist() + box.bag(seat, True).tolist()  # type: ignore[no-any-return]

    def observation_string(self, player: int | None = None) -> str:
        return self.box.string(self._seat(player), True, False)

    def information_state_string(self, player: int | None = None) -> str:
        return self.box.string(self._seat(player), True, True)

    def __str__(self) -> str:
        """The public view and a digest of the full state: equal strings mean equal states."""
        box = self.box
        public = canonical(box.view(None)).decode()
        return f"{public}\nstate:{hashlib.blake2b(box.game.encode(box.state), digest_size=12).hexdigest()}"


class TabletopObserver:
    """OpenSpiel's Python observer protocol (``tensor``, ``dict``, ``set_from``, ``string_from``).

    ``private_info`` SINGLE_PLAYER (the default) observes through the seat's view; NONE through the
    spectator's view (public information only).  ALL_PLAYERS would need the full state, which no seat
    ever sees, so it is refused.  ``perfect_recall`` adds the seat's history (the information state).
    ``params={"observation": "features"}`` (``make_observation(game, type, params)``) puts the documented
    feature vector of :mod:`research.features` in place of the hashed view tensor (``dict["view"]``);
    without it the observer takes the game's own ``observation`` parameter.
    """

    def __init__(self, game: TabletopGame, iig_obs_type: pyspiel.IIGObservationType, params: Any) -> None:
        params = dict(params or {})
        if set(params) - {"observation"}:
            raise ValueError(f"the one observation parameter is observation=hashed|features; got {params}")
        if "observation" in params:
            self.features = _observation_form(params["observation"], game.engine)
        else:
            self.features = game.features
        if iig_obs_type.private_info == pyspiel.PrivateInfoType.ALL_PLAYERS:
            raise ValueError("the games expose no all-players observation: no seat ever sees everything")
        self.game = game
        self.private = iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER
        self.recall = bool(iig_obs_type.perfect_recall)
        view_len = tensor_size(game.engine)
        size = info_tensor_size(game.engine) if self.recall else view_len
        if self.features is not None:  # the features replace the hashed view; the history stays
            size += self.features.size - view_len
            view_len = self.features.size
        self.tensor = np.zeros(size, np.float32)
        self._view = self.tensor[:view_len]
        self.dict = {"view": self._view}
        if self.recall:
            self._hist = self.tensor[view_len : view_len + HISTORY_BUCKETS]
            self.dict["history"] = self._hist

    def set_from(self, state: TabletopState, player: int) -> None:
        box = state.box
        if self.features is not None:
            if self.private:  # the seat's own features: written from the state (FeatureSpec.encode_state)
                self.features.encode_state(box.game, box.state, player, self._view)
            else:
                self.features.encode(box.view(None), player, self._view)
        else:
            self._view[:] = box.view_tensor(player, self.private, len(self._view))
        if self.recall:
            self._hist[:] = box.bag(player, self.private)

    def string_from(self, state: TabletopState, player: int) -> str:
        return state.box.string(player, self.private, self.recall)


def _register() -> None:
    """Register every game, each as its own subclass: OpenSpiel keeps the registered creator until the
    process ends, and a class (unlike a closure) outlives the interpreter's shutdown safely."""
    registered = set(pyspiel.registered_names())
    for engine_game in GAMES.values():
        if short_name(engine_game.id) in registered:
            continue

        def __init__(
            self: TabletopGame, params: dict[str, Any] | None = None, _g: Game = engine_game
        ) -> None:
            TabletopGame.__init__(self, _g, params)

        cls = type(f"Tabletop_{engine_game.id}", (TabletopGame,), {"__init__": __init__})
        _CLASSES[engine_game.id] = cls
        pyspiel.register_game(game_type(engine_game), cls)


_CLASSES: dict[str, type[TabletopGame]] = {}
_register()


#: OpenSpiel's own ``serialize_game_and_state``, for every other game.
_SERIALIZE_GAME_AND_STATE = pyspiel.serialize_game_and_state


def serialize_game_and_state(game: pyspiel.Game, state: pyspiel.State) -> str:
    """OpenSpiel's game-and-state text, for our games too (``pyspiel.deserialize_game_and_state`` reads
    it back).  OpenSpiel's C++ writer appends the game's random generator for a sampled-stochastic
    game, which a Python game cannot give ("GetRNGState unimplemented"); ours has none to give (every
    random draw lives in the state), so the text is exactly OpenSpiel's format without that line:
    the game string, then ``state.serialize()``.  Any other game goes to OpenSpiel's own writer."""
    if not isinstance(game, TabletopGame):
        return _SERIALIZE_GAME_AND_STATE(game, state)  # type: ignore[no-any-return]
    return (
        "# Automatically generated by OpenSpiel SerializeGameAndState\n[Meta]\nVersion: 1\n\n"
        f"[Game]\n{game}\n[State]\n{state.serialize()}\n"
    )


# ``pyspiel.serialize_game_and_state`` itself is the name researchers call (and the docs show): it is
# pointed at the function above, which hands every game but ours to OpenSpiel's own.
pyspiel.serialize_game_and_state = serialize_game_and_state


def load(game_id: str, **params: Any) -> TabletopGame:
    """``pyspiel.load_game`` for one of our games by its engine id, e.g. ``load("china", players=4)``."""
    return pyspiel.load_game(short_name(game_id), params)
