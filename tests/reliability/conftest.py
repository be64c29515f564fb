"""Reliability tests that run the app in process share the service tests' Redis server."""

from tests.service.conftest import redis_url  # noqa: F401  (session fixture shared with tests/service)
