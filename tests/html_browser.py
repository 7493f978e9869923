"""Headless Chromium for the HTML report tests: the distribution's browser driven by Playwright.

Nothing here downloads a browser. When ``/usr/bin/chromium`` (or ``$AFP_CHROMIUM``) or the
``playwright`` package is missing, the tests FAIL with the reason: a report that was never opened
in a browser is not tested.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

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


def chromium_path() -> str:
    path = os.environ.get("AFP_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(path).exists():
        pytest.fail(
            f"headless Chromium not found at {path}: install the distribution's package "
            "(apt-get install -y chromium) or set AFP_CHROMIUM; the HTML tests need a real browser"
        )
    return path


@dataclass
class Visit:
    """One page load: the page plus everything it tried to do."""

    page: Any
    url: str
    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)

    def foreign_requests(self) -> list[str]:
        """Every request other than loading the report file itself."""
        return [u for u in self.requests if u != self.url]


class Browser:
    def __init__(self, browser: Any) -> None:
        self.browser = browser

    def open(self, path: Path, *, scripts: bool = True, width: int = 1300) -> Visit:
        ctx = self.browser.new_context(
            java_script_enabled=scripts, viewport={"width": width, "height": 900}
        )
        page = ctx.new_page()
        url = path.resolve().as_uri()
        visit = Visit(page=page, url=url)
        page.on(
            "console", lambda m: visit.console_errors.append(m.text) if m.type == "error" else None
        )
        page.on("pageerror", lambda e: visit.page_errors.append(str(e)))
        page.on("request", lambda r: visit.requests.append(r.url))

        # Anything that is not the report file is answered with an abort, so a request that
        # slipped through could never reach a real host; it is still recorded above.
        def block(route: Any) -> None:
            if route.request.url == url:
                route.continue_()
            else:
                route.abort()

        ctx.route("**/*", block)
        page.goto(url, wait_until="load")
        return visit


@pytest.fixture(scope="session", name="browser")
def chromium_browser() -> Iterator[Browser]:
    exe = chromium_path()
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail("the playwright package is missing: pip install -e '.[test]'")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=exe, args=CHROMIUM_ARGS, headless=True)
        try:
            yield Browser(b)
        finally:
            b.close()
