"""The wire a live reader writes a stream to itself (``service.live.wire.Wire``), over a real socket pair:
what the socket does not take at once is owed and sent later in order, and a client that stops reading
for good is dropped, not buffered without bound (issue 30: fan-out written once per connection)."""

from __future__ import annotations

import select
import socket
import threading

from service.http.admission import chunk
from service.live.wire import MAX_OWED, Wire


def pair() -> tuple[socket.socket, socket.socket, Wire]:
    server, client = socket.socketpair()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    server.setblocking(False)

    def send(data: bytes) -> int:
        try:
            return server.send(data)
        except BlockingIOError:
            return 0

    def send_all(data: bytes) -> None:
        view = memoryview(data)
        while view:
            select.select([], [server], [], 5)
            try:
                view = view[server.send(view) :]
            except BlockingIOError:
                continue

    return server, client, Wire(send, send_all, chunk)


def read_exactly(sock: socket.socket, size: int) -> bytes:
    got = bytearray()
    sock.settimeout(10)
    while len(got) < size:
        data = sock.recv(65536)
        assert data, "the connection closed early"
        got += data
    return bytes(got)


def test_what_the_socket_does_not_take_is_owed_and_flushed_in_order() -> None:
    server, client, wire = pair()
    bodies = [b'{"n":%d,"pad":"%s"}\n' % (i, b"x" * 300) for i in range(200)]
    framed = [wire.frame(b) for b in bodies]
    woken = [wire.offer(data) for data in framed]
    assert any(woken) and wire.owed  # the socket's buffer filled: the rest is owed
    assert not woken[0]  # the first went out at once
    expected = b"".join(framed)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(read_exactly(client, len(expected))))
    reader.start()
    wire.flush()  # the stream's own greenlet sends what is owed
    reader.join(10)
    assert not wire.owed and not wire.broken
    assert received == [expected]
    server.close()
    client.close()


def test_a_client_that_stops_reading_is_dropped_past_the_cap() -> None:
    server, client, wire = pair()
    body = wire.frame(b"y" * 65536)
    for _ in range(MAX_OWED // len(body) + 2):
        wire.offer(body)
    assert wire.broken and not wire.owed  # dropped, its buffer freed; it reconnects with its last id
    assert wire.offer(body) is True  # and nothing more is written or kept
    assert not wire.owed
    server.close()
    client.close()


def test_a_gone_client_breaks_the_wire() -> None:
    server, client, wire = pair()
    client.close()
    assert wire.offer(wire.frame(b"z\n")) is True
    for _ in range(3):  # the first send may still land in the kernel's buffer
        wire.offer(wire.frame(b"z\n"))
    assert wire.broken
    server.close()
