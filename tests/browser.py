"""Headless Chromium for the report's browser tests, driven by Playwright.

The browser is Debian's `chromium` (`/usr/bin/chromium`, or the executable named by
`PACMAN_ARENA_CHROMIUM`), launched by path: nothing downloads a browser. `make setup` and
`make test` install it when missing (as root), so a missing browser here is a failure that
says what to install, never a skip: CI must run these tests.

`browser_page` gives a fresh page and the errors it logged (console errors, uncaught
exceptions, dialogs such as an injected `alert`); a test that leaves any unexpected error
fails at teardown. A test that provokes an error on purpose takes it with `expect_error`.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from playwright.sync_api import Browser, ConsoleMessage, Dialog, Page, expect, sync_playwright

#: The environment variable naming the Chromium executable (the Makefile exports it too).
CHROMIUM_ENV = "PACMAN_ARENA_CHROMIUM"
DEFAULT_CHROMIUM = "/usr/bin/chromium"
#: Flags that work here, as root, in a container, offline.
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)


#: Every wait of a browser test has this deadline (ms): generous, so that a machine busy with
#: other work still passes; a wait ends as soon as its condition holds.
DEADLINE_MS = 30_000
expect.set_options(timeout=DEADLINE_MS)


def chromium_path() -> Path:
    return Path(os.environ.get(CHROMIUM_ENV) or DEFAULT_CHROMIUM)


@pytest.fixture(scope="session")
def chromium() -> Iterator[Browser]:
    path = chromium_path()
    if not (path.is_file() and os.access(path, os.X_OK)):
        pytest.fail(
            f"the browser tests need Chromium at {path}: run `make setup` as root (it runs "
            f"`apt-get install chromium`), install Debian's `chromium` package yourself, or "
            f"set {CHROMIUM_ENV} to a Chromium executable",
            pytrace=False,
        )
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(path), headless=True, args=list(FLAGS)
        )
        try:
            yield browser
        finally:
            browser.close()


@dataclass
class BrowserPage:
    """A page and what went wrong in it so far."""

    page: Page
    errors: list[str] = field(default_factory=list)

    def expect_error(self, fragment: str) -> None:
        """Take the errors containing `fragment` (at least one must have been logged)."""
        matching = [e for e in self.errors if fragment in e]
        assert matching, f"expected an error containing {fragment!r}, got {self.errors}"
        self.errors[:] = [e for e in self.errors if fragment not in e]

    def _console(self, message: ConsoleMessage) -> None:
        if message.type == "error":
            self.errors.append(f"console error: {message.text}")

    def _dialog(self, dialog: Dialog) -> None:
        self.errors.append(f"dialog {dialog.type}: {dialog.message}")
        dialog.dismiss()


@pytest.fixture
def browser_page(chromium: Browser) -> Iterator[BrowserPage]:
    context = chromium.new_context(viewport={"width": 1000, "height": 900})
    page = context.new_page()
    # Deadlines, not sleeps: generous, so that a machine busy with other work still passes.
    page.set_default_timeout(DEADLINE_MS)
    watched = BrowserPage(page)
    page.on("console", watched._console)
    page.on("pageerror", lambda error: watched.errors.append(f"page error: {error}"))
    page.on("dialog", watched._dialog)
    try:
        yield watched
    finally:
        context.close()
    if watched.errors:
        pytest.fail("the page logged errors:\n" + "\n".join(watched.errors), pytrace=False)
