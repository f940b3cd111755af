"""Fixtures for the browser client's tests: Debian's chromium, driven by Playwright,
against the real server on a free port.

* ``browser``: one headless chromium for the package (``/usr/bin/chromium``, from
  ``make services``). Skipped when it or Playwright is missing; a failure instead under
  ``FLOWERGARDEN_REQUIRE_SERVICES=1``. Nothing is downloaded: Playwright's own browsers
  are never installed, its wheel's driver launches the system's chromium.
* ``start_web(**settings)``: a :class:`~server.app.GameServer` with those settings and an
  SQLite file of the test's own, on port 0, running on an event loop in a thread of its
  own (Playwright's sync API runs the test's thread); ``web`` is one with the defaults.
* ``new_page(url, width=, height=)``: a page in a fresh browser context (its own
  localStorage: one player); a JavaScript error in any page fails the test.

Every wait is Playwright's (``expect``, ``wait_for``): nothing sleeps.
"""

from __future__ import annotations

import asyncio
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from server.app import GameServer
from server.config import Settings
from server.store.backends import open_store
from tests import services

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

CHROMIUM = Path(os.environ.get("FLOWERGARDEN_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
WAIT_MS = 10_000
"""How long a test waits for the page: far longer than any local round trip."""


def _missing(reason: str) -> None:
    if services.services_required():
        pytest.fail(f"FLOWERGARDEN_REQUIRE_SERVICES=1 but {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="package")
def browser() -> Iterator[Any]:
    if not CHROMIUM.exists():
        _missing(f"chromium is not installed ({CHROMIUM}): run `make services`")
    try:
        from playwright.sync_api import expect, sync_playwright
    except ImportError:
        _missing("playwright is not installed: run `make venv`")
    expect.set_options(timeout=WAIT_MS)
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


# -- the server, on a loop of its own ---------------------------------------------


@dataclass
class WebServer:
    """A real server on port 0, on an event loop in its own thread."""

    settings: Settings
    url: str = ""
    loop: asyncio.AbstractEventLoop | None = None
    _ready: threading.Event = field(default_factory=threading.Event)
    _failed: BaseException | None = None
    _stop: asyncio.Event | None = None
    _thread: threading.Thread | None = None

    @property
    def base(self) -> str:
        """The page's address: ``http://127.0.0.1:PORT/``."""
        return self.url.replace("ws://", "http://").removesuffix("ws")

    @property
    def port(self) -> int:
        return int(self.url.rsplit(":", 1)[1].split("/")[0])

    def start(self) -> WebServer:
        self._thread = threading.Thread(target=self._run, name="web-server", daemon=True)
        self._thread.start()
        if not self._ready.wait(20):
            raise AssertionError("the server did not start in 20 s")
        if self._failed is not None:
            raise self._failed
        return self

    def _run(self) -> None:
        try:
            asyncio.run(self._serve())
        except BaseException as exc:  # reported to the test's thread
            self._failed = exc
            self._ready.set()

    async def _serve(self) -> None:
        self.loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        async with GameServer(self.settings, open_store(self.settings.db)) as server:
            self.url = server.url
            self._ready.set()
            await self._stop.wait()

    def stop(self) -> None:
        if self.loop is not None and self._stop is not None and not self.loop.is_closed():
            self.loop.call_soon_threadsafe(self._stop.set)
        if self._thread is not None:
            self._thread.join(20)
            assert not self._thread.is_alive(), "the server did not stop in 20 s"


@pytest.fixture
def start_web(tmp_path: Path) -> Iterator[Callable[..., WebServer]]:
    """``start_web(grace=2, port=..., db=...)``: a running server with these settings."""
    running: list[WebServer] = []

    def start(**settings: Any) -> WebServer:
        settings.setdefault("db", str(tmp_path / "web.sqlite3"))
        config = Settings(host="127.0.0.1", **{"port": 0, **settings})
        server = WebServer(config).start()
        running.append(server)
        return server

    yield start
    for server in running:
        server.stop()


@pytest.fixture
def web(start_web: Callable[..., WebServer]) -> WebServer:
    return start_web()


# -- pages --------------------------------------------------------------------------


@pytest.fixture
def new_page(browser: Any) -> Iterator[Callable[..., Any]]:
    """``new_page(url, width=1280, height=900, **context)``: a page of a new player."""
    contexts: list[Any] = []
    errors: list[str] = []

    def make(
        url: str | None = None, *, width: int = 1280, height: int = 900, **options: Any
    ) -> Any:
        context = browser.new_context(viewport={"width": width, "height": height}, **options)
        context.set_default_timeout(WAIT_MS)
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(f"{page.url}: {error}"))
        if url is not None:
            page.goto(url)
            # The page reads its catalogue before it draws; words a test asks of its
            # modules need it read too (a busy machine answers the test first).
            page.evaluate('async () => (await import("/js/i18n.js")).startLanguage()')
        return page

    yield make
    for context in contexts:
        context.close()
    assert not errors, f"JavaScript errors in the page: {errors}"
