"""This process's one cache of matches (:mod:`service.storage.match_cache`): a copy is handed out only
for the version it holds, a write's copy and a read's are each the latest of their kind, and the
cache keeps at most its bound of matches, the least recently kept dropped first."""

from __future__ import annotations

import pytest

import service.storage.match_cache
from service.storage.match_cache import MatchCache, Written


def test_a_copy_is_handed_out_only_for_the_version_it_holds() -> None:
    cache: MatchCache[str] = MatchCache()
    cache.keep_write("m", 3, {"status": "active"}, b"state")
    assert cache.write_at("m", 3) == Written(3, {"status": "active"}, b"state")
    assert cache.write_at("m", 2) is None and cache.write_at("m", 4) is None
    assert cache.read_at("m", 3) is None  # nothing read
    cache.keep_read("m", 2, "meta at 2")
    assert cache.read_at("m", 2) == "meta at 2" and cache.read_at("m", 3) is None
    assert cache.write_at("m", 3) is not None  # a read leaves the write's copy alone


def test_a_write_that_leaves_nothing_to_keep_drops_the_writes_copy_only() -> None:
    cache: MatchCache[str] = MatchCache()
    cache.keep_write("m", 3, {}, b"state")
    cache.keep_read("m", 3, "meta")
    cache.forget_write("m")
    assert cache.write_at("m", 3) is None and cache.read_at("m", 3) == "meta"
    cache.forget_write("gone")  # nothing kept: nothing to do


def test_the_least_recently_kept_match_gives_way(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(service.storage.match_cache, "RECENT_MATCHES", 2)
    cache: MatchCache[str] = MatchCache()
    cache.keep_write("a", 1, {}, b"a")
    cache.keep_write("b", 1, {}, b"b")
    cache.keep_read("a", 1, "a read")  # keeping a copy of a makes it the most recent
    cache.keep_write("c", 1, {}, b"c")
    assert cache.write_at("b", 1) is None
    assert cache.write_at("a", 1) is not None and cache.write_at("c", 1) is not None
