"""Property tests of the engine contract, shared by every game.

A game's test package subclasses :class:`ContractSuite`, names the game, its player counts and option
sets, and may extend :meth:`ContractSuite.check_view_secrets` with game-specific secrets.  Everything
here goes through the public contract only (engine/core.py), like the service and the bots do.

What is checked, along random legal playouts drawn by hypothesis:
- the game ends with a result holding the fields every game's result has (engine.core.RESULT_FIELDS:
  scores, a total ranking, the winners at its head, the tie-break) and the published result schema
  requires them;
- whenever a seat is to move, ``legal_actions`` is non-empty and every listed action is accepted and
  fits the JSON schema the game publishes for its type (``game.actions``; the API checks moves by it);
- mutated and foreign actions not in the list are refused with IllegalAction and change nothing;
  an action for the wrong seat is refused with rule ``turn``;
- ``encode``/``decode`` round-trips; ``clone`` is independent of the original;
- the cached legal list (engine.core.GameBase) behaves as documented: ``legal_actions`` returns a copy
  the caller may mutate, the cache always equals the list computed afresh for the same state (after
  ``apply``, on a clone, on a determinized world), and a clone's moves never change the original's;
- replaying the action log from the seed reproduces the identical encoding;
- ``determinize(state, seat)`` keeps everything ``seat`` can see (its view and, when it is to move, its
  legal actions) and depends on nothing else (same rng, different hidden truth -> same sample);
- ``sample_from_view(view, seat)``, given only the JSON of the seat's view, rebuilds a state with the
  same view for that seat, the same public (spectator) view as the true state and, when the seat is to
  move, the same legal actions (tests/engine/test_sample_from_view.py checks the rest);
- every event names a valid audience and survives JSON;
- who decides next and what is pending never depend on hidden information (no revealing skips).

Every view has ``players`` (one entry per seat) and ``to_move``: the suite counts seats with it.
"""

from __future__ import annotations

import json
import random
from typing import Any, ClassVar

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema_rs import Draft202012Validator  # the Rust one: a game checks thousands of actions

from engine.core import RESULT_FIELDS, RULE_TURN, IllegalAction
from engine.registry import get_game

#: Cap of a playout for a game that declares no bound of its own (the service's test double); the
#: registered games declare ``max_decisions(players)``, a proven bound, and their playouts must end
#: within it.
MAX_DECISIONS = 20_000


def canon(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))


def mutations(action: dict[str, Any], legal: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Actions near ``action`` that a sloppy client might send: wrong type, missing or extra field,
    out-of-range or wrongly typed values, values borrowed from other legal actions."""
    out: list[dict[str, Any]] = [
        {**action, "type": "no_such_action"},
        {**action, "unexpected": 1},
        "not an object",  # type: ignore[list-item]  # on purpose: apply must refuse a non-object
    ]
    for key, value in action.items():
        if key == "type":
            continue
        out.append({k: v for k, v in action.items() if k != key})
        if isinstance(value, bool):
            out.append({**action, key: not value})
            out.append({**action, key: 1})
        elif isinstance(value, int):
            out += [{**action, key: v} for v in (value + 1, value - 1, -1, 10**6)]
            out.append({**action, key: str(value)})
            out.append({**action, key: True})
            out.append({**action, key: float(value)})  # equal to the legal value, not of its type
        elif isinstance(value, str):
            out.append({**action, key: value + "_x"})
            out.append({**action, key: 0})
        for other in legal:
            if key in other and other[key] != value:
                out.append({**action, key: other[key]})
    legal_keys = {canon(a) for a in legal}
    return [m for m in out if not isinstance(m, dict) or canon(m) not in legal_keys]


class ContractSuite:
    """Subclass as ``TestContract`` with ``game_id``, ``player_counts`` and ``option_sets``."""

    game_id: ClassVar[str]
    player_counts: ClassVar[list[int]]
    option_sets: ClassVar[list[dict[str, Any]]] = [{}]
    #: Hypothesis examples per property; each example is one full game.
    examples: ClassVar[int] = 12
    #: Whether ``sample_from_view`` rebuilds states of this game (every registered game does; a test
    #: double whose view leaves out part of the public state cannot, and must say so).
    rebuilds_from_view: ClassVar[bool] = True

    # -- hooks --------------------------------------------------------------------------------------

    def check_view_secrets(self, game: Any, state: Any, seat: int | None, view: dict[str, Any]) -> None:
        """Game-specific leak checks for ``view`` (built for ``seat``); extend in the subclass."""

    def flow_may_reveal(self, game: Any, before: Any, action: dict[str, Any], events: list[Any]) -> bool:
        """Hook: True when the decisions that follow ``action`` may differ between the true state and a
        world resampled for an observer *because what decided them was shown to everybody* by the
        ``events`` of this very move (e.g. a payment auto-played with the whole hand, whose cards the
        payment reveals).  Override with the game's documented cases; by default there are none."""
        return False

    # -- helpers ------------------------------------------------------------------------------------

    @property
    def game(self) -> Any:
        return get_game(self.game_id)

    def playout(self, players: int, options: dict[str, Any], seed: int, pick_seed: int, on_step: Any = None):
        """Play random legal actions to the end; ``on_step(state, legal, step)`` runs before each."""
        game = self.game
        state = game.setup(players, options, seed=seed)
        rng = random.Random(pick_seed)
        log: list[dict[str, Any]] = []
        try:
            limit = game.max_decisions(players)
        except NotImplementedError:
            limit = MAX_DECISIONS
        for step in range(limit + 1):
            if game.to_move(state) is None:
                return state, log
            if step == limit:
                break
            legal = game.legal_actions(state)
            assert legal, f"seat {game.to_move(state)} is to move but has no legal action"
            if on_step is not None:
                on_step(state, legal, step)
            action = rng.choice(legal)
            game.apply(state, action)
            log.append(action)
        raise AssertionError(f"no end after {limit} decisions (the game's bound)")

    def check_along_playouts(self, on_step: Any, pick_offset: int, examples: int | None = None) -> None:
        """Run ``on_step`` before every decision of hypothesis-drawn random playouts (player count,
        options, seed); ``pick_offset`` keeps each property's move picks apart from the others';
        ``examples`` (default ``self.examples``) is the number of playouts."""

        @self._settings(examples)
        @given(st.data())
        def run(data: st.DataObject) -> None:
            players, options, seed = self._draw_game(data)
            self.playout(players, options, seed, seed + pick_offset, on_step)

        run()

    def _draw_game(self, data: st.DataObject) -> tuple[int, dict[str, Any], int]:
        """A player count, an option set and a seed, drawn by hypothesis."""
        players = data.draw(st.sampled_from(self.player_counts), label="players")
        options = data.draw(st.sampled_from(self.option_sets), label="options")
        seed = data.draw(st.integers(0, 2**32), label="seed")
        return players, options, seed

    def _settings(self, examples: int | None = None):
        return settings(
            max_examples=self.examples if examples is None else examples,
            deadline=None,
            derandomize=True,
            suppress_health_check=[HealthCheck.too_slow],
        )

    def check_result(self, game: Any, result: dict[str, Any], players: int) -> None:
        """The fields every game's result has (engine.core.RESULT_FIELDS), and the schema says so."""
        assert set(RESULT_FIELDS) <= set(result), f"result lacks {set(RESULT_FIELDS) - set(result)}"
        assert len(result["scores"]) == players
        assert sorted(result["ranking"]) == list(range(players))
        winners = result["winners"]
        assert winners and winners == result["ranking"][: len(winners)], "the winners head the ranking"
        assert result["tiebreak"] is None or isinstance(result["tiebreak"], str)
        schema = getattr(game, "result_schema", None)
        if schema is not None:  # the fixture game publishes no output schemas
            assert set(RESULT_FIELDS) <= set(schema["required"]), "the result schema must require them"
        json.dumps(result)

    def fresh_legal(self, game: Any, state: Any) -> str:
        """The legal list of ``state`` computed afresh (a decoded copy has no cache), canonical."""
        return canon(game.legal_actions(game.decode(game.encode(state))))

    # -- properties ---------------------------------------------------------------------------------

    def test_random_play_ends_with_result(self) -> None:
        @self._settings()
        @given(st.data())
        def run(data: st.DataObject) -> None:
            players, options, seed = self._draw_game(data)
            state, log = self.playout(players, options, seed, seed ^ 0x5EED)
            game = self.game
            result = game.result(state)
            assert result is not None
            self.check_result(game, result, players)
            # Replay: the log from the seed reproduces the identical encoding.
            replay = game.setup(players, options, seed=seed)
            for action in log:
                game.apply(replay, action)
            assert game.encode(replay) == game.encode(state)

        run()

    def test_legal_actions_are_exactly_what_apply_accepts(self) -> None:
        game = self.game
        shapes = {kind: Draft202012Validator(schema) for kind, schema in game.actions.items()}

        def on_step(state: Any, legal: list[dict[str, Any]], step: int) -> None:
            before = game.encode(state)
            seat = game.to_move(state)
            for action in legal:
                problems = [e.message for e in shapes[action["type"]].iter_errors(action)]
                assert not problems, f"legal {action!r} breaks its published schema: {problems}"
                child = game.clone(state)
                events = game.apply(child, json.loads(json.dumps(action)), seat=seat)
                assert isinstance(events, list)
                for ev in events:
                    assert (
                        ev["visible_to"] == "all"
                        or ev["visible_to"] == "others"
                        or all(isinstance(s, int) for s in ev["visible_to"])
                    ), ev
                    json.dumps(ev)
            for bad in mutations(legal[step % len(legal)], legal):
                child = game.clone(state)
                try:
                    game.apply(child, bad)
                except IllegalAction as exc:
                    assert exc.rule and exc.message
                else:
                    raise AssertionError(f"apply accepted {bad!r}, which legal_actions does not list")
                assert game.encode(child) == before, f"refused {bad!r} changed the state"
            other = (seat + 1) % len(game.view(state, None)["players"]) if seat is not None else 0
            if other != seat:
                child = game.clone(state)
                try:
                    game.apply(child, legal[0], seat=other)
                except IllegalAction as exc:
                    assert exc.rule == RULE_TURN
                else:
                    raise AssertionError("apply accepted an action from a seat that is not to move")
                assert game.encode(child) == before
            assert game.encode(state) == before, "applying to a clone changed the original"

        self.check_along_playouts(on_step, pick_offset=1)

    def test_encoding_views_and_determinize(self) -> None:
        game = self.game

        def on_step(state: Any, legal: list[dict[str, Any]], step: int) -> None:
            data = game.encode(state)
            assert isinstance(data, bytes)
            assert game.encode(game.decode(data)) == data
            if step % 3:
                return
            players = len(game.view(state, None)["players"])
            mover = game.to_move(state)
            rng = random.Random(step)
            for seat in [None, *range(players)]:
                view = game.view(state, seat)
                text = json.dumps(view)
                self.check_view_secrets(game, state, seat, view)
                if seat is None:
                    continue
                sample = game.determinize(state, seat, random.Random(step))
                assert game.view(sample, seat) == view, f"determinize changed what seat {seat} sees"
                # determinize is a function of the seat's information set and the rng alone: starting
                # from a state whose hidden parts were already resampled gives the identical result.
                # (Sort pools of unknown cards before shuffling them; never iterate the true hidden
                # order.) The bots rely on this: their choice must not depend on hidden information.
                other = game.determinize(state, seat, rng)
                again = game.determinize(other, seat, random.Random(step))
                assert game.encode(again) == game.encode(sample), (
                    f"determinize for seat {seat} depends on hidden information of the true state"
                )
                if seat == mover:
                    assert canon(game.legal_actions(sample)) == canon(legal)
                assert json.loads(text) == view
            assert game.encode(state) == data, "view/determinize changed the state"

        self.check_along_playouts(on_step, pick_offset=2)

    def test_sample_from_view_keeps_what_the_seat_sees(self) -> None:
        """A state rebuilt from the JSON of a seat's view (all an HTTP client has) shows that seat the
        same view, everybody the same public view as the true state, and offers the same legal actions
        when the seat is to move (compared as sets: a hand's order is not part of any view)."""
        game = self.game
        if not self.rebuilds_from_view:
            state = game.setup(self.player_counts[0], self.option_sets[0], seed=0)
            with pytest.raises(NotImplementedError):
                game.sample_from_view(game.view(state, 0), 0, random.Random(0))
            return

        def on_step(state: Any, legal: list[dict[str, Any]], step: int) -> None:
            if step % 5:
                return
            mover = game.to_move(state)
            public = game.view(state, None)
            for seat in range(len(public["players"])):
                view = json.loads(json.dumps(game.view(state, seat)))
                sample = game.sample_from_view(view, seat, random.Random(step))
                assert game.view(sample, seat) == view, f"the sample changed what seat {seat} sees"
                assert game.view(sample, None) == public, f"the sample for seat {seat} changed a public fact"
                if seat == mover:
                    assert sorted(map(canon, game.legal_actions(sample))) == sorted(map(canon, legal))

        # a third of the playouts: tests/engine/test_sample_from_view.py checks more states per game
        self.check_along_playouts(on_step, pick_offset=5, examples=max(2, self.examples // 3))

    def test_flow_does_not_depend_on_hidden_information(self) -> None:
        """Who decides next and what is pending are public, so they must follow from public facts:
        after the same action, the true state and any world resampled for an observer agree on them.
        This catches an engine that skips a decision because a hidden hand made it forced (the skip
        itself would tell every other seat what the hand holds)."""
        game = self.game

        def key(state: Any, seat: int) -> tuple[Any, Any]:
            return game.to_move(state), game.view(state, seat).get("pending")

        def on_step(state: Any, legal: list[dict[str, Any]], step: int) -> None:
            if step % 3:
                return
            mover = game.to_move(state)
            players = len(game.view(state, None)["players"])
            for observer in range(players):
                if observer == mover:
                    continue
                world = game.determinize(state, observer, random.Random(step))
                possible = {canon(a) for a in game.legal_actions(world)}
                for action in legal[:: max(1, len(legal) // 4)]:
                    if canon(action) not in possible:
                        continue
                    true_next, world_next = game.clone(state), game.clone(world)
                    events = game.apply(true_next, action)
                    world_events = game.apply(world_next, action)
                    if key(true_next, observer) != key(world_next, observer):
                        assert self.flow_may_reveal(game, state, action, events) or self.flow_may_reveal(
                            game, world, action, world_events
                        ), (
                            f"after {action}, what seat {observer} sees pending depends on hidden "
                            f"information: {key(true_next, observer)} vs {key(world_next, observer)}"
                        )

        self.check_along_playouts(on_step, pick_offset=3)

    def test_cached_legal_list_is_a_copy_and_always_current(self) -> None:
        """The documented semantics of the legal-list cache (engine.core.GameBase): ``legal_actions``
        returns a list the caller owns; the cached list always equals the one computed afresh, after
        ``apply`` and forced decisions, on a clone and on a determinized world; a clone shares nothing
        the original could see change."""
        game = self.game

        def on_step(state: Any, legal: list[dict[str, Any]], step: int) -> None:
            assert canon(legal) == self.fresh_legal(game, state), "the cached list is stale"
            mine = game.legal_actions(state)
            assert mine is not game.legal_actions(state), "each call returns a new list"
            mine.reverse()
            mine.append({"type": "no_such_action"})
            assert canon(game.legal_actions(state)) == canon(legal), "a caller's list changed the cache"
            child = game.clone(state)
            assert canon(game.legal_actions(child)) == canon(legal)
            game.apply(child, legal[step % len(legal)])
            if game.to_move(child) is not None:
                assert canon(game.legal_actions(child)) == self.fresh_legal(game, child)
            assert canon(game.legal_actions(state)) == canon(legal), "a clone's move changed the original"
            if step % 3 == 0:
                players = len(game.view(state, None)["players"])
                for seat in range(players):
                    world = game.determinize(state, seat, random.Random(step))
                    assert canon(game.legal_actions(world)) == self.fresh_legal(game, world)

        self.check_along_playouts(on_step, pick_offset=4)
