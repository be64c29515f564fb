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


class DataNoteSchema(Schema):
    component = fields.String(required=True, metadata={"description": "The component concerned, e.g. `map`."})
    rules = fields.List(
        fields.String(),
        required=True,
        metadata={"description": "Rule ids of RULES.md that describe the reconstruction (`R2`)."},
    )
    note = fields.String(
        required=True, metadata={"description": "What is reconstructed and what is sourced."}
    )


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
            "components as `<Game><Type>Action`, e.g. `ChinaPlaceAction`)."
        },
    )
    board = fields.Dict(
        required=True,
        allow_none=True,
        metadata={
            "description": "The board as data, for clients to draw it: its places (spaces, cities, "
            "provinces...) with the ids actions and views use, the roads or borders between them, "
            "colours, and layout coordinates. Each game's own schema: `<Game>BoardLayout` "
            "(`ChinaBoardLayout`); null for a game that publishes none."
        },
    )
    data_notes = fields.List(
        fields.Nested(DataNoteSchema),
        required=True,
        metadata={
            "description": "What in the game's component data is a reconstruction rather than the "
            "printed component (a map, a card list...), so integrators and players know; empty when "
            "nothing is. RULES.md gives the details under the listed rules."
        },
    )
