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
