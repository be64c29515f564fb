"""Game catalogue responses."""

from __future__ import annotations

from marshmallow import Schema, fields


class GameSummarySchema(Schema):
    id = fields.String(required=True)
    title = fields.String(required=True)
    min_players = fields.Integer(required=True)
    max_players = fields.Integer(required=True)
    rules_url = fields.String(required=True, metadata={"description": "The game's RULES.md (markdown)."})


class GameListSchema(Schema):
    games = fields.List(fields.Nested(GameSummarySchema), required=True)


class GameSchema(GameSummarySchema):
    options = fields.Dict(
        required=True,
        metadata={"description": "JSON schema of the match options; each property has its `default`."},
    )
    actions = fields.Dict(
        keys=fields.String(),
        values=fields.Dict(),
        required=True,
        metadata={
            "description": "Action type -> JSON schema of that action object (also in the spec's "
            "components as `<game>.<type>`)."
        },
    )
