"""A background thread that each process runs once (:class:`PerProcess`): the live reader, its
heartbeat sweep and its credentials' guard."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable


class PerProcess:
    """A background thread (a greenlet under gevent) that each process runs once: a forked server
    process inherits the object but not the thread, so it starts its own."""

    def __init__(self, target: Callable[[], None], name: str) -> None:
        self.target, self.name = target, name
        self.thread: threading.Thread | None = None
        self.pid = 0

    def _running(self) -> bool:
        return self.thread is not None and self.pid == os.getpid() and self.thread.is_alive()

    def ensure(self, lock: threading.Lock) -> None:
        if self._running():
            return
        with lock:
            if self._running():
                return
            self.pid = os.getpid()
            self.thread = threading.Thread(target=self.target, name=self.name, daemon=True)
            self.thread.start()
