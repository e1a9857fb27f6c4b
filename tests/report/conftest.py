"""Fixtures of the browser tests: one headless Chromium per test module, driven by Playwright.

Per module, not per session: Playwright's synchronous API runs an event loop for as long as
it is open, and a later test of the same process that runs one of its own (an Inspect
evaluation) would find it running. A module's tests run in one process, also on several
test workers (``--dist loadfile``).

Debian's ``chromium`` is used. Where it is missing, the set-up installs it when running in
CI as root (``CI=true``, as ``.ci/run`` does), and otherwise skips with the reason.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"
"""Where the browser tests save their screenshots (git-ignored)."""
SCREENSHOTS = "EVALSIG_SCREENSHOTS"
"""Set (to anything but empty) to have the browser tests save a screenshot of each page
they check: for a person to look at; no test reads them, and they take half its time."""

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _install_chromium() -> None:
    """apt-get, once: test processes running side by side take turns on a lock, and a
    later one finds the browser installed."""
    import fcntl

    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    with open("/tmp/evalsig-tests-chromium.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if shutil.which("chromium") is not None:
            return
        for command in (
            ["apt-get", "update", "-qq"],
            ["apt-get", "install", "-y", "-qq", "chromium"],
        ):
            subprocess.run(command, env=env, timeout=900, check=False, capture_output=True)


@pytest.fixture(scope="session")
def chromium() -> str:
    path = shutil.which("chromium")
    can_install = os.environ.get("CI") and shutil.which("apt-get") and os.geteuid() == 0
    if path is None and can_install:
        _install_chromium()
        path = shutil.which("chromium")
    if path is None:
        pytest.skip(
            "Chromium is not installed (Debian package 'chromium'); the test installs it "
            "itself when CI=true and it runs as root with apt-get"
        )
    return path


@pytest.fixture(scope="module")
def browser(chromium: str) -> Iterator[Any]:
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=FLAGS)
        yield browser
        browser.close()


@pytest.fixture(scope="session")
def screenshot() -> Callable[[Any, str], None]:
    """``screenshot(tab, name)``: the whole page to ``artifacts/<name>.png`` when
    :data:`SCREENSHOTS` is set, else nothing."""

    def save(tab: Any, name: str) -> None:
        if os.environ.get(SCREENSHOTS):
            ARTIFACTS.mkdir(exist_ok=True)
            tab.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)

    return save


@dataclass
class Opened:
    """A page opened offline, with what it logged, requested and tried to show."""

    tab: Any
    errors: list[str] = field(default_factory=list)
    """Console errors and uncaught exceptions."""
    requests: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)
    """Messages of alert/confirm/prompt dialogs (dismissed)."""


@pytest.fixture(scope="module")
def contexts(browser: Any) -> Iterator[dict[int | None, Any]]:
    """Browser contexts, offline, by viewport width (None: Playwright's default), made on
    first use and shared by the module's pages."""
    made: dict[int | None, Any] = {}
    yield made
    for context in made.values():
        context.close()


@pytest.fixture
def open_page(browser: Any, contexts: dict[int | None, Any]) -> Iterator[Callable[..., Opened]]:
    """``open_page(path, width=None)``: the file opened offline in a new page (of a viewport
    ``width`` px wide and 800 high, if given); the page is closed after the test."""
    pages: list[Any] = []

    def open_(path: Path, *, width: int | None = None) -> Opened:
        if width not in contexts:
            size = {} if width is None else {"viewport": {"width": width, "height": 800}}
            contexts[width] = browser.new_context(offline=True, **size)
        opened = Opened(contexts[width].new_page())
        tab = opened.tab
        pages.append(tab)
        tab.on("console", lambda m: opened.errors.append(m.text) if m.type == "error" else None)
        tab.on("pageerror", lambda e: opened.errors.append(str(e)))
        tab.on("request", lambda r: opened.requests.append(r.url))
        tab.on("dialog", lambda d: (opened.dialogs.append(d.message), d.dismiss()))
        tab.goto(path.as_uri())
        tab.wait_for_load_state("load")
        return opened

    yield open_
    for tab in pages:
        tab.close()
