"""Contract tests run the app in-process over the same real Redis as the service tests."""

from tests.service.conftest import redis_url  # noqa: F401  (session fixture shared with tests/service)
