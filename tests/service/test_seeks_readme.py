"""The "Finding a match" example (docs/api/matchmaking.md) works when copied (issue 27 point 8): its ``sh``
block runs with bash against ``tabletop serve`` in development mode (a private Redis, the worker beside
the API, whose sweep fills the last seek with bots), as a reader would run it; and the section names
every route of the seeks and challenges blueprints."""

from __future__ import annotations

import json
import re

from service.config import Config
from service.http.app import OFFLINE_REDIS_URL, create_app
from tests.clients.test_readme import api, run  # noqa: F401  (api: the served instance)
from tests.docs.pages import block, section


def test_the_finding_a_match_example_pairs_challenges_and_fills_with_bots(api: str) -> None:  # noqa: F811
    lines = [json.loads(line) for line in run(block("finding-a-match"), api)]
    posted, listed, paired, feed, match, accepted, filled = lines
    assert posted == {"status": "open", "rating": 0}
    assert listed == ["ann"]
    assert paired["status"] == "matched" and paired["match_id"]
    assert feed[0] == "invited" and feed[-1] == "seek_matched"
    assert match["rated"] is True and sorted(match["seats"]) == ["Ann", "Bob"]
    assert accepted["status"] == "accepted" and accepted["match_id"]
    assert filled == {
        "status": "matched",
        "bots": {"allow": True, "after_seconds": 1, "level": "easy", "players": True},
    }


def test_the_section_names_every_matchmaking_route() -> None:
    text = re.sub(r"\{\w+\}", "{}", section("Finding a match"))
    app = create_app(Config(redis_url=OFFLINE_REDIS_URL))
    for rule in app.url_map.iter_rules():
        if rule.rule.startswith(("/v1/seeks", "/v1/challenges")):
            path = re.sub(r"<(?:\w+:)?\w+>", "{}", rule.rule)
            for method in rule.methods - {"HEAD", "OPTIONS"}:
                assert re.search(rf"`{method}\s+{re.escape(path)}[`?]", text), (method, path)
