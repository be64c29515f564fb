"""A match's chat (issue 47 point 2, docs/api/chat.md): messages of the players' and the spectators'
channels, mutes, reports, and the moderators' deletions and blocks; and an app's reports of all its
matches (:data:`app_reports`)."""

from __future__ import annotations

from typing import Any

from service.domain.accounts import require_admin
from service.http.api import Blueprint
from service.http.context import current_caller, services
from service.http.schemas.chat import (
    AppChatReportsQuerySchema,
    AppChatReportsSchema,
    ChatBlocksSchema,
    ChatMessageSchema,
    ChatMutesSchema,
    ChatPageSchema,
    ChatPostSchema,
    ChatQuerySchema,
    ChatReportRequestSchema,
    ChatReportSchema,
    ChatReportsSchema,
)
from service.http.spec.responses import errors
from service.http.spec.security import OPTIONAL_SEAT, REQUIRED_SEAT

blp = Blueprint("chat", __name__, url_prefix="/v1/matches", description="A match's chat and its moderation")
app_reports = Blueprint(
    "chat_reports", __name__, url_prefix="/v1", description="An app's reports of its matches' chat messages"
)

_WRITER = (
    403,
    "`insufficient_scope` (a player token without `play`), `players_only` (a spectator in the players' "
    "channel), `moderator` (moderators do not write), `chat_blocked` (a moderator blocked you).",
)
_MODERATOR = (403, "`not_moderator`: only the match's app key or the admin token moderates its chat.")
_NO_CHANNEL = (404, "No such match (or one you may not see), or a private match's spectators' channel.")


@blp.route("/<match_id>/chat", methods=["POST"])
@blp.arguments(ChatPostSchema())
@blp.response(201, ChatMessageSchema)
@blp.doc(
    operationId="postChatMessage",
    security=REQUIRED_SEAT,
    responses=errors(401, _WRITER, _NO_CHANNEL, 413, 422),
)
def post_message(body: dict[str, Any], match_id: str) -> dict[str, Any]:
    """Write a message: in the `players` channel as a seat (its seat token, or its player's token with
    `play`), in the `spectators` channel of a public match as a seat or any player token with `play`.
    The message reaches the match's event stream (a `chat` event: the players' channel to the seats
    only), and a players' message the other seats' players' feeds and webhooks (`chat_message`), but
    not those who muted you.  At most `TABLETOP_CHAT_RATE_LIMIT` messages (default 5) per
    `TABLETOP_CHAT_RATE_SECONDS` (default 10 s) per author and match (429 `chat_rate_limited`,
    `Retry-After`)."""
    return services().chat.post(match_id, current_caller(), body["channel"], body["text"])


@blp.route("/<match_id>/chat", methods=["GET"])
@blp.arguments(ChatQuerySchema(), location="query")
@blp.response(200, ChatPageSchema)
@blp.doc(
    operationId="getChat",
    security=OPTIONAL_SEAT,
    responses=errors(401, (403, "`players_only`: the players' channel is the seats'."), _NO_CHANNEL, 422),
)
def get_chat(query: dict[str, Any], match_id: str) -> dict[str, Any]:
    """A page of a channel's messages after `after`, oldest first, without the authors you muted.
    The players' channel: the seats and the moderators; the spectators' channel (public matches):
    whoever may read the match."""
    return services().chat.page(match_id, current_caller(), query["channel"], query["after"], query["limit"])


@blp.route("/<match_id>/chat/<int:message_id>", methods=["DELETE"])
@blp.response(200, ChatMessageSchema)
@blp.doc(
    operationId="deleteChatMessage",
    security=REQUIRED_SEAT,
    responses=errors(401, _MODERATOR, (404, "No such match or message.")),
)
def delete_message(match_id: str, message_id: int) -> dict[str, Any]:
    """Delete a message (the match's app key, or the admin token): it leaves the pages and the event
    stream, and a `chat_deleted` event tells the clients that show it.  Answers the message as it was."""
    return services().moderation.delete(match_id, current_caller(), message_id)


@blp.route("/<match_id>/chat/mutes", methods=["GET"])
@blp.response(200, ChatMutesSchema)
@blp.doc(operationId="getChatMutes", security=REQUIRED_SEAT, responses=errors(401, 403, 404))
def get_mutes(match_id: str) -> dict[str, Any]:
    """The authors you muted in this match (a seat, or a player token)."""
    return services().moderation.mutes(match_id, current_caller())


@blp.route("/<match_id>/chat/mutes/<author>", methods=["PUT"])
@blp.response(200, ChatMutesSchema)
@blp.doc(operationId="muteChatAuthor", security=REQUIRED_SEAT, responses=errors(401, 403, 404, 422))
def mute(match_id: str, author: str) -> dict[str, Any]:
    """Mute an author for yourself: their messages leave your pages and your feed (the event stream
    still carries them; the web client hides them). Answers your mutes."""
    return services().moderation.mute(match_id, current_caller(), author)


@blp.route("/<match_id>/chat/mutes/<author>", methods=["DELETE"])
@blp.response(200, ChatMutesSchema)
@blp.doc(operationId="unmuteChatAuthor", security=REQUIRED_SEAT, responses=errors(401, 403, 404, 422))
def unmute(match_id: str, author: str) -> dict[str, Any]:
    """Unmute an author. Answers your mutes."""
    return services().moderation.unmute(match_id, current_caller(), author)


@blp.route("/<match_id>/chat/blocks", methods=["GET"])
@blp.response(200, ChatBlocksSchema)
@blp.doc(operationId="getChatBlocks", security=REQUIRED_SEAT, responses=errors(401, _MODERATOR, 404))
def get_blocks(match_id: str) -> dict[str, Any]:
    """The authors blocked from this match's chat (moderators)."""
    return services().moderation.blocks(match_id, current_caller())


@blp.route("/<match_id>/chat/blocks/<author>", methods=["PUT"])
@blp.response(200, ChatBlocksSchema)
@blp.doc(operationId="blockChatAuthor", security=REQUIRED_SEAT, responses=errors(401, _MODERATOR, 404, 422))
def block(match_id: str, author: str) -> dict[str, Any]:
    """Block an author from this match's chat (the match's app key, or the admin token): their next
    message is 403 `chat_blocked`. Answers the blocks."""
    return services().moderation.block(match_id, current_caller(), author)


@blp.route("/<match_id>/chat/blocks/<author>", methods=["DELETE"])
@blp.response(200, ChatBlocksSchema)
@blp.doc(operationId="unblockChatAuthor", security=REQUIRED_SEAT, responses=errors(401, _MODERATOR, 404, 422))
def unblock(match_id: str, author: str) -> dict[str, Any]:
    """Lift a block. Answers the blocks."""
    return services().moderation.unblock(match_id, current_caller(), author)


@blp.route("/<match_id>/chat/reports", methods=["POST"])
@blp.arguments(ChatReportRequestSchema())
@blp.response(201, ChatReportSchema)
@blp.doc(operationId="reportChatMessage", security=REQUIRED_SEAT, responses=errors(401, 403, 404, 413, 422))
def report(body: dict[str, Any], match_id: str) -> dict[str, Any]:
    """Report a message you may read (a seat, or a player token with `play`): the report is kept with
    the match for its app (`GET .../chat/reports`)."""
    return services().moderation.report(match_id, current_caller(), body["message_id"], body.get("reason"))


@blp.route("/<match_id>/chat/reports", methods=["GET"])
@blp.response(200, ChatReportsSchema)
@blp.doc(operationId="getChatReports", security=REQUIRED_SEAT, responses=errors(401, _MODERATOR, 404))
def get_reports(match_id: str) -> dict[str, Any]:
    """The reports of this match's messages, oldest first (the match's app key, or the admin token)."""
    return services().moderation.reports(match_id, current_caller())


@app_reports.route("/apps/me/chat-reports", methods=["GET"])
@app_reports.arguments(AppChatReportsQuerySchema(), location="query")
@app_reports.response(200, AppChatReportsSchema)
@app_reports.doc(
    operationId="listChatReports",
    security=REQUIRED_SEAT,
    responses=errors((401, "The app key is required."), 422),
)
def list_chat_reports(query: dict[str, Any]) -> dict[str, Any]:
    """The reports of messages of all the app's matches, newest first, each with the message as it was
    reported (its match may be gone since): the app's newest 1000 of the retention's time
    (`TABLETOP_RETENTION_SECONDS`).  Follow `next` (as `after`) for older ones.  The app key only."""
    return services().moderation.app_reports(current_caller(), None, query.get("after"), query["limit"])


@app_reports.route("/admin/apps/<app_id>/chat-reports", methods=["GET"])
@app_reports.arguments(AppChatReportsQuerySchema(), location="query")
@app_reports.response(200, AppChatReportsSchema)
@app_reports.doc(
    operationId="listAppChatReports",
    security=REQUIRED_SEAT,
    responses=errors((401, "The admin token (TABLETOP_ADMIN_TOKEN) is required."), 404, 422),
)
def list_app_chat_reports(query: dict[str, Any], app_id: str) -> dict[str, Any]:
    """An app's reports of its matches' chat messages, as its own key lists them
    (`GET /v1/apps/me/chat-reports`): the operator's view."""
    svc = services()
    require_admin(current_caller(), bool(svc.config.admin_token))
    svc.accounts.app(app_id)  # 404 for no such app
    return svc.moderation.app_reports(current_caller(), app_id, query.get("after"), query["limit"])
