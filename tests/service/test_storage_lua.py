"""The storage's Lua scripts (``service/storage/lua``): every file shipped is a script some store runs,
every script a store registers is made of files that exist, and Redis compiles each one as the store
sends it (a script's helpers joined before it, :func:`service.storage.lua.source`)."""

from __future__ import annotations

import re
from importlib.resources import files
from pathlib import Path

import redis

from service.storage import lua

STORAGE = Path(lua.__file__).parent.parent
#: A store's ``script(client, "helpers", ..., "name")`` (every store registers its scripts so).
REGISTERED = re.compile(r'script\(\s*client((?:,\s*"[a-z_]+")+)\s*\)')


def registered() -> list[tuple[str, ...]]:
    """The scripts the storage modules register, as the files each is made of."""
    return [
        tuple(re.findall(r'"([a-z_]+)"', m.group(1)))
        for path in sorted(STORAGE.glob("*.py"))
        for m in REGISTERED.finditer(path.read_text())
    ]


def test_every_lua_file_is_part_of_a_script_a_store_runs() -> None:
    shipped = {p.name.removesuffix(".lua") for p in files(lua).iterdir() if p.name.endswith(".lua")}
    used = {name for names in registered() for name in names}
    assert len(registered()) > 40
    assert used == shipped


def test_redis_compiles_every_script_a_store_sends(redis_client: redis.Redis) -> None:
    for names in registered():
        digest = redis_client.script_load(lua.source(*names))  # a Lua syntax error raises here
        assert redis_client.script_exists(digest) == [True], names
