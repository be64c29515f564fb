"""The state machine of a match (waiting -> active -> finished | aborted, and waiting -> aborted) under
any order of joins, leaves, cancels, moves, bot turns and timeouts, checked with hypothesis against a
real Redis.  Invariants after every step: only those transitions happen, the version grows with every
commit, a match waits exactly while it has open seats and each of them can be taken by someone (no dead
end), every seat a player holds (human, or away: played by a bot after timeouts) keeps its token, only
resigned seats are given up, and the clock index holds a deadline exactly while a human of a clocked
match decides."""

from __future__ import annotations

from typing import Any

import hypothesis.strategies as st
import redis
from hypothesis import HealthCheck, settings
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from service import auth
from service.domain.errors import MatchError
from service.domain.identity import SEAT, Caller
from service.domain.matches import seating
from service.http.errors import from_refusal
from service.storage.matches import ABORTED, ACTIVE, FINISHED, WAITING, Store
from service.wiring import build
from tests.service.conftest import TEST_GAMES, make_config
from workers import jobs

ALLOWED = {
    WAITING: {WAITING, ACTIVE, ABORTED},
    ACTIVE: {ACTIVE, FINISHED, ABORTED},
    FINISHED: {FINISHED},
    ABORTED: {ABORTED},
}


class MatchLife(RuleBasedStateMachine):
    redis_url = ""

    @initialize(
        seats=st.lists(st.sampled_from(["human", "open", "bot"]), min_size=2, max_size=4),
        clocked=st.booleans(),
        then=st.sampled_from(["bot", "abort"]),
        visibility=st.sampled_from(["public", "private"]),
    )
    def create(self, seats: list[str], clocked: bool, then: str, visibility: str) -> None:
        client = redis.Redis.from_url(self.redis_url)
        client.flushall()
        self.t = 1_000_000.0
        self.matches = build(
            make_config(self.redis_url), store=Store(client), games=TEST_GAMES, clock=lambda: self.t
        ).matches
        body: dict[str, Any] = {
            "game": "high_card",
            "options": {"rounds": 2},
            "seed": 11,
            "on_leave": {"then": then, "level": "random"},
            "visibility": visibility,
            "seats": [
                {"kind": k, "name": f"s{i}"} if k != "open" else {"kind": "open"} for i, k in enumerate(seats)
            ],
        }
        for seat in body["seats"]:
            if seat["kind"] == "bot":
                seat["level"] = "random"
        if clocked:
            body["time_control"] = {"per_move_seconds": 30, "on_timeout": "random", "max_timeouts": 2}
        doc = self.matches.create(body)
        self.id = doc["id"]
        self.creator = doc["creator_token"]
        self.tokens = {t["seat"]: t["token"] for t in doc["tokens"]}
        self.invites = {i["seat"]: i["code"] for i in doc["invites"]}
        self.status, self.version = doc["status"], doc["version"]

    def meta(self) -> Any:
        return self.matches.meta(self.id)

    def _bearer(self, seat: int) -> Caller:
        return Caller(SEAT, token=self.tokens[seat])

    @rule(choice=st.one_of(st.just("any"), st.integers(0, 3)), code_of=st.integers(0, 3))
    def join(self, choice: int | str, code_of: int) -> None:
        """Join a seat; in a private match with the invite code of seat ``code_of`` (if it has one)."""
        try:
            joined = self.matches.join(self.id, choice, "joiner", self.invites.get(code_of), Caller())
        except MatchError as refusal:
            exc = from_refusal(refusal)  # the HTTP answer the refusal becomes
            assert exc.status in (403, 409, 422), exc.message
            return
        self.tokens[joined["seat"]] = joined["token"]

    @rule(seat=st.integers(0, 3))
    def resign(self, seat: int) -> None:
        if seat not in self.tokens:
            return
        try:
            self.matches.resign(self.id, self._bearer(seat))
        except MatchError as refusal:
            exc = from_refusal(refusal)  # the HTTP answer the refusal becomes
            assert exc.status in (401, 409), exc.message

    @rule()
    def cancel(self) -> None:
        try:
            self.matches.cancel(self.id, Caller(SEAT, token=self.creator))
        except MatchError as refusal:
            exc = from_refusal(refusal)  # the HTTP answer the refusal becomes
            assert exc.status == 409 and self.meta().status != WAITING

    @rule(seat=st.integers(0, 3))
    def player_acts(self, seat: int) -> None:
        """The player of a seat comes back (``POST .../return``): an away seat is theirs again."""
        if seat not in self.tokens:
            return
        was_away = seating.is_away(self.meta().seats[seat]) and self.meta().status == ACTIVE
        try:
            doc = self.matches.return_to_seat(self.id, self._bearer(seat))
        except MatchError as refusal:
            exc = from_refusal(refusal)  # the HTTP answer the refusal becomes
            assert not was_away, exc.message  # coming back always brings an away player back
            assert (exc.status, exc.code) in {
                (401, "unauthorized"),
                (403, "seat_left"),
                (409, "not_away"),
                (409, "match_over"),
            }, exc.message
            return
        assert was_away and doc["your_seat"] == seat and doc["seats"][seat]["kind"] == seating.HUMAN

    @rule(seat=st.integers(0, 3))
    def player_reads(self, seat: int) -> None:
        """The player of a seat asks for its legal actions: a read, which changes nothing (an away seat
        stays away)."""
        if seat not in self.tokens:
            return
        version = self.meta().version
        try:
            self.matches.legal_actions(self.id, self._bearer(seat))
        except MatchError as refusal:
            exc = from_refusal(refusal)  # the HTTP answer the refusal becomes
            assert exc.status in (401, 403, 409), exc.message
        assert self.meta().version == version

    @rule()
    def human_moves(self) -> None:
        meta = self.meta()
        if meta.status != ACTIVE or meta.seats[meta.to_move]["kind"] != "human":
            return
        _, state = self.matches.meta_and_state(self.id)
        action = self.matches.games["high_card"].legal_actions(state)[0]
        self.matches.seat_move(meta, state, meta.to_move, action)

    @rule()
    def bots_move(self) -> None:
        meta = self.meta()
        if meta.status == ACTIVE and meta.seats[meta.to_move]["kind"] == "bot":
            jobs.take_turns(self.matches, self.id, meta.version, slice_seconds=0)

    @rule(seconds=st.sampled_from([5, 31]))
    def time_passes(self, seconds: int) -> None:
        self.t += seconds
        for due in self.matches.store.clocks.claim_due(self.t, 10, 30):
            jobs.time_out(self.matches, due, at=self.t)

    @invariant()
    def transitions_and_versions(self) -> None:
        meta = self.meta()
        assert meta.status in ALLOWED[self.status], (self.status, meta.status)
        assert meta.version >= self.version
        self.status, self.version = meta.status, meta.version

    @invariant()
    def waiting_exactly_while_seats_are_open(self) -> None:
        meta = self.meta()
        open_seats = [i for i, s in enumerate(meta.seats) if s["kind"] == "open"]
        if meta.status == WAITING:
            assert open_seats
        else:
            assert not open_seats or meta.status == ABORTED

    @invariant()
    def players_seats_hold_tokens(self) -> None:
        meta = self.meta()
        for i, seat in enumerate(meta.seats):
            if seating.held_by_player(seat):
                assert meta.token_hashes[i] == auth.hash_token(self.tokens[i])
                assert i not in meta.life["resigned"]
            if seat["kind"] == "open":
                assert meta.token_hashes[i] == ""

    @invariant()
    def every_open_seat_of_a_waiting_match_can_be_taken(self) -> None:
        meta = self.meta()
        if meta.status == WAITING:
            assert all(seating.reopens(meta.life, i) for i in seating.open_seats(meta.seats))

    @invariant()
    def a_deadline_exactly_while_a_human_decides_on_the_clock(self) -> None:
        meta = self.meta()
        human_turn = (
            meta.status == ACTIVE and meta.to_move is not None and meta.seats[meta.to_move]["kind"] == "human"
        )
        timed = meta.clock is not None and human_turn
        assert (meta.clock is not None and meta.clock["deadline"] is not None) == timed
        indexed = self.matches.store.redis.zscore("tt:deadlines", self.id)
        assert (indexed is not None) == timed
        if timed:
            assert indexed >= meta.clock["deadline"]  # exact, or leased further by a claim


def test_match_life_state_machine(redis_url: str) -> None:
    MatchLife.redis_url = redis_url
    machine = MatchLife.TestCase
    machine.settings = settings(
        max_examples=150, stateful_step_count=25, deadline=None, suppress_health_check=list(HealthCheck)
    )
    machine().runTest()
