"""Headless Chromium for the browser tests: Debian's chromium (``./dev.sh test`` installs it; playwright
never downloads a browser), started with the flags this closed network needs, and pages confined to
the server under test."""

from __future__ import annotations

import os
from collections.abc import Iterator

from playwright.sync_api import Browser, Page, sync_playwright

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip
#: Where screenshots go: docs/ when retaking the docs' pictures (TABLETOP_SCREENSHOT_DIR=docs), else
#: the test's temporary directory (a test run leaves the checkout alone).
SCREENSHOT_DIR = os.environ.get("TABLETOP_SCREENSHOT_DIR")


def launch() -> Iterator[Browser]:
    """The browser, for a module-scoped fixture of the browser tests."""
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


def confine(page: Page, base_url: str, outside: list[str]) -> None:
    """Let ``page`` reach only ``base_url`` (and ``data:`` URLs); any other request is aborted and
    noted in ``outside``, for the test to fail on."""

    def route(r) -> None:  # type: ignore[no-untyped-def]
        if r.request.url.startswith(base_url) or r.request.url.startswith("data:"):
            r.continue_()
        else:
            outside.append(r.request.url)
            r.abort()

    page.route("**/*", route)


def confined_page(browser: Browser, base_url: str) -> Iterator[Page]:
    """A desktop-sized page in a browser context of its own, confined to ``base_url``, for a fixture:
    the test fails afterwards if the page reached anywhere else or raised a script error."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    pg = context.new_page()
    outside: list[str] = []
    errors: list[str] = []
    confine(pg, base_url, outside)
    pg.on("pageerror", lambda e: errors.append(str(e)))
    yield pg
    context.close()
    assert not outside, f"the client reached outside the server: {outside}"
    assert not errors, f"script errors: {errors}"
