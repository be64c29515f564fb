"""The connection of a stream that the process's reader writes to itself (:class:`Wire`).

A stream waiting on its own greenlet costs every delivery a wake-up, a round through the response
generators and the server's write.  Once it has caught up, the reader writes its events to its wire
(:meth:`service.live.subscription.Subscription.go_direct`), encoded once for every stream of the same
seat and form (:mod:`service.live.fanout`): each stream costs one non-blocking ``send``.
"""

from __future__ import annotations

import time
from collections.abc import Callable

#: Bytes a stream may owe its client (the socket took no more) before the client is dropped as one
#: that stopped reading; it reconnects with its last id and loses nothing.
MAX_OWED = 1 << 20


class Wire:
    """A stream's connection, which the process's reader writes to itself
    (:meth:`service.live.subscription.Subscription.go_direct`).

    A stream waiting on its own greenlet costs every delivery a wake-up, a round through the response
    generators and the server's write: about 0.1 ms of CPU per write.  Written by the reader, a batch
    costs one non-blocking ``send`` of bytes encoded once for every stream of the same seat and form.
    ``send`` writes what the socket takes now (0 when it takes nothing; ``OSError`` when the client is
    gone), ``send_all`` blocks until everything is written (the stream's own greenlet only), ``frame``
    puts body bytes in the response's framing (HTTP/1.1 chunks).  What the socket does not take is owed
    (:attr:`owed`) and the stream's greenlet sends it, in order, before anything else goes out.
    """

    def __init__(
        self,
        send: Callable[[bytes], int],
        send_all: Callable[[bytes], None],
        frame: Callable[[bytes], bytes],
    ) -> None:
        self._send = send
        self._send_all = send_all
        self.frame = frame
        self.owed = bytearray()
        self.flushing = False
        self.broken = False
        #: When the last bytes went out (``time.monotonic``): heartbeats are due from it.
        self.written = time.monotonic()

    def offer(self, data: bytes) -> bool:
        """Write ``data`` (framed) now as far as the socket takes it, owing the rest; whether the
        stream's greenlet must wake (bytes owed, or the client gone)."""
        if self.broken:
            return True
        if self.owed or self.flushing:
            self.owed += data
        else:
            try:
                sent = self._send(data)
            except OSError:
                self.broken = True
                return True
            self.written = time.monotonic()
            if sent == len(data):
                return False
            self.owed += memoryview(data)[sent:]
        if len(self.owed) > MAX_OWED:
            self.broken = True
            self.owed.clear()
        return True

    def flush(self) -> None:
        """Send what is owed, blocking (the stream's own greenlet, never the reader's)."""
        self.flushing = True
        try:
            while self.owed and not self.broken:
                data = bytes(self.owed)
                self.owed.clear()
                try:
                    self._send_all(data)
                except OSError:  # gone, or not reading within the send timeout
                    self.broken = True
                self.written = time.monotonic()
        finally:
            self.flushing = False
