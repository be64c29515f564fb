"""``/docs`` in real headless Chromium: Swagger UI, served from the service's own files, renders our
OpenAPI 3.1 spec, every operation and an action schema.  Swagger UI 4 (``swagger-ui-bundle`` 1.1) showed
"Unable to render this definition" here; the page must never need the network (any request leaving the
server fails the test)."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page

from bench.api import free_port, start_server
from devtools.private_redis import PrivateRedis
from tests.e2e.browser import SCREENSHOT_DIR, confine, launch


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    yield from launch()


pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    with PrivateRedis() as redis_url:
        port = free_port()
        server = start_server(redis_url, port, workers=1)
        try:
            yield f"http://127.0.0.1:{port}"
        finally:
            server.terminate()
            server.wait(timeout=30)


def offline_page(browser: Browser, base_url: str, outside: list[str]) -> Page:
    """A page whose requests to anywhere but ``base_url`` are aborted and noted in ``outside``."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    confine(page, base_url, outside)
    return page


def test_docs_renders_every_operation_and_an_action_schema(browser, base_url, tmp_path):
    with urllib.request.urlopen(f"{base_url}/openapi.json") as resp:
        spec = json.load(resp)
    # China's "place" action, whatever the spec names it (R26: a piece, where, and the cards paid).
    place = next(
        name
        for name, schema in spec["components"]["schemas"].items()
        if {"piece", "target", "pay"} <= set(schema.get("properties", {}))
    )
    operations = [
        (method.upper(), path)
        for path, item in spec["paths"].items()
        for method in item
        if method in {"get", "post", "put", "patch", "delete"}
    ]
    outside: list[str] = []
    errors: list[str] = []
    page = offline_page(browser, base_url, outside)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{base_url}/docs")
    page.wait_for_selector(".opblock", timeout=30_000)
    assert page.locator("text=Unable to render this definition").count() == 0
    assert "3.1" in page.locator(".info .version-stamp, .info").first.inner_text()
    shown = {
        (b.locator(".opblock-summary-method").inner_text().strip(),
         b.locator(".opblock-summary-path").get_attribute("data-path") or "")
        for b in page.locator(".opblock").all()
    }  # fmt: skip
    missing = [op for op in operations if op not in shown]
    assert not missing, f"operations not shown: {missing}"
    # An action schema: Swagger UI 5 draws each 3.1 schema as a JSON Schema 2020-12 accordion.
    title = spec["components"]["schemas"][place].get("title", place)
    model = page.locator(
        'article[data-json-schema-level="0"]',
        has=page.locator(".json-schema-2020-12__title", has_text=title),
    ).first
    model.scroll_into_view_if_needed()
    model.locator(".json-schema-2020-12-expand-deep-button").first.click()
    expanded = model.inner_text()
    assert "piece" in expanded and "target" in expanded and "pay" in expanded, expanded
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(Path(SCREENSHOT_DIR or tmp_path) / "api-docs.png"))
    assert not outside, f"/docs reached outside the server: {outside}"
    assert not errors, errors
