"""GET /v1/games/{game} says which component data is reconstructed (issue 18), as RULES.md does."""

from __future__ import annotations

from pathlib import Path

from engine.registry import GAMES


def test_reconstructed_data_is_listed_with_the_rules_that_describe_it(client):
    """Taj Mahal R2, R4, R7 (C1-C3) and China R4, R10: the four Taj Mahal reconstructions and China's
    board geometry are listed; every rule a note names exists in the game's RULES.md."""
    notes = {gid: client.get(f"/v1/games/{gid}").json["data_notes"] for gid in GAMES}
    assert {n["component"] for n in notes["taj_mahal"]} == {
        "map",
        "bonus tiles",
        "coloured cards",
        "special cards",
    }
    assert "board" in {n["component"] for n in notes["china"]}
    assert notes["confucius"] == [] and notes["year_of_dragon"] == []
    for gid, game_notes in notes.items():
        rules = Path(GAMES[gid].rules_file).read_text(encoding="utf-8")
        for note in game_notes:
            assert note["note"] and note["rules"], note
            for rule in note["rules"]:
                assert f"**{rule} " in rules, (gid, rule)  # a rule heading: **R2 Map data ...


def test_the_spec_describes_data_notes(client):
    """The published schema of a game document has the field, so client generators know it."""
    spec = client.get("/openapi.json").json
    game = spec["components"]["schemas"]["Game"]
    assert "data_notes" in game["required"]
    assert "reconstruction" in game["properties"]["data_notes"]["description"]
