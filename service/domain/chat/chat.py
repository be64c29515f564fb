"""Writing and reading a match's chat: :class:`Chat`.

A message is one script call (``lua/chat_post.lua``): the author's block and rate limit checked, the
message stored in its channel and appended to the match's events stream as a ``chat`` event, all or
nothing; the event stream then carries it to every waiter that may see it, as it carries moves.  A
message of the players' channel is also a ``chat_message`` note to each other seat's player (their
feeds and their apps' webhooks), except those who muted its author.  That note is given after the
message is stored, in the same request: a process dying in between leaves the message in the chat
and the event stream, without the note (chat is not worth an outbox entry of the match).

The rate limit is the author's own, per match (:attr:`Chat.rate`: messages per window, the settings
``TABLETOP_CHAT_RATE_LIMIT`` and ``TABLETOP_CHAT_RATE_SECONDS``), on top of the API's request limits: a
client that may send many requests may still not flood a chat.  A message's length is bounded by
``TABLETOP_CHAT_MAX_LENGTH`` (:attr:`Chat.max_text`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from service.config import Config
from service.domain.accounts import require_scope
from service.domain.chat import speakers
from service.domain.chat.messages import MAX_TEXT, clean_text, shown
from service.domain.chat.speakers import Speaker
from service.domain.errors import Forbidden, TooMany, not_found
from service.domain.feeds import feed
from service.domain.feeds.sources import NoteSink, chat_source
from service.domain.identity import PLAY, READ, Caller
from service.domain.matches import seating
from service.domain.matches.reading import MatchReading
from service.storage.chat import CHANNELS, PLAYERS, SPECTATORS, ChatStore
from service.storage.matches import MatchMeta

#: An author's messages per window of seconds, per match, unless the settings say otherwise.
RATE = (Config.chat_rate_limit, Config.chat_rate_seconds)
#: Messages a page holds at most (and by default).
MAX_PAGE, DEFAULT_PAGE = 200, 50


def mute_field(muter: str, author: str) -> str:
    """The chat hash's field that says ``muter`` muted ``author``."""
    return f"mute:{muter}:{author}"


class Chat:
    """The chat of every match: over its store, the match reading (who the caller is), players'
    profile names (a spectator's name) and the note sink (feeds and webhooks)."""

    def __init__(
        self,
        store: ChatStore,
        reading: MatchReading,
        player_name: Callable[[str], str | None],
        note: NoteSink,
        clock: Callable[[], float],
        secret: Callable[[], bytes],
        rate: tuple[int, float] = RATE,
        max_text: int = MAX_TEXT,
        retention: float = 7 * 24 * 3600.0,
    ) -> None:
        self.store = store
        self.reading = reading
        #: The profile name of a player (a key), ``None`` if it has none (a spectator's name in chat).
        self.player_name = player_name
        self.note = note
        self.now = clock
        #: The server's secret that keys spectators' handles (:func:`speakers.spectator_author`).
        self.secret = secret
        self.rate = rate
        self.max_text = max_text
        #: Seconds a player's index of the matches it wrote in is kept after its last message: the
        #: retention, so the index cannot outlive the chats it names by more than that.
        self.retention = retention

    # -- who is who -------------------------------------------------------------------------------

    def speaker(self, meta: MatchMeta, who: Caller, scope: str = READ) -> Speaker:
        """The caller in the match's chat (401, 403 or 404 as reading the match says, and 403
        ``insufficient_scope`` for a player token without ``scope``)."""
        if speakers.is_moderator(meta, who):
            return Speaker(None, None, "", moderator=True)
        seat = self.reading.caller(meta, who, required=False, scope=scope)
        player = speakers.player_of(who)
        if seat is not None:
            return Speaker(seat, speakers.seat_author(seat), speakers.seat_name(meta, seat), player)
        if player is None:
            return Speaker(None, None, "")
        require_scope(who, scope)
        return Speaker(None, speakers.spectator_author(self.secret(), meta.id, player), "", player)

    def participant(self, match_id: str, who: Caller, scope: str) -> tuple[MatchMeta, Speaker, str]:
        """The match, and a caller who may write in its chat (a seat, or a player token) with its
        author handle: what mutes and reports need."""
        meta = self.reading.meta(match_id)
        speaker = self.speaker(meta, who, scope)
        channel = PLAYERS if speaker.seat is not None else SPECTATORS
        return meta, speaker, speakers.require_writer(speaker, channel)

    # -- writing ----------------------------------------------------------------------------------

    def post(self, match_id: str, who: Caller, channel: str, text: str) -> dict[str, Any]:
        """Write a message in ``channel``: the message as clients get it."""
        meta = self.reading.meta(match_id)
        speakers.check_channel(meta, channel)
        speaker = self.speaker(meta, who, PLAY)
        author = speakers.require_writer(speaker, channel)
        text = clean_text(text, max_length=self.max_text)
        name = speaker.name
        if speaker.seat is None:
            name = speakers.spectator_name(self.player_name(speaker.player) if speaker.player else None)
        at = self.now()
        message = {
            "channel": channel,
            "author": author,
            "seat": speaker.seat,
            "name": name,
            "text": text,
            "at": at,
        }
        stored = {**message, "player": speaker.player} if speaker.player else message
        posted = self.store.post(
            meta.id, channel, author, stored, message, speakers.audience(meta, channel), at, self.rate
        )
        if posted.gone:
            raise not_found(f"match {match_id!r}")
        if posted.blocked:
            raise Forbidden("chat_blocked", "a moderator blocked you from this match's chat")
        if posted.retry_after:
            limit, window = self.rate
            raise TooMany(
                "chat_rate_limited",
                f"at most {limit} messages per {window:g} s in a match's chat; retry after "
                f"{posted.retry_after} s",
                {"limit": limit, "window": window, "retry_after": posted.retry_after},
                posted.retry_after,
            )
        message = {"id": posted.id, **message}
        if speaker.player is not None:
            self.store.index(speaker.player, meta.id, at, self.retention)
        if channel == PLAYERS:
            self._tell_players(meta, author, message)
        return message

    def _tell_players(self, meta: MatchMeta, author: str, message: dict[str, Any]) -> None:
        """A ``chat_message`` note to the player of every other seat that did not mute ``author``."""
        state = self.store.state(meta.id)
        for seat, key in seating.player_keys(meta.life).items():
            reader = speakers.seat_author(seat)
            if reader == author or mute_field(reader, author) in state:
                continue
            entry = feed.entry(feed.CHAT_MESSAGE, meta, seat, chat=message)
            self.note(key, chat_source(meta.id), message["id"], entry, None)

    # -- reading ----------------------------------------------------------------------------------

    def page(self, match_id: str, who: Caller, channel: str, after: int, limit: int) -> dict[str, Any]:
        """The channel's messages after the id ``after`` (at most ``limit``), oldest first, without
        those of authors the caller muted; ``last_id`` goes on from the last message read."""
        meta = self.reading.meta(match_id)
        speakers.check_channel(meta, channel)
        speaker = self.speaker(meta, who)
        speakers.require_reader(speaker, channel)
        rows = self.store.page(meta.id, channel, after, limit)
        muted = self.muted_by(meta.id, speaker.author)
        messages = [shown(row) for row in rows if row["author"] not in muted]
        return {"channel": channel, "messages": messages, "last_id": rows[-1]["id"] if rows else after}

    def muted_by(self, match_id: str, muter: str | None) -> list[str]:
        """The authors ``muter`` muted in the match (none for a caller with no handle)."""
        if muter is None:
            return []
        prefix = mute_field(muter, "")
        return sorted(f.removeprefix(prefix) for f in self.store.state(match_id) if f.startswith(prefix))

    def for_record(self, match_id: str, perspective: str, seat: int | None) -> list[dict[str, Any]]:
        """The chat a record of ``perspective`` carries (``include=chat``), oldest first: a ``full``
        record both channels, a seat's both, a spectator's the spectators' channel."""
        found = self.store.all_messages(match_id)
        channels = CHANNELS if perspective != "spectator" else (SPECTATORS,)
        rows = [row for channel in channels for row in found[channel]]
        return [shown(row) for row in sorted(rows, key=lambda row: int(row["id"]))]
