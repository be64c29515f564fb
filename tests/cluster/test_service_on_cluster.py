"""Service tests run unchanged against a Redis Cluster (the fixtures of tests/cluster/conftest.py
replace the single server): concurrency and idempotency of moves, expiry, the listing across shards,
event pages, long-polls and streams over the cluster's pub/sub, and the match lifecycle (joins racing
on one slot, the private index, rematches creating a second match)."""

from __future__ import annotations

from tests.service.conftest import table  # noqa: F401  (fixture)
from tests.service.test_actions import (  # noqa: F401
    test_a_finished_match_expires_after_the_retention_and_an_active_one_never,
)
from tests.service.test_concurrency import (  # noqa: F401
    test_twenty_retries_with_one_idempotency_key_apply_once_and_agree,
    test_twenty_threads_same_seat_and_version_exactly_one_succeeds,
)
from tests.service.test_events import (  # noqa: F401
    test_a_stream_resumed_after_the_end_holds_only_the_snapshot,
    test_after_is_a_cursor_that_also_skips_hidden_events,
    test_log_during_play_is_what_the_caller_saw_and_complete_at_the_end,
    test_long_poll_returns_when_a_visible_event_arrives,
    test_ndjson_stream_starts_with_a_snapshot_and_ends_after_match_over,
    test_private_events_reach_only_their_seat,
    test_sse_stream_delivers_events_with_ids,
)
from tests.service.test_lifecycle import (  # noqa: F401
    test_creator_cancels_a_waiting_match_and_nobody_else_can,
    test_open_seats_wait_until_every_seat_is_taken_then_the_match_starts,
    test_private_match_is_unlisted_and_each_invite_joins_its_seat_once,
    test_rematch_rotates_the_seats_and_starts_when_every_player_has_asked,
    test_resign_mid_match_a_bot_takes_the_seat_and_the_result_says_who_resigned,
    test_two_clients_racing_for_the_last_seat_one_wins_the_other_gets_409,
)
from tests.service.test_live import (  # noqa: F401
    test_waiters_subscribing_while_moves_commit_see_every_event_once_in_order,
)
from tests.service.test_matches import (  # noqa: F401
    test_create_returns_201_the_spectator_view_and_each_human_token_once,
    test_listing_filters_by_game_and_status_and_pages_with_a_cursor,
    test_listing_skips_expired_matches,
)


def test_rate_limits_count_on_the_cluster(redis_client, cluster, queue_url):
    from service.http.app import create_app
    from tests.cluster.conftest import cluster_config
    from tests.service.conftest import TEST_GAMES

    app = create_app(cluster_config(cluster, queue_url, rate_limit_create="2/minute"), games=TEST_GAMES)
    client = app.test_client()
    body = {"game": "high_card", "seats": [{"name": "a"}, {"name": "b"}]}
    assert [client.post("/v1/matches", json=body).status_code for _ in range(3)] == [201, 201, 429]
    assert any(b"LIMITS" in key or b"limits" in key.lower() for key in redis_client.scan_iter(count=1000))


def test_clocks_time_out_and_the_sweep_restores_deadlines_on_the_cluster(redis_client, cluster, queue_url):
    from service.storage.matches import connect_store
    from service.wiring import build
    from tests.cluster.conftest import cluster_config
    from tests.service.conftest import TEST_GAMES
    from workers import jobs

    config = cluster_config(cluster, queue_url)
    start = 1_000_000.0
    matches = build(config, store=connect_store(config), games=TEST_GAMES, clock=lambda: start).matches
    seats = [{"name": "a", "kind": "human"}, {"name": "b", "kind": "human"}]
    control = {"per_move_seconds": 5, "on_timeout": "random"}
    doc = matches.create(
        {"game": "high_card", "seats": seats, "options": {}, "seed": 1, "time_control": control}
    )
    matches.store.clocks.set_deadline(doc["id"], None)  # as if lost between the commit and the index write
    jobs.sweep_matches(matches)
    assert matches.store.clocks.claim_due(start + 6, 10, 30) == [doc["id"]]
    assert jobs.time_out(matches, doc["id"], at=start + 6) == jobs.MOVED
    assert matches.meta(doc["id"]).clock["timeouts"][doc["to_move"]] == 1
