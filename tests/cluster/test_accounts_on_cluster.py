"""Apps, players, tokens, my matches and the players' feeds on a Redis Cluster (issue 25 point 9): every
script touches one slot (a player's keys share ``{p:<app>:<player>}``, an app's ``{a:<app>}``, a match's
``{m:<id>}``), so all of it works on the cluster with no cross-slot script: through HTTP with real app keys
and player tokens, the committer's drain of the outbox into the feeds, and the sweep's drain on its own
(as after a committer that died between its commit and the feed write)."""

from __future__ import annotations

from typing import Any

from flask.testing import FlaskClient

from service.domain.feeds import feed
from tests.service.conftest import bearer
from tests.service.test_accounts import ADMIN, Backend, play_one


def _feed(client: FlaskClient, key: str) -> list[dict[str, Any]]:
    store = client.application.extensions["tabletop"].accounts.store
    return [e.entry for e in store.feed_after(key, "0-0")]


def test_players_play_through_their_tokens_and_their_feeds_fill_on_the_cluster(
    redis_client: Any, cluster: Any, queue_url: str
) -> None:
    from service.http.app import create_app
    from tests.cluster.conftest import cluster_config
    from tests.service.conftest import TEST_GAMES

    c = create_app(cluster_config(cluster, queue_url, admin_token=ADMIN), games=TEST_GAMES).test_client()
    backend = Backend(c)  # an app (admin API), two players, a token each
    app_id = backend.app["id"]
    assert [a["id"] for a in c.get("/v1/admin/apps", headers=bearer(ADMIN)).json["apps"]] == [app_id]
    match = backend.match(seats=[{"player": "ann"}, {"kind": "open", "player": "bob"}])
    mid = match["id"]
    assert c.post(f"/v1/matches/{mid}/join", json={}, headers=backend.as_("bob")).status_code == 200
    for pid in ("ann", "bob"):
        mine = c.get("/v1/me/matches", headers=backend.as_(pid)).json["matches"]
        assert [m["id"] for m in mine] == [mid] and mine[0]["status"] == "active"
    while (doc := c.get(f"/v1/matches/{mid}", headers=backend.as_("ann")).json)["status"] == "active":
        assert play_one(c, mid, backend.as_("ann" if doc["to_move"] == 0 else "bob")).status_code == 200
    for pid in ("ann", "bob"):
        entries = _feed(c, f"{app_id}:{pid}")
        assert entries[0]["type"] == feed.INVITED and entries[-1]["type"] == feed.MATCH_OVER
        assert entries[-1]["result"] == doc["result"]
        assert any(e["type"] == feed.YOUR_TURN for e in entries)
        page = c.get("/v1/me/events", headers=backend.as_(pid)).json["events"]
        assert [e["type"] for e in page] == [e["type"] for e in entries]
        done = c.get("/v1/me/matches?status=finished", headers=backend.as_(pid)).json["matches"]
        assert [m["id"] for m in done] == [mid]
    assert redis_client.llen(f"tt:{{m:{mid}}}:outbox") == 0  # drained by the committer


def test_the_sweep_alone_drains_an_outbox_into_the_feeds_on_the_cluster(
    redis_client: Any, cluster: Any, queue_url: str
) -> None:
    """A committer that dies after its commit leaves the outbox to the sweep: ``AccountStore.drain``
    on its own moves it into each player's feed, once however often it runs."""
    from service.http.app import create_app
    from tests.cluster.conftest import cluster_config
    from tests.service.conftest import TEST_GAMES

    c = create_app(cluster_config(cluster, queue_url, admin_token=ADMIN), games=TEST_GAMES).test_client()
    backend = Backend(c)
    svc = c.application.extensions["tabletop"]
    store = svc.accounts.store
    outbox = svc.outbox
    drain = outbox.drain
    outbox.drain = lambda match_id: 0  # type: ignore[method-assign]  # the committer dies before its drain
    try:
        mid = backend.match()["id"]
    finally:
        outbox.drain = drain  # type: ignore[method-assign]
    keys = [f"{backend.app['id']}:{pid}" for pid in ("ann", "bob")]
    assert store.outbox_length(mid) == 1 and all(_feed(c, k) == [] for k in keys)
    assert [m for m, _ in store.pending(float("inf"), 10)] == [mid]
    delivered = outbox.drain(mid)
    assert delivered == len(_feed(c, keys[0])) + len(_feed(c, keys[1])) and delivered >= 4
    assert outbox.drain(mid) == 0 and store.outbox_length(mid) == 0  # once only
    for key in keys:
        assert [e["type"] for e in _feed(c, key)][:2] == [feed.INVITED, feed.MATCH_STARTED]
    mover = "ann" if c.get(f"/v1/matches/{mid}", headers=backend.as_("ann")).json["to_move"] == 0 else "bob"
    assert _feed(c, f"{backend.app['id']}:{mover}")[-1]["type"] == feed.YOUR_TURN
    assert [m["id"] for m in c.get("/v1/me/matches", headers=backend.as_("bob")).json["matches"]] == [mid]
