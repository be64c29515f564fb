"""What a bot is to the runner: a policy that picks an action from its seat's view and legal actions.

    class Random:
        def decide(self, view, legal_actions):          # or: async def decide(...)
            return random.choice(legal_actions)

A policy is any object with ``decide(view, legal_actions) -> action``: ``view`` is the match as its
seat sees it (``view["game"]`` names the game, ``view["to_move"]`` is the seat deciding) and
``legal_actions`` the actions the API would take now; the answer is one of them (or any action the
game's schema allows).  ``decide`` may be a coroutine function: the runner awaits it on one event loop
of its own, so async policies share their clients and caches across matches.  The runner calls
``decide`` from several threads at once (one per match in play); a policy that keeps state guards it.
"""

from __future__ import annotations

import asyncio
import importlib
import importlib.util
import inspect
import sys
import threading
from collections.abc import Awaitable
from pathlib import Path
from typing import Any, Protocol

from tabletop_client.transport import Doc


class Policy(Protocol):
    """Picks an action; may be ``async``."""

    def decide(self, view: Doc, legal_actions: list[Doc]) -> Doc | Awaitable[Doc]: ...


class AsyncBridge:
    """One event loop on a thread of its own, started at the first async answer: the worker threads
    hand it their coroutines and block on the result, so a sync runner plays async policies."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock = threading.Lock()

    def resolve(self, answer: Any) -> Any:
        """``answer`` itself, or what it awaits to when it is awaitable."""
        if not inspect.isawaitable(answer):
            return answer
        return asyncio.run_coroutine_threadsafe(_awaited(answer), self._running()).result()

    def close(self) -> None:
        with self._lock:
            if self._loop is not None:
                self._loop.call_soon_threadsafe(self._loop.stop)
                self._loop = None

    def _running(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                threading.Thread(target=loop.run_forever, name="policy-loop", daemon=True).start()
                self._loop = loop
            return self._loop


async def _awaited(answer: Awaitable[Any]) -> Any:
    return await answer


def load_policy(spec: str) -> Policy:
    """The policy ``spec`` names, ``module:Name`` or ``path/to/file.py:Name``: ``Name`` is a class
    (instantiated with no argument), a factory or an object with ``decide``.  The current directory
    is importable, as ``python -m`` makes it, so ``examples.random_bot:RandomBot`` works from a
    checkout."""
    where, _, name = spec.partition(":")
    if not where or not name:
        raise ValueError(f"{spec!r}: name a policy as module:Name (or file.py:Name)")
    if where.endswith(".py"):
        found = importlib.util.spec_from_file_location(Path(where).stem, where)
        if found is None or found.loader is None:
            raise ValueError(f"{where}: not a Python file")
        module = importlib.util.module_from_spec(found)
        found.loader.exec_module(module)
    else:
        if "" not in sys.path and str(Path.cwd()) not in sys.path:
            sys.path.insert(0, str(Path.cwd()))
        module = importlib.import_module(where)
    target = getattr(module, name, None)
    if target is None:
        raise ValueError(f"{where} has no {name}")
    factory = inspect.isclass(target) or (callable(target) and not hasattr(target, "decide"))
    policy = target() if factory else target
    if not callable(getattr(policy, "decide", None)):
        raise ValueError(f"{spec}: {type(policy).__name__} has no decide(view, legal_actions)")
    return policy
