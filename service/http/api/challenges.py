"""Challenges to named players (see :mod:`service.domain.matchmaking.challenges`)."""

from __future__ import annotations

from typing import Any

from flask import url_for

from service.http.api import Blueprint
from service.http.api.idempotency import idempotent
from service.http.context import current_caller, services
from service.http.schemas.matchmaking import (
    ChallengeAsQuerySchema,
    ChallengeListQuerySchema,
    ChallengeListSchema,
    ChallengeSchema,
    CreateChallengeSchema,
)
from service.http.spec.responses import errors
from service.http.spec.security import REQUIRED_SEAT

blp = Blueprint(
    "challenges",
    __name__,
    url_prefix="/v1/challenges",
    description="Challenges to named players",
)

CREDENTIALS = (401, "A player token (or the app key naming `player`) is required.")
SCOPE = (403, "The player token lacks the `play` scope (`insufficient_scope`).")
CLOSED = (409, "`challenge_closed`: accepted, declined, cancelled or expired already (`details.status`).")
ANSWER_CONFLICT = (
    409,
    "`challenge_closed` (`details.status`), or `already_answered`: this player gave the other answer.",
)
NOT_CHALLENGED = (403, "`not_challenged`: the challenger answers nothing; or a token without `play`.")
NOT_CHALLENGER = (403, "`not_your_challenge`: only the challenger cancels; or a token without `play`.")


@blp.route("", methods=["POST"])
@idempotent
@blp.arguments(CreateChallengeSchema())
@blp.response(201, ChallengeSchema, headers={"Location": {"schema": {"type": "string"}}})
@blp.doc(
    operationId="createChallenge", security=REQUIRED_SEAT, responses=errors(CREDENTIALS, SCOPE, 404, 413, 422)
)
def create_challenge(body: dict[str, Any]) -> Any:
    """Challenge named players of the caller's app to a match (game, options, rated, time control).
    Each gets `challenge_received` on its feed (and the app's webhooks); the match starts when all
    accept; unanswered, the challenge expires (`challenge_expired`)."""
    doc = services().challenges.create(current_caller(), body)
    return doc, 201, {"Location": url_for("challenges.get_challenge", challenge_id=doc["id"])}


@blp.route("", methods=["GET"])
@blp.arguments(ChallengeListQuerySchema(), location="query")
@blp.response(200, ChallengeListSchema)
@blp.doc(operationId="listChallenges", security=REQUIRED_SEAT, responses=errors(401, 403, 404, 422))
def list_challenges(query: dict[str, Any]) -> dict[str, Any]:
    """The player's own challenges, sent and received, newest first; filter by `status`.  A player
    token lists its own player's; an app key names the player with `player`."""
    found = services().challenges.mine(
        current_caller(), query.get("player"), query.get("status"), query["limit"]
    )
    return {"challenges": found}


@blp.route("/<challenge_id>", methods=["GET"])
@blp.response(200, ChallengeSchema)
@blp.doc(operationId="getChallenge", security=REQUIRED_SEAT, responses=errors(401, 403, 404))
def get_challenge(challenge_id: str) -> dict[str, Any]:
    """A challenge: for its challenger, the players it names and its app's key (404 for anyone else)."""
    return services().challenges.get(current_caller(), challenge_id)


@blp.route("/<challenge_id>/accept", methods=["POST"])
@blp.arguments(ChallengeAsQuerySchema(), location="query")
@blp.response(200, ChallengeSchema)
@blp.doc(
    operationId="acceptChallenge",
    security=REQUIRED_SEAT,
    responses=errors(CREDENTIALS, NOT_CHALLENGED, 404, ANSWER_CONFLICT, 422),
)
def accept_challenge(query: dict[str, Any], challenge_id: str) -> dict[str, Any]:
    """Accept for the caller's player (idempotent).  The last accept makes the match: `accepted`, with
    `match_id`; everyone gets `challenge_accepted`."""
    return services().challenges.accept(current_caller(), challenge_id, query.get("player"))


@blp.route("/<challenge_id>/decline", methods=["POST"])
@blp.arguments(ChallengeAsQuerySchema(), location="query")
@blp.response(200, ChallengeSchema)
@blp.doc(
    operationId="declineChallenge",
    security=REQUIRED_SEAT,
    responses=errors(CREDENTIALS, NOT_CHALLENGED, 404, ANSWER_CONFLICT, 422),
)
def decline_challenge(query: dict[str, Any], challenge_id: str) -> dict[str, Any]:
    """Decline for the caller's player (idempotent): the challenge is over for everyone
    (`challenge_declined`)."""
    return services().challenges.decline(current_caller(), challenge_id, query.get("player"))


@blp.route("/<challenge_id>", methods=["DELETE"])
@blp.response(200, ChallengeSchema)
@blp.doc(
    operationId="cancelChallenge",
    security=REQUIRED_SEAT,
    responses=errors(CREDENTIALS, NOT_CHALLENGER, 404, CLOSED),
)
def cancel_challenge(challenge_id: str) -> dict[str, Any]:
    """Withdraw an open challenge (its challenger, or the app's key): `cancelled`; the challenged get
    `challenge_declined` with `reason` `cancelled`."""
    return services().challenges.cancel(current_caller(), challenge_id)
