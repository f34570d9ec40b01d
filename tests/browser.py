"""Headless Chromium (Debian's package, never a downloaded browser) for tests that need a page."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
SCREENSHOTS = Path(__file__).resolve().parent.parent / "var" / "screenshots"

needs_chromium = pytest.mark.skipif(
    not (Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()),
    reason="needs Debian's chromium and chromium-driver (apt-get install chromium chromium-driver)",
)


@contextmanager
def chromium(width: int = 1280, height: int = 900) -> Iterator:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="chromium-profile-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        f"--user-data-dir={profile}",
        f"--window-size={width},{height}",
    ):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def screenshot(driver, name: str) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    driver.save_screenshot(str(path))
    return path


PHONE = (390, 844)
LAPTOP = (1366, 768)


def sign_in(driver, base_url: str, username: str, password: str) -> None:
    """Signs in to the admin console through its own form, as a person would."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get(f"{base_url}/admin/login/")
    driver.find_element(By.NAME, "username").send_keys(username)
    driver.find_element(By.NAME, "password").send_keys(password)
    driver.find_element(By.CSS_SELECTOR, "input[type=submit]").click()
    WebDriverWait(driver, 20).until(
        lambda _: (
            driver.find_elements(By.ID, "user-tools")
            or driver.find_elements(By.CSS_SELECTOR, ".errornote")
        )
    )
    if not driver.find_elements(By.ID, "user-tools"):
        raise AssertionError(f"sign-in failed: {driver.find_element(By.TAG_NAME, 'body').text}")


def overflow_px(driver) -> int:
    """How far the page is wider than the window (0: nothing scrolls sideways)."""
    return int(
        driver.execute_script(
            "return document.documentElement.scrollWidth - document.documentElement.clientWidth"
        )
    )


def page_height(driver) -> int:
    return int(driver.execute_script("return document.documentElement.scrollHeight"))


def right_edge(driver, css: str) -> float:
    """Where an element ends on the x axis, in CSS pixels from the window's left."""
    return float(
        driver.execute_script(
            "return document.querySelector(arguments[0]).getBoundingClientRect().right", css
        )
    )


def window_width(driver) -> int:
    return int(driver.execute_script("return document.documentElement.clientWidth"))
