"""The generated-client tests run a real server over the same real Redis as the service tests."""

from tests.service.conftest import redis_url  # noqa: F401  (session fixture shared with tests/service)
