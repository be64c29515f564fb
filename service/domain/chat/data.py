"""A player's chat messages as player data (issue 48's :class:`service.domain.privacy.parts.PlayerData`):
the export's ``chat`` section, and what erasure does to them.

Only messages written with a player token are the player's (a seat token's holder is anonymous: its
messages name no player).  The store keeps, per player, the matches it wrote in
(:meth:`service.storage.chat.ChatStore.indexed`); each of their messages records its player key,
never shown.  That index expires the retention after the player's last message, so the walk also
takes the matches the player sat in (its matches' list, :meth:`AccountStore.player_matches`): a seat's
messages in a match still in play long after them are found too.

**Export**: every message of the player still kept (its match not past its retention), oldest match
first: the match, and the message as its readers get it; then every report the player made that its
app's list of reports keeps (the list records who reported, never shown; a match created without an
app has no such list, and its reports name only a handle): the match, and ``report`` as the match's
moderators read it (the message reported, its author's handle, the player's handle and reason).

**Erasure**: each message stays in its channel as a tombstone, so the conversation around it keeps
its order and ids, but says nothing of the player: its text becomes empty (``"erased": true``), its
name the placeholder, and it no longer records the player; its event leaves the match's event stream
(a client reading the stream again finds no text of theirs).  The player's index goes too, so a second
erasure finds nothing.  Reports about an erased message keep, in its match, only its id and author
handle, which names a seat or an unlinkable spectator hash, never the player; the app's list of
reports keeps a copy of the message as reported, so there the copy becomes the same tombstone, and a
report the player made loses its reason (the player's words), in the app's list and in its match's.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from service.domain.chat.messages import shown
from service.domain.feeds.feed import CHAT_MESSAGE
from service.domain.identity import player_key, split_player_key
from service.domain.matches import seating
from service.domain.privacy.rewriting import rewrite_stream
from service.encoding import dumps, loads
from service.storage.accounts import AccountStore, player_slot_key
from service.storage.chat import CHANNELS, ChatStore
from service.storage.matches import Store
from service.storage.privacy import PrivacyStore
from service.storage.webhooks import WebhookStore

#: Matches of a player's list read at once.
BATCH = 200


class ChatData:
    """The ``chat`` part of a player's data."""

    section = "chat"

    def __init__(
        self,
        store: ChatStore,
        players: AccountStore | None = None,
        matches: Store | None = None,
        rewrites: PrivacyStore | None = None,
        hooks: WebhookStore | None = None,
    ) -> None:
        self.store = store
        self.players = players
        #: Where the copies of a players' channel's message went (the other seats' feeds, through
        #: ``rewrites``, and their app's webhook messages, ``hooks``), found by the match's seats.
        self.matches, self.rewrites, self.hooks = matches, rewrites, hooks

    def _matches(self, key: str) -> list[str]:
        """The matches the player wrote in, or sat in, that still exist (the gone ones leave the
        index), the index's first."""
        ids = self.store.indexed(key)
        gone = [mid for mid in ids if not self.store.exists(mid)]
        self.store.unindex(key, gone)
        found = [mid for mid in ids if mid not in gone]
        seen = set(ids)
        for mid in self._seated(key):
            if mid not in seen and self.store.exists(mid):
                found.append(mid)
                seen.add(mid)
        return found

    def _seated(self, key: str) -> Iterator[str]:
        if self.players is None:
            return
        before: int | None = None
        while True:
            rows = self.players.player_matches(key, before, BATCH)
            yield from (mid for mid, _ in rows)
            if len(rows) < BATCH:
                return
            before = rows[-1][1]

    def export(self, app: str, player: str) -> Iterator[dict[str, Any]]:
        key = player_key(app, player)
        for match_id in self._matches(key):
            rows = self.store.all_messages(match_id)
            mine = [row for channel in CHANNELS for row in rows[channel] if row.get("player") == key]
            for row in sorted(mine, key=lambda row: int(row["id"])):
                yield {"match_id": match_id, **shown(row)}
        for report in self._made(app, key):
            yield {"match_id": report["match_id"], "report": as_reported(report)}

    def _made(self, app: str, key: str) -> list[dict[str, Any]]:
        """The reports the player made that the app's list keeps, oldest first."""
        rows = (loads(raw) for _, raw in self.store.all_app_reports(app))
        return [row for row in rows if row.get("reporter_player") == key]

    def _erase_copies(self, told: dict[str, dict[int, dict[str, Any]]]) -> None:
        """The ``chat_message`` notes of the tombstoned players' channel messages ``told`` (the other
        seats' feed entries, and the webhook messages to their apps) carry the tombstone instead."""

        def tombstone(doc: Any) -> bool:
            if not isinstance(doc, dict) or doc.get("type") != CHAT_MESSAGE:
                return False
            chat = doc.get("chat")
            if not isinstance(chat, dict) or not isinstance(chat.get("id"), int):
                return False
            new = told.get(str(doc.get("match_id")), {}).get(chat["id"])
            if new is None or chat == new:
                return False
            doc["chat"] = new
            return True

        if not told:
            return
        readers: set[str] = set()
        if self.matches is not None:
            for meta in self.matches.metas(list(told)):
                if meta is not None:
                    readers.update(seating.player_keys(meta.life).values())
        if self.rewrites is not None:
            for reader in sorted(readers):
                rewrite_stream(self.rewrites, player_slot_key(reader, "feed"), tombstone)
        if self.hooks is None:
            return

        def tombstoned(body: bytes) -> bytes | None:
            try:
                doc = loads(body)
            except ValueError:
                return None
            if isinstance(doc, dict) and tombstone(doc.get("data")):
                return json.dumps(doc, separators=(",", ":"), ensure_ascii=False).encode()
            return None

        for app in sorted({split_player_key(reader)[0] for reader in readers}):
            for endpoint in self.hooks.endpoint_ids(app):
                self.hooks.rewrite_bodies(app, endpoint, tombstoned)

    def _erase_reasons(self, made: list[dict[str, Any]]) -> int:
        """Null the reasons of the player's reports ``made`` in their matches' own lists (found there
        by message, reporter handle and time): how many."""
        done = 0
        for match_id in dict.fromkeys(str(r["match_id"]) for r in made):
            mine = {(r["message"]["id"], r["reporter"], r["at"]) for r in made if r["match_id"] == match_id}
            for _ in range(5):  # a report written meanwhile moved the list: read again
                changes = []
                for index, raw in enumerate(self.store.raw_reports(match_id)):
                    report = loads(raw)
                    if (report.get("message_id"), report.get("reporter"), report.get("at")) not in mine:
                        continue
                    if report.get("reason") is not None:
                        changes.append((index, raw.decode(), dumps({**report, "reason": None})))
                rewritten = self.store.rewrite_reports(match_id, changes)
                done += rewritten
                if rewritten == len(changes):
                    break
        return done

    def erase(self, app: str, player: str, placeholder: str) -> int:
        key = player_key(app, player)
        done = 0
        told: dict[str, dict[int, dict[str, Any]]] = {}  # match -> message id -> its tombstone
        for match_id in self._matches(key):
            for channel in CHANNELS:
                changes = []
                for raw in self.store.raw_messages(match_id, channel):
                    row = loads(raw)
                    if row.get("player") != key:
                        continue
                    event_id = str(row.pop("event_id", "") or "")
                    row.pop("player", None)
                    row.update(name=placeholder, text="", erased=True)
                    changes.append((int(row["id"]), raw.decode(), dumps(row), event_id))
                    if channel == CHANNELS[0]:
                        told.setdefault(match_id, {})[int(row["id"])] = shown(row)
                done += self.store.rewrite(match_id, channel, changes)
        self._erase_copies(told)
        self.store.unindex(key)
        done += self._erase_reasons(self._made(app, key))
        return done + self._erase_reports(app, key, placeholder)

    def _erase_reports(self, app: str, key: str, placeholder: str) -> int:
        """Tombstone the player's messages and reasons in the app's list of reports: how many."""
        for _ in range(5):  # a report written meanwhile: read again
            rows = self.store.all_app_reports(app)
            changes: dict[str, str] = {}
            for entry_id, raw in rows:
                report = loads(raw)
                mine = report.get("author_player") == key
                if mine:
                    report["author_player"] = None
                    report["message"].update(name=placeholder, text="", erased=True)
                if report.get("reporter_player") == key:
                    mine = True
                    report.update(reporter_player=None, reason=None)
                if mine:
                    changes[entry_id] = dumps(report)
            if not changes:
                return 0
            done = self.store.rewrite_app_reports(app, rows[-1][0], changes)
            if done != 0:
                return len(changes) if done == 1 else 0
        return 0


def as_reported(report: dict[str, Any]) -> dict[str, Any]:
    """A report of the app's list as its match's moderators read it (``GET .../chat/reports``)."""
    message = report["message"]
    return {
        "message_id": message["id"],
        "channel": message["channel"],
        "author": message["author"],
        "reporter": report["reporter"],
        "reason": report["reason"],
        "at": report["at"],
    }
