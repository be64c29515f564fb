"""URL matching that remembers what recent paths matched (issue 30 point 2).

werkzeug matches a path by walking its state machine in Python, a regular expression per dynamic
segment, on every request; among our 71 rules that is a few per cent of a health check's or a move's
CPU in a served process.  What a path matches depends only on the rules and on the request's domain
part, path, method and whether it is a websocket, so the answer for the same four is the same until
a rule is added.  The remembered answers are the recent matches only (a path that matches no rule, or
one that redirects, raises and is not kept), and they are forgotten all at once when there are
:data:`REMEMBERED_PATHS` of them (one per match in play plus a few fixed paths), short paths only.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import Any

from werkzeug.routing import Map, Rule
from werkzeug.routing.matcher import StateMachineMatcher

#: Paths remembered at most (each a tuple key and a rule with a small dict of its arguments).
REMEMBERED_PATHS = 4096
#: The longest path remembered: ours are short (a match id is 16 characters), and a client sending
#: long ones that match (a made-up id of kilobytes) should not make the memory large.
REMEMBERED_PATH_LENGTH = 200


class RememberingMatcher(StateMachineMatcher):
    """werkzeug's matcher, answering a path it matched since the last change of rules from memory."""

    def __init__(self, merge_slashes: bool) -> None:
        super().__init__(merge_slashes)
        self._known: dict[tuple[str, str, str, bool], tuple[Rule, MutableMapping[str, Any]]] = {}

    def update(self) -> None:
        """The map calls this before it matches after a rule was added: what was remembered may be
        wrong now (a static rule added takes a path from a dynamic one)."""
        self._known = {}
        super().update()

    def match(self, domain: str, path: str, method: str, websocket: bool) -> tuple[Rule, dict[str, Any]]:
        key = (domain, path, method, websocket)
        known = self._known.get(key)
        if known is None:
            known = super().match(domain, path, method, websocket)
            if len(path) <= REMEMBERED_PATH_LENGTH:
                if len(self._known) >= REMEMBERED_PATHS:
                    self._known = {}
                self._known[key] = known
        # The arguments are the caller's to change: Flask passes them to the view as keywords.
        return known[0], dict(known[1])


class RememberingMap(Map):
    """A :class:`~werkzeug.routing.Map` whose matcher is a :class:`RememberingMatcher`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        rules = list(self.iter_rules())  # a map made with rules has added them to the first matcher
        self._matcher = RememberingMatcher(self.merge_slashes)
        for rule in rules:
            self._matcher.add(rule)
