"""Driving the <shop-assistant> widget in Chromium: what its shadow DOM shows."""

from __future__ import annotations

import time
from typing import Any


def widget(driver) -> Any:
    """The widget's shadow root, once the element is on the page."""
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        roots = driver.execute_script(
            "var w = document.querySelector('shop-assistant'); return w && w.shadowRoot;"
        )
        if roots:
            return roots
        time.sleep(0.05)
    raise AssertionError("the widget did not appear")


def state(driver) -> dict[str, Any]:
    """The conversation as the widget shows it."""
    return driver.execute_script(
        """
        var root = document.querySelector('shop-assistant').shadowRoot;
        var texts = function (selector) {
          return Array.from(root.querySelectorAll(selector)).map(function (n) {
            return n.textContent;
          });
        };
        return {
          user: texts('.msg.user'),
          assistant: texts('.msg.assistant'),
          errors: texts('.msg.error'),
          cards: Array.from(root.querySelectorAll('.card')).map(function (card) {
            return {
              name: card.querySelector('.name').textContent,
              price: card.querySelector('.price').textContent,
              stock: (card.querySelector('.stock') || {}).textContent || null,
              href: (card.querySelector('a') || {}).href || null,
              fallback: !!card.querySelector('.noimg'),
            };
          }),
          chips: texts('.chip'),
          busy: root.querySelector('.log').getAttribute('aria-busy') === 'true',
          announced: root.querySelector('[aria-live=polite]').textContent,
          lastEventId: document.querySelector('shop-assistant').lastEventId,
          streamOpen: (document.querySelector('shop-assistant').events || {}).readyState === 1,
        };
        """
    )


def wait_for(driver, predicate, timeout: float = 30, every: float = 0.05) -> list[dict]:
    """Every state seen until `predicate(state)` holds (the last one holds it)."""
    seen = []
    deadline = time.monotonic() + timeout
    while True:
        current = state(driver)
        seen.append(current)
        if predicate(current):
            return seen
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out; last state: {current}")
        time.sleep(every)


def type_message(driver, text: str) -> None:
    """Types `text` into the message box and presses Enter; returns once the widget took it
    (the box empties and the message is shown)."""
    from selenium.webdriver.common.keys import Keys

    box = widget(driver).find_element("css selector", "textarea")
    box.send_keys(text)
    typed = box.get_attribute("value")
    assert typed == text, f"the message box holds {typed!r}"
    box.send_keys(Keys.ENTER)
    wait_for(driver, lambda s: s["user"] and s["user"][-1] == text, timeout=15)
