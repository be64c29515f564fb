"""The docs (docs/operating.md, docs/api/apps-and-players.md) document apps and players as the code has them
(issue 25, point 8): every setting, with its default; every kind of feed entry and every scope; every
route of the accounts and feed blueprints. The walkthrough itself runs in tests/clients/test_readme.py."""

from __future__ import annotations

import dataclasses
import re

import pytest

from service.config import Config
from service.domain.feeds.feed import ENTRY_TYPES
from service.domain.identity import SCOPES
from service.http.app import OFFLINE_REDIS_URL, create_app
from tests.docs.pages import section


def settings_table() -> dict[str, str]:
    """Each variable of the Configuration table -> the default its row shows."""
    rows: dict[str, str] = {}
    for line in section("Configuration").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 3 and cells[0].startswith("`TABLETOP_"):
            names = re.findall(r"`(TABLETOP_\w+)`", cells[0])
            defaults = [d.strip() for d in cells[1].split(",")]
            for i, name in enumerate(names):
                rows[name] = defaults[i] if len(defaults) == len(names) else cells[1]
    return rows


def test_every_setting_has_a_row_in_the_configuration_table() -> None:
    rows = settings_table()
    missing = [f.name for f in dataclasses.fields(Config) if f"TABLETOP_{f.name.upper()}" not in rows]
    assert missing == [], f"settings without a row in docs/operating.md's Configuration table: {missing}"


@pytest.mark.parametrize(
    ("setting", "shown"),
    [
        ("admin_token", "*(unset)*"),
        ("anonymous", "`true`"),
        ("clock_warning_seconds", "`3600`"),
        ("max_waiters_per_app", "`5000`"),
        ("max_waiters_per_player", "`20`"),
    ],
)
def test_the_rows_of_the_accounts_settings_show_their_defaults(setting: str, shown: str) -> None:
    default = getattr(Config(), setting)
    if isinstance(default, bool):
        expected = f"`{str(default).lower()}`"
    elif isinstance(default, str):
        expected = f"`{default}`" if default else "*(unset)*"
    else:
        expected = f"`{default:g}`"
    assert expected == shown  # the table's spelling of the code's default
    assert settings_table()[f"TABLETOP_{setting.upper()}"] == shown


def test_the_apps_and_players_section_names_every_feed_entry_scope_and_route() -> None:
    text = section("Apps and players")
    for kind in ENTRY_TYPES:
        assert f"`{kind}`" in text, kind
    for scope in SCOPES:
        assert f"`{scope}`" in text, scope
    app = create_app(Config(redis_url=OFFLINE_REDIS_URL))
    routes = {
        re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", rule.rule)
        for rule in app.url_map.iter_rules()
        if rule.rule.startswith(("/v1/admin/", "/v1/players", "/v1/me"))
    }
    assert "/v1/me/events" in routes and "/v1/players/{player_id}/tokens" in routes

    def anonymous(path: str) -> str:
        return re.sub(r"\{\w+\}", "{}", path)  # `{id}` or `{player_id}`: any name for a parameter

    written = anonymous(text)
    for route in routes:
        assert re.search(r"`[A-Z]+\s+" + re.escape(anonymous(route)) + "[`?]", written), route
