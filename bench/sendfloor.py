"""The floor under a stream write: the CPU one bare ``send`` of an event's bytes costs on this machine.

The live reader writes each stream with one non-blocking ``send`` (``service.live.wire.Wire``).  Over
loopback the kernel runs the receiver's side of TCP inside the sender's system call, so part of what
the crowd bench counts as the server's CPU per delivered event is the kernel's, and it differs between
machines.  This measures it in the same run, with nothing of ours around it: ``connections`` plain
sockets, each read by an asyncio reader in another process, sent ``size`` bytes ``rounds`` times in
turn, a few milliseconds apart every ``group`` sends, as deliveries spread over time arrive (sent back
to back, the reader would wake once for many, and the floor would look lower than it is).
"""

from __future__ import annotations

import asyncio
import multiprocessing as mp
import resource
import socket
import time
from typing import Any


def _reader(port: int, connections: int, ready: Any) -> None:
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))

    async def one() -> None:
        reader, _ = await asyncio.open_connection("127.0.0.1", port)
        while await reader.read(65536):
            pass

    async def main() -> None:
        tasks = [asyncio.create_task(one()) for _ in range(connections)]
        while len([t for t in tasks if not t.done()]) < connections:
            await asyncio.sleep(0.05)
        ready.set()
        await asyncio.gather(*tasks, return_exceptions=True)

    asyncio.run(main())


def measure(connections: int = 1000, rounds: int = 5, size: int = 300, group: int = 20) -> float:
    """Microseconds of this process's CPU per ``send`` (see the module's docstring)."""
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(connections)
    ready = mp.Event()
    reader = mp.Process(target=_reader, args=(listener.getsockname()[1], connections, ready), daemon=True)
    reader.start()
    socks: list[socket.socket] = []
    try:
        while len(socks) < connections:
            sock, _ = listener.accept()
            sock.setblocking(False)
            socks.append(sock)
        ready.wait(60)
        data = b"x" * size
        spent = 0.0
        for _ in range(rounds):
            for i, sock in enumerate(socks):
                started = time.process_time()
                sock.send(data)
                spent += time.process_time() - started
                if i % group == group - 1:
                    time.sleep(0.005)
        return spent / (connections * rounds) * 1e6
    finally:
        for sock in socks:
            sock.close()
        listener.close()
        reader.join(10)
        if reader.is_alive():
            reader.kill()
