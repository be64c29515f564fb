"""The Python client's webhook calls (issue 26, points 1 and 4): every operation of
``/v1/apps/me/webhooks`` through :class:`tabletop_client.AppClient`, against a real ``tabletop serve``
over a real Redis, as an integrator's server would make them.  (Delivery to a receiver is the lane's:
tests/workers/test_webhook_delivery.py and the docs' walkthrough, tests/clients/test_readme_webhooks.py.)"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tabletop_client import ApiError, AppClient, Client
from tests.reliability.processes import ApiServer

pytestmark = pytest.mark.timeout(300)

ADMIN = "admin-token-of-the-webhook-client-tests"
HOOK = "http://127.0.0.1:9/hook"


@pytest.fixture(scope="module")
def api(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    log: Path = tmp_path_factory.mktemp("webhook-client") / "api.log"
    # A receiver on this machine, as in development mode (no lane runs: nothing is sent).
    settings = {"webhook_allow_http": True, "webhook_allow_private": True, "admin_token": ADMIN}
    with ApiServer(redis_url, log, workers=1, **settings) as server:
        yield server.base


@pytest.fixture
def app(api: str) -> Iterator[AppClient]:
    admin = Client(api)
    client = AppClient(api, admin.create_app(ADMIN, "pushes")["key"])
    admin.close()
    yield client
    client.close()


def test_an_app_manages_its_endpoints_and_reads_their_log(app: AppClient) -> None:
    made = app.create_webhook(HOOK, ["your_turn"], "phone pushes")
    secret = made.pop("secret")
    assert secret.startswith("whsec_") and made["types"] == ["your_turn"] and made["status"] == "enabled"
    assert app.webhooks() == [made] and app.webhook(made["id"]) == made
    assert app.create_webhook(HOOK)["types"] == []  # every type

    off = app.update_webhook(made["id"], enabled=False, description="paused")
    assert (off["status"], off["description"]) == ("disabled", "paused")
    with pytest.raises(ApiError) as disabled:
        app.ping_webhook(made["id"])
    assert disabled.value.status == 409 and disabled.value.code == "endpoint_disabled"
    assert app.update_webhook(made["id"], enabled=True)["status"] == "enabled"

    rotated = app.rotate_webhook_secret(made["id"])
    assert rotated["secret"] not in (secret, None) and rotated["previous_secret_expires_at"] is not None

    pings = [app.ping_webhook(made["id"]) for _ in range(3)]
    assert all(p["type"] == "ping" and p["status"] == "pending" for p in pings)
    page = app.webhook_deliveries(made["id"], limit=2)
    assert [m["id"] for m in page["deliveries"]] == [pings[2]["id"], pings[1]["id"]]
    rest = app.webhook_deliveries(made["id"], before=page["next_cursor"])
    assert [m["id"] for m in rest["deliveries"]] == [pings[0]["id"]] and rest["next_cursor"] is None
    assert len(app.webhook_deliveries(made["id"], status="pending")["deliveries"]) == 3
    assert app.webhook_deliveries(made["id"], status="failed")["deliveries"] == []
    assert app.webhook_delivery(made["id"], pings[0]["id"]) == pings[0]
    assert app.redeliver_webhook(made["id"], pings[0]["id"])["id"] == pings[0]["id"]

    app.delete_webhook(made["id"])
    with pytest.raises(ApiError) as gone:
        app.webhook(made["id"])
    assert gone.value.status == 404
    assert made["id"] not in [w["id"] for w in app.webhooks()] and len(app.webhooks()) == 1


def test_refusals_come_back_as_api_errors_naming_the_field(app: AppClient, api: str) -> None:
    with pytest.raises(ApiError) as bad:
        app.create_webhook("ftp://127.0.0.1/hook")
    assert bad.value.status == 422 and bad.value.body["details"]["field"] == "url"
    with pytest.raises(ApiError) as unknown:
        app.create_webhook(HOOK, ["your_turn", "bogus"])
    assert unknown.value.status == 422 and unknown.value.body["details"]["field"] == "types.1"
    # Another app's key finds nothing.
    theirs = app.create_webhook(HOOK)
    admin = Client(api)
    other = AppClient(api, admin.create_app(ADMIN, "other")["key"])
    admin.close()
    try:
        assert other.webhooks() == []
        with pytest.raises(ApiError) as hidden:
            other.webhook_deliveries(theirs["id"])
        assert hidden.value.status == 404
    finally:
        other.close()
