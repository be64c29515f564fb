"""The storage's Lua scripts, one file each beside this module, named ``<store>_<what>.lua``.

Each file starts with what it takes (KEYS, ARGV) and what it returns.  A few files hold helpers that
several scripts of one store share (``seek_pairing``, ``webhook_lib``, ``tournament_expire``): a script
that uses them names them first, and runs as those files and its own, joined in that order, so Redis
still sees one self-contained script (one ``EVALSHA``, one cluster slot).  Nothing else is added: the
text Redis runs is the files' text.
"""

from __future__ import annotations

from functools import cache
from importlib.resources import files

import redis
from redis.commands.core import Script


@cache
def source(*names: str) -> str:
    """The text of the scripts ``names`` (file names without ``.lua``), joined in that order."""
    return "\n".join(files(__name__).joinpath(f"{name}.lua").read_text() for name in names)


def script(client: redis.Redis, *names: str) -> Script:
    """The script made of ``names`` (see :func:`source`), registered with ``client``: called, it runs
    by its digest and loads itself on a server that does not know it yet."""
    return client.register_script(source(*names))
