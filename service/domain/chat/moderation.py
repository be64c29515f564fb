"""Moderating a match's chat: :class:`Moderation`.

- A participant (a seat, or a player token that wrote or may write as a spectator) **mutes** an author
  for itself: that author's messages leave its pages and its feed (the match's event stream is shared
  by every waiter of a visibility class, so it still carries them: the web client hides them, and so
  should other clients, from ``GET .../chat/mutes``).  Unmuting brings them back.
- A participant **reports** a message: the report (message, its author, the reporter, a reason) is
  kept with the match for its moderators, and in its app's list of reports of all its matches, newest
  first, with a copy of the message as reported (:meth:`Moderation.app_reports`: the app's key, or the
  admin token; a match no app made has none), so an app can review reports without walking matches.
- A moderator (the match's app's key, or the admin token: :func:`service.domain.chat.speakers.is_moderator`)
  **deletes** a message (it leaves the pages and the event stream, and a ``chat_deleted`` event tells
  the clients that showed it), **blocks** an author from the match's chat (their next message is 403
  ``chat_blocked``; what they wrote stays unless deleted) and reads the reports.

Everything is kept in the match's slot and lives as long as the match (:mod:`service.storage.chat`);
the app's list of reports in the app's slot, its newest reports of the retention's time.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from service.domain.accounts import require_app
from service.domain.chat import speakers
from service.domain.chat.chat import Chat, mute_field
from service.domain.chat.messages import MAX_REASON, clean_text, shown
from service.domain.errors import Forbidden, invalid, not_found, unauthorized
from service.domain.identity import ANONYMOUS, PLAY, Caller
from service.encoding import dumps, loads
from service.storage.chat import PLAYERS, SPECTATORS, ChatStore
from service.storage.matches import MatchMeta

#: An author handle (:mod:`service.domain.chat.speakers`).
AUTHOR = re.compile(r"^(seat:[0-9]{1,2}|spectator:[0-9a-f]{16})$")
#: A cursor of an app's reports (a Stream id).
CURSOR = re.compile(r"^[0-9]{1,20}-[0-9]{1,20}$")
#: Reports a page of an app's holds at most (and by default).
MAX_REPORTS_PAGE, DEFAULT_REPORTS_PAGE = 200, 50
#: The fields of an app's report that are never shown: whose the message and the report are, so a
#: player's erasure finds them (:mod:`service.domain.chat.data`).
REPORT_PRIVATE = ("author_player", "reporter_player")


def check_author(author: str) -> str:
    if not AUTHOR.match(author):
        raise invalid("author", "an author handle: `seat:<n>` or `spectator:<16 hex digits>`")
    return author


class Moderation:
    """Mutes, reports, deletions and blocks of matches' chats."""

    def __init__(
        self, store: ChatStore, chat: Chat, clock: Callable[[], float], retention: float = 7 * 24 * 3600.0
    ) -> None:
        self.store = store
        self.chat = chat
        self.now = clock
        #: Seconds an app's list shows a report (the retention: a chat outlives its match no longer).
        self.retention = retention

    def _moderator(self, match_id: str, who: Caller) -> MatchMeta:
        """The match, if ``who`` moderates it: 401 without a credential, 403 ``not_moderator`` else
        (404 for a match the caller may not know of)."""
        meta = self.chat.reading.meta(match_id)
        if speakers.is_moderator(meta, who):
            return meta
        if who.kind == ANONYMOUS:
            raise unauthorized("the match's app key (or the admin token) is required")
        self.chat.reading.caller(meta, who, required=False)  # a private match's 404 comes first
        raise Forbidden("not_moderator", "only the match's app key or the admin token moderates its chat")

    # -- a participant's ----------------------------------------------------------------------------

    def mute(self, match_id: str, who: Caller, author: str) -> dict[str, Any]:
        """Mute ``author`` for the caller; its mutes after."""
        meta, _, me = self.chat.participant(match_id, who, PLAY)
        if check_author(author) == me:
            raise invalid("author", "you cannot mute yourself")
        if not self.store.set_field(meta.id, mute_field(me, author), "1"):
            raise not_found(f"match {match_id!r}")
        return {"authors": self.chat.muted_by(meta.id, me)}

    def unmute(self, match_id: str, who: Caller, author: str) -> dict[str, Any]:
        meta, _, me = self.chat.participant(match_id, who, PLAY)
        self.store.drop_field(meta.id, mute_field(me, check_author(author)))
        return {"authors": self.chat.muted_by(meta.id, me)}

    def mutes(self, match_id: str, who: Caller) -> dict[str, Any]:
        meta, _, me = self.chat.participant(match_id, who, PLAY)
        return {"authors": self.chat.muted_by(meta.id, me)}

    def report(self, match_id: str, who: Caller, message_id: int, reason: str | None) -> dict[str, Any]:
        """Report a message the caller may read, for the match's moderators: the report kept."""
        meta, speaker, me = self.chat.participant(match_id, who, PLAY)
        found = self.store.message(meta.id, message_id)
        if found is None or not speakers.may_read(speaker, found[0]):
            raise not_found(f"chat message {message_id}")
        channel, message = found
        report = {
            "message_id": message_id,
            "channel": channel,
            "author": message["author"],
            "reporter": me,
            "reason": clean_text(reason, "reason", MAX_REASON) if reason else None,
            "at": self.now(),
        }
        if not self.store.add_report(meta.id, report):
            raise not_found(f"match {match_id!r}")
        app = meta.life.get("app")
        if app:
            kept = {
                "match_id": meta.id,
                "message": shown(message),
                "reason": report["reason"],
                "reporter": me,
                "at": report["at"],
                "author_player": message.get("player"),
                "reporter_player": speaker.player,
            }
            self.store.add_app_report(str(app), kept, self.retention)
        return report

    def app_reports(self, who: Caller, app: str | None, after: str | None, limit: int) -> dict[str, Any]:
        """The reports of the app's matches, newest first: ``limit`` older than the cursor ``after``,
        and the next cursor (``None``: no more).  ``app`` is the admin's choice (the caller checked
        it is the admin); without it, the caller's app key's own."""
        if app is None:
            app = require_app(who)
        if not 1 <= limit <= MAX_REPORTS_PAGE:
            raise invalid("limit", f"from 1 to {MAX_REPORTS_PAGE}")
        if after is not None and not (CURSOR.match(after) and max(map(int, after.split("-"))) < 2**64):
            raise invalid("after", "not a cursor of this list: pass the `next` a page gave")
        rows = self.store.app_reports(app, after or "+", limit + 1, self.retention)
        found = [
            {"id": rid, **{k: v for k, v in row.items() if k not in REPORT_PRIVATE}} for rid, row in rows
        ]
        return {"reports": found[:limit], "next": found[limit - 1]["id"] if len(found) > limit else None}

    # -- a moderator's ------------------------------------------------------------------------------

    def reports(self, match_id: str, who: Caller) -> dict[str, Any]:
        meta = self._moderator(match_id, who)
        return {"reports": self.store.reports(meta.id)}

    def delete(self, match_id: str, who: Caller, message_id: int) -> dict[str, Any]:
        """Delete a message: the message as it was."""
        meta = self._moderator(match_id, who)
        audiences = (speakers.audience(meta, PLAYERS), speakers.audience(meta, SPECTATORS))
        message = self.store.delete(meta.id, message_id, audiences)
        if message is None:
            raise not_found(f"chat message {message_id}")
        return shown(message)

    def block(self, match_id: str, who: Caller, author: str) -> dict[str, Any]:
        meta = self._moderator(match_id, who)
        note = {"by": who.kind, "at": self.now()}
        if not self.store.set_field(meta.id, f"block:{check_author(author)}", dumps(note)):
            raise not_found(f"match {match_id!r}")
        return self._blocks(meta.id)

    def unblock(self, match_id: str, who: Caller, author: str) -> dict[str, Any]:
        meta = self._moderator(match_id, who)
        self.store.drop_field(meta.id, f"block:{check_author(author)}")
        return self._blocks(meta.id)

    def blocks(self, match_id: str, who: Caller) -> dict[str, Any]:
        return self._blocks(self._moderator(match_id, who).id)

    def _blocks(self, match_id: str) -> dict[str, Any]:
        state = self.store.state(match_id)
        found = [
            {"author": field.removeprefix("block:"), **loads(value)}
            for field, value in sorted(state.items())
            if field.startswith("block:")
        ]
        return {"blocks": found}
