"""Headless Chromium (Debian's package, never a downloaded browser) for tests that need a page,
driven by Playwright: its locators pierce the widget's shadow DOM and `expect` waits by itself."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import Page

CHROMIUM = "/usr/bin/chromium"
SCREENSHOTS = Path(__file__).resolve().parent.parent / "var" / "screenshots"
TIMEOUT_MS = 30_000

needs_chromium = pytest.mark.skipif(
    not Path(CHROMIUM).exists(),
    reason=f"needs Debian's chromium at {CHROMIUM} (apt-get install chromium)",
)

FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]


@contextmanager
def _django_sync_calls_allowed() -> Iterator[None]:
    """Playwright's sync API keeps its event loop registered as running in this thread, so
    Django would refuse the test's own ORM calls as if they came from async code; they do not."""
    before = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = before


@contextmanager
def chromium(
    width: int = 1280, height: int = 900, *, mobile: bool = False, scale: float = 1
) -> Iterator[Page]:
    """A fresh browser (its own profile) showing one page of `width` x `height` CSS pixels;
    `mobile` emulates a phone (meta viewport, touch) at `scale` device pixels per CSS pixel."""
    from django.db import connections
    from playwright.sync_api import sync_playwright

    with _django_sync_calls_allowed(), sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        try:
            context = browser.new_context(
                viewport={"width": width, "height": height},
                device_scale_factor=scale,
                is_mobile=mobile,
                has_touch=mobile,
            )
            context.set_default_timeout(TIMEOUT_MS)
            yield context.new_page()
        finally:
            browser.close()
            # With Playwright's loop running, Django keeps the connections of the test's ORM
            # calls in this block apart from the test's own (they are local to the loop's
            # context), and nothing else closes them: left open, the test database cannot be
            # dropped at the end of the session.
            connections.close_all()


def screenshot(page: Page, name: str) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path))
    return path


PHONE = (390, 844)
LAPTOP = (1366, 768)


def sign_in(page: Page, base_url: str, username: str, password: str) -> None:
    """Signs in to the admin console through its own form, as a person would."""
    from playwright.sync_api import expect

    page.goto(f"{base_url}/admin/login/")
    page.locator("[name=username]").fill(username)
    page.locator("[name=password]").fill(password)
    page.locator("input[type=submit]").click()
    expect(page.locator("#user-tools, .errornote").first).to_be_visible()
    if not page.locator("#user-tools").count():
        raise AssertionError(f"sign-in failed: {page.locator('body').inner_text()}")


def overflow_px(page: Page) -> int:
    """How far the page is wider than the window (0: nothing scrolls sideways)."""
    return int(
        page.evaluate(
            "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
        )
    )


def page_height(page: Page) -> int:
    return int(page.evaluate("() => document.documentElement.scrollHeight"))


def right_edge(page: Page, css: str) -> float:
    """Where an element ends on the x axis, in CSS pixels from the window's left."""
    box = page.locator(css).first.bounding_box()
    assert box is not None, f"{css} is not laid out"
    return float(box["x"] + box["width"])


def window_width(page: Page) -> int:
    return int(page.evaluate("() => document.documentElement.clientWidth"))
