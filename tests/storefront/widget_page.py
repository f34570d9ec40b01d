"""Driving the <shop-assistant> widget in Chromium: what its shadow DOM shows.

Playwright's CSS locators pierce open shadow roots, so `widget(page).locator(".chip")` finds
the widget's own elements."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page

STATE = """
() => {
  const host = document.querySelector('shop-assistant');
  const root = host.shadowRoot;
  const texts = (selector) => Array.from(root.querySelectorAll(selector), (n) => n.textContent);
  return {
    user: texts('.msg.user'),
    assistant: texts('.msg.assistant'),
    errors: texts('.msg.error'),
    cards: Array.from(root.querySelectorAll('.card'), (card) => ({
      name: card.querySelector('.name').textContent,
      price: card.querySelector('.price').textContent,
      stock: (card.querySelector('.stock') || {}).textContent || null,
      href: (card.querySelector('a') || {}).href || null,
      fallback: !!card.querySelector('.noimg'),
    })),
    chips: texts('.chip'),
    busy: root.querySelector('.log').getAttribute('aria-busy') === 'true',
    status: (root.querySelector('.status') || {}).textContent || null,
    announced: root.querySelector('[aria-live=polite]').textContent,
    // A live region inside a hidden element is not read out.
    liveRegionHidden: !!root.querySelector('[aria-live=polite]').closest('[hidden]'),
    lastEventId: host.lastEventId,
    streamOpen: (host.events || {}).readyState === 1,
  };
}
"""


def widget(page: Page) -> Locator:
    """The widget, once its element is on the page and has drawn its launcher."""
    from playwright.sync_api import expect

    host = page.locator("shop-assistant")
    expect(host.locator(".launcher")).to_be_attached(timeout=15_000)
    return host


def state(page: Page) -> dict[str, Any]:
    """The conversation as the widget shows it."""
    return page.evaluate(STATE)


def wait_for(page: Page, predicate, timeout: float = 30, every_ms: int = 50) -> list[dict]:
    """Every state seen until `predicate(state)` holds (the last one holds it); the states in
    between show what the shopper saw while a reply was being written."""
    seen = []
    deadline = time.monotonic() + timeout
    while True:
        current = state(page)
        seen.append(current)
        if predicate(current):
            return seen
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out; last state: {current}")
        page.wait_for_timeout(every_ms)


def type_message(page: Page, text: str) -> None:
    """Types `text` into the message box and presses Enter; returns once the widget took it
    (the message is shown)."""
    from playwright.sync_api import expect

    box = widget(page).locator("textarea")
    box.press_sequentially(text)
    expect(box).to_have_value(text)
    box.press("Enter")
    expect(widget(page).locator(".msg.user").last).to_have_text(text, timeout=15_000)


FOCUSED = """
() => {
  const active = document.activeElement;
  const inner = active && active.shadowRoot ? active.shadowRoot.activeElement : null;
  if (!inner) return active ? active.tagName.toLowerCase() : null;
  return inner.className || inner.getAttribute('aria-label') || inner.tagName.toLowerCase();
}
"""


def focused(page: Page) -> str | None:
    """What has the keyboard: the widget's element (its class, else its label or tag) when
    the focus is inside the widget, else the page's element's tag."""
    return page.evaluate(FOCUSED)


def focused_text(page: Page) -> str:
    """The text of the widget's element that has the keyboard."""
    return str(page.evaluate("() => document.activeElement.shadowRoot.activeElement.textContent"))
