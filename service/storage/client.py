"""The Redis clients of a process: how they connect, time out and retry, the pool a block of code may
hold one connection of, a cheaper readiness check than redis-py's, and writes that wait for replicas.

Every store of :mod:`service.storage` runs over a client made here (:func:`connect`), so every Redis
call has a short timeout and a hung Redis is a quick error (:data:`STORAGE_ERRORS`: the API's 503),
not a hung request.  A process has two: the state Redis (one server, or a Redis Cluster) and the queue
Redis of RQ, which does not support a cluster (:func:`connect_clients`).
"""

from __future__ import annotations

import contextlib
import select
import socket
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import gevent.socket
import redis
from gevent import getcurrent, monkey
from redis._parsers import _HiredisParser
from redis.backoff import ExponentialBackoff, NoBackoff
from redis.cluster import RedisCluster
from redis.commands.core import Script
from redis.exceptions import RedisClusterException
from redis.retry import Retry

from service.config import Config

#: What a failing Redis raises: redis-py's errors, and its cluster client's own (a slot without a
#: reachable master while a failover settles) which are not ``RedisError``s.
STORAGE_ERRORS: tuple[type[Exception], ...] = (redis.RedisError, RedisClusterException)

#: The operating system's ``poll``, whether or not gevent patched ``select`` (see :class:`QuickCheckParser`).
_os_poll = monkey.get_original("select", "poll")

#: Milliseconds a replicated write waits for its replicas at most (see :func:`write_replicated`).
WAIT_MS = 1000

#: What an operator does about :class:`ReplicasMissing`.
REPLICAS_FIX = "set TABLETOP_REDIS_WAIT_REPLICAS=0 or add replicas to every master"


@dataclass(frozen=True)
class Clients:
    """The clients of one process: ``state`` (matches, players, apps, ...; a cluster with
    ``redis_cluster``) and ``queue`` (RQ's: bot turns, hints, worker heartbeats, the lanes), which is
    ``state`` itself unless a queue Redis of its own is configured.  ``wait_replicas``: replicas a
    match's write waits for (:func:`write_replicated`), at most ``wait_ms`` milliseconds."""

    state: redis.Redis
    queue: redis.Redis
    wait_replicas: int = 0
    wait_ms: int = WAIT_MS


def connect_clients(
    config: Config, *, timeout: float | None = None, max_connections: int | None = None
) -> Clients:
    """The clients of a :class:`service.config.Config`: its state Redis (a cluster with
    ``redis_cluster``) and its queue Redis (``queue_redis_url``, else the state Redis)."""
    state = connect(
        config.redis_url, timeout=timeout, max_connections=max_connections, cluster=config.redis_cluster
    )
    wait = config.redis_wait_replicas if config.redis_cluster else 0
    queue = state
    if config.queue_redis_url and config.queue_redis_url != config.redis_url:
        queue = connect(config.queue_redis_url, timeout=timeout, max_connections=max_connections)
    return Clients(state, queue, wait, wait_ms(timeout))


def connect(
    url: str, *, timeout: float | None = None, max_connections: int | None = None, cluster: bool = False
) -> redis.Redis:
    """A client for the API and the workers: every command fails after ``timeout`` seconds (connect or
    reply), and a command whose connection dropped is retried once on a new one; a timeout is not
    retried, so a hung Redis costs a caller one timeout, not several.  With ``max_connections`` the
    pool blocks (up to ``timeout``) rather than opening more (per node, on a cluster).

    ``cluster``: ``url`` names any node of a Redis Cluster; the client finds the others and follows
    the slots as they move.  While a failover settles it retries a few times with a short backoff
    (up to about a second), then the caller gets the error (the API's 503).
    """
    options: dict[str, Any] = {"socket_timeout": timeout, "socket_connect_timeout": timeout}
    if cluster:
        options["retry"] = Retry(ExponentialBackoff(cap=0.5, base=0.05), 4)
        if max_connections is not None:
            options.update(
                connection_pool_class=redis.BlockingConnectionPool, max_connections=max_connections
            )
        return RedisCluster.from_url(url, **options)  # type: ignore[return-value]  # the same commands
    options["retry"] = Retry(NoBackoff(), 1, supported_errors=(redis.ConnectionError,))
    options["retry_on_error"] = [redis.ConnectionError]
    options["parser_class"] = QuickCheckParser  # a cluster's nodes take redis-py's own
    if max_connections is None:
        return redis.Redis.from_url(url, **options)
    pool = HoldingPool.from_url(url, max_connections=max_connections, timeout=timeout, **options)
    return redis.Redis(connection_pool=pool)


class QuickCheckParser(_HiredisParser):
    """redis-py's hiredis parser with a cheaper readiness check (is anything unread on the
    connection, did the server close it) and no debug line per published message.

    The pool checks each connection it hands out, and the live reader's subscription asks before
    every message it reads.  Under gevent redis-py's check goes through gevent's ``poll`` (a poller,
    an event-loop watcher and a timer per call, even for a check that never waits), twice for a
    readable socket (readable, then closed): about 4% of a server process's CPU serving moves and
    long-polls (issue 30).  Here the kernel's ``poll`` answers a check that need not wait; a wait
    with nothing to read yet is one event-loop watcher on the socket; a readable socket holds data or
    the server's close, which a one-byte peek tells apart (end of file), as redis-py does.  With the
    debug line gone, the reader's CPU to wake for one message falls by about a third
    (``bench/reader_wake.py``).  TLS keeps redis-py's own check: bytes may wait above the socket."""

    def can_read(self, timeout: float | None = 0) -> bool:
        sock, reader = self._sock, self._reader
        if sock is None or not reader or hasattr(sock, "pending"):
            return bool(super().can_read(timeout))  # gone (redis-py raises), or TLS
        if reader.has_data():
            return True
        if not _readable(sock, 0) and (timeout == 0 or not _readable(sock, timeout)):
            return False
        try:
            closed = sock.recv(1, socket.MSG_PEEK) == b""
        except BlockingIOError:  # taken meanwhile: the reply is read as it comes, as redis-py does
            closed = False
        except OSError:
            closed = True
        if closed:
            raise redis.ConnectionError("Connection closed by server.")
        return True

    def handle_pubsub_push_response(self, response: Any) -> Any:
        # redis-py's formats every message into a debug line, logged or not (about a tenth of the
        # reader's CPU per message); the message itself goes on as redis-py hands it on.
        return response


def _readable(sock: Any, timeout: float | None) -> bool:
    """Whether ``sock`` is readable (data, or closed) within ``timeout`` seconds (``None``: however
    long).  Asked now, the kernel answers; a wait under gevent is one event-loop watcher on the socket
    (gevent's ``poll`` also builds a poller and a result set per call), elsewhere the kernel's poll."""
    if timeout != 0 and monkey.is_module_patched("socket"):
        try:
            gevent.socket.wait_read(sock.fileno(), timeout)
        except TimeoutError:
            return False
        except OSError:  # closed under the wait: readable, and the caller's peek tells it closed
            pass
        return True
    poller = _os_poll()
    poller.register(sock, select.POLLIN)
    return bool(poller.poll(None if timeout is None else timeout * 1000))


class HoldingPool(redis.BlockingConnectionPool):
    """redis-py's blocking pool, where a block of code (:func:`holding`) may keep the one connection
    its commands take until it ends, instead of taking one from the pool per command.

    Taking a connection is not free: besides the pool's own bookkeeping, redis-py polls the socket
    to make sure nothing unread is left on it (:class:`QuickCheckParser`); a move's load and commit
    took a connection each (issue 30 point 2).  Within a block nothing else
    uses the connection between its commands, so the check on taking it is made once.  Holding is
    per greenlet (a thread is a greenlet too, its main one), whether or not gevent patched the
    standard library, so concurrent requests never share a connection; a block holds at most one, as
    a request used at most one at a time before, so the pool's bound is unchanged.  A command that
    fails disconnects the connection as ever (redis-py's error handling), and the next command of
    the block reconnects it."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: greenlet -> the connection its block holds (an empty list until its first command)
        self._held: dict[Any, list[Any]] = {}

    def get_connection(self, *args: Any, **kwargs: Any) -> Any:
        held = self._held.get(getcurrent()) if self._held else None
        if held is None:
            return super().get_connection()
        if not held:
            held.append(super().get_connection())
        return held[0]

    def release(self, connection: Any) -> None:
        held = self._held.get(getcurrent()) if self._held else None
        if held and held[0] is connection:
            return  # given back when the block ends
        super().release(connection)

    @contextlib.contextmanager
    def holding(self) -> Iterator[None]:
        me = getcurrent()
        if me in self._held:  # nested: the outer block holds it
            yield
            return
        held: list[Any] = []
        self._held[me] = held
        try:
            yield
        finally:
            del self._held[me]
            if held:
                super().release(held[0])


@contextlib.contextmanager
def holding(client: redis.Redis) -> Iterator[None]:
    """The block's commands on ``client`` go over one pooled connection, taken once
    (:class:`HoldingPool`; a move's load and commit); elsewhere (a cluster, a client without that
    pool) a block like any other."""
    pool = getattr(client, "connection_pool", None)
    if not isinstance(pool, HoldingPool):
        yield
        return
    with pool.holding():
        yield


def wait_ms(timeout: float | None) -> int:
    """How long ``WAIT`` may block on a client whose commands time out after ``timeout`` seconds: half
    of it (at most :data:`WAIT_MS`), so ``WAIT``'s reply, the count of replicas that confirmed, arrives
    before the client gives up.  A ``WAIT`` as long as the timeout was cut off by it, and a cluster
    without replicas answered every write with a bare timeout that named no cause."""
    return WAIT_MS if timeout is None else min(WAIT_MS, int(timeout * 500))


class ReplicasMissing(redis.RedisError):
    """A cluster write that fewer replicas confirmed than ``TABLETOP_REDIS_WAIT_REPLICAS`` asks for: a
    passing lag, or (when it lasts) a cluster with fewer replicas than the setting, which only the
    operator can fix; the message says how."""

    def __init__(self, acked: int, wanted: int, waited_ms: int) -> None:
        super().__init__(
            f"WAIT: {acked} of {wanted} replica(s) acknowledged the write within {waited_ms} ms; "
            f"{REPLICAS_FIX}"
        )


def write_replicated(
    client: redis.Redis, script: Script, keys: list[str], args: list[Any], replicas: int, waited_ms: int
) -> Any:
    """Run a write script; with ``replicas`` (a cluster's setting), then ``WAIT`` on the same
    connection until that many replicas have it.  Replication is asynchronous: a master killed
    between its reply and its replica's copy would lose an acknowledged move when the replica
    takes over; after ``WAIT`` it cannot.  A write the replicas did not confirm in ``waited_ms``
    raises (the API's 503: the move may or may not stand, the client reloads), never reports success.

    The script and ``WAIT`` go to the slot's master over one connection of its own (``WAIT``
    counts that connection's writes); a master that moved or died refreshes the slot map and the
    caller retries."""
    if not replicas:
        return script(keys=keys, args=args)
    cluster: RedisCluster = client  # type: ignore[assignment]
    node = cluster.get_redis_connection(cluster.get_node_from_key(keys[0]))
    pipe = node.pipeline(transaction=False)
    script(keys=keys, args=args, client=pipe)
    pipe.execute_command("WAIT", replicas, waited_ms)
    try:
        reply, acked = pipe.execute()
    except (redis.ConnectionError, redis.TimeoutError, redis.ResponseError):
        cluster.nodes_manager.initialize()  # a failover moved the slot: the next call finds it
        raise
    if int(acked) < replicas:
        raise ReplicasMissing(int(acked), replicas, waited_ms)
    return reply


def replicas_missing(client: redis.Redis, replicas: int) -> str | None:
    """Why writes cannot be confirmed by ``replicas`` replicas (a master of the cluster ``client``
    with fewer connected ones), or ``None``: ``/readyz`` tells the operator rather than every write
    failing with a bare 503."""
    if not replicas:
        return None
    cluster: RedisCluster = client  # type: ignore[assignment]
    fewest = min(
        int(cluster.get_redis_connection(node).info("replication").get("connected_slaves", 0))
        for node in cluster.get_primaries()
    )
    if fewest >= replicas:
        return None
    return f"a master has {fewest} of the {replicas} replica(s) writes wait for; {REPLICAS_FIX}"
