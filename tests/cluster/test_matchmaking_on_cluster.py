"""Seeks and challenges on a Redis Cluster (issue 27 point 6): a seek pool's keys share one slot per app,
game and player count (``{s:<app>:<game>:<n>}``), a player's claims sit in the player's slot and a
challenge in its own, so every pairing, claim and answer is one script on one slot.  The keys are
checked slot by slot; then the service tests of pairing, bots, expiry, the sweep and challenges run
unchanged against the cluster (imported below: pytest runs them here with this module's fixtures)."""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask

from devtools.private_cluster import PrivateCluster
from service.http.app import create_app
from service.storage.accounts import player_slot_key
from service.storage.challenges import challenge_key
from service.storage.seeks import Pool
from tests.cluster.conftest import cluster_config
from tests.service.conftest import TEST_GAMES
from tests.service.test_accounts import ADMIN
from tests.service.test_challenges import (  # noqa: F401  (run here, on the cluster)
    arena,
    test_a_decline_racing_the_last_accept_leaves_one_outcome,
    test_an_unanswered_challenge_expires_and_everyone_is_told,
    test_the_last_accept_starts_the_match_and_everyone_is_told,
    test_the_sweep_settles_what_a_dead_process_left,
    test_two_last_accepts_at_once_make_one_match,
)
from tests.service.test_seeks import (  # noqa: F401
    GAME,
    Lobby,
    lobby,
    test_a_fill_takes_the_people_ready_for_bots_and_bots_take_the_rest,
    test_a_group_forms_when_the_last_of_its_players_seeks,
    test_a_person_has_one_open_seek_at_a_time,
    test_an_unpaired_seek_expires_and_its_player_is_told,
    test_bot_players_seek_several_at_once_up_to_their_cap_and_never_meet_themselves,
    test_bot_players_with_room_fill_before_built_in_bots,
    test_closed_seeks_are_forgotten_a_day_later,
    test_listing_shows_the_open_seeks_of_a_game_oldest_first_in_pages,
    test_rating_ranges_compare_ratings_both_ways,
    test_the_sweep_finishes_a_pairing_a_dead_process_left,
    test_two_compatible_seeks_make_one_private_match_of_their_players,
)


@pytest.fixture
def app(redis_client: Any, cluster: PrivateCluster, queue_url: str) -> Flask:
    config = cluster_config(cluster, queue_url, admin_token=ADMIN, bot_max_matches=2)
    return create_app(config, games=TEST_GAMES)


def test_a_pools_keys_share_one_slot_and_a_players_claims_its_slot(lobby: Lobby, redis_client: Any) -> None:  # noqa: F811
    ann = lobby.posted("ann", players=3, bots={"allow": True, "after_seconds": 30})
    lobby.posted("bob", players=3)
    pool = Pool(lobby.app["id"], GAME, 3)
    slots = {redis_client.keyslot(key) for key in pool.all_keys()}
    assert len(slots) == 1
    written = [key for key in pool.all_keys() if redis_client.exists(key)]
    assert len(written) >= 6  # seeks, status, compat, open, expiry, botwait at least
    player = f"{lobby.app['id']}:ann"
    assert redis_client.keyslot(player_slot_key(player, "seeks")) == redis_client.keyslot(
        f"tt:{{p:{player}}}:feed"
    )
    assert redis_client.hkeys(player_slot_key(player, "seeks")) == [ann["id"].encode()]
    challenge = lobby.client.post(
        "/v1/challenges", json={"game": GAME, "players": ["bob"]}, headers=lobby.as_("cid")
    ).json
    assert redis_client.exists(challenge_key(lobby.app["id"], challenge["id"]))
