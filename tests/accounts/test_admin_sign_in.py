"""Admin sign-in: repeated failures lock a username out from an address (django-axes)."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from django.contrib.auth.models import User
from django.test import Client, override_settings

from tests.conftest import staff_client
from tests.server import ROOT, server_env

pytestmark = pytest.mark.django_db

LIMIT = 5  # ADMIN_LOGIN_FAILURE_LIMIT's default


@pytest.fixture
def operator() -> User:
    return User.objects.create_user("ops", "ops@example.com", "right-pw-1", is_staff=True)


def sign_in(password: str, *, username: str = "ops", address: str = "198.51.100.7"):
    client = Client(REMOTE_ADDR=address)
    return client.post(
        "/admin/login/?next=/admin/",
        {"username": username, "password": password},
    )


def test_wrong_passwords_up_to_the_limit_get_the_form_again(operator):
    for _ in range(LIMIT - 1):
        response = sign_in("wrong")
        assert response.status_code == 200
        assert "Please enter the correct username and password" in response.content.decode()

    assert sign_in("right-pw-1").status_code == 302  # still allowed, and the count starts over
    for _ in range(LIMIT - 1):
        assert sign_in("wrong").status_code == 200
    assert sign_in("right-pw-1").status_code == 302


def test_the_limit_locks_the_username_out_from_that_address_even_with_the_right_password(
    operator,
):
    for _ in range(LIMIT - 1):
        sign_in("wrong")
    locked = sign_in("wrong")

    assert locked.status_code == 429
    # As every error (docs/api.md#errors): JSON, and with Retry-After for a 429.
    assert locked["Content-Type"] == "application/json"
    message = locked.json()["message"]
    assert "Too many failed sign-ins for ops" in message
    assert "locked for 15 minutes" in message  # ADMIN_LOGIN_LOCKOUT_MINUTES' default
    assert locked["Retry-After"] == "900"
    assert sign_in("right-pw-1").status_code == 429
    # Someone guessing from elsewhere does not lock the operator out, nor another username.
    assert sign_in("right-pw-1", address="203.0.113.9").status_code == 302
    User.objects.create_user("colleague", "c@example.com", "pw-2", is_staff=True)
    assert sign_in("pw-2", username="colleague").status_code == 302


@override_settings(AXES_FAILURE_LIMIT=2)
def test_an_operator_lifts_a_lockout_in_the_console(operator):
    sign_in("wrong")
    assert sign_in("wrong").status_code == 429
    admin = staff_client("Operators")

    listing = admin.get("/admin/axes/accessattempt/").content.decode()
    assert "ops" in listing
    assert "198.51.100.7" in listing
    pk = re.search(r'name="_selected_action" value="(\d+)"', listing).group(1)
    admin.post(
        "/admin/axes/accessattempt/",
        {"action": "delete_selected", "_selected_action": [pk], "post": "yes"},
    )

    assert sign_in("right-pw-1").status_code == 302


def test_support_cannot_see_sign_in_attempts(operator):
    sign_in("wrong")
    assert staff_client("Support").get("/admin/axes/accessattempt/").status_code == 403


@pytest.mark.django_db(transaction=True)
@override_settings(AXES_FAILURE_LIMIT=1)
def test_the_command_line_lifts_a_lockout(operator):
    assert sign_in("wrong").status_code == 429

    result = subprocess.run(
        [sys.executable, "manage.py", "axes_reset_username", "ops"],
        cwd=ROOT,
        env=server_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )

    assert result.returncode == 0, result.stderr
    assert sign_in("right-pw-1").status_code == 302


def test_the_api_is_not_affected_by_admin_lockouts(operator, tenant):
    for _ in range(LIMIT):
        sign_in("wrong", address="127.0.0.1")
    assert tenant.client.get("/v1/chats/x", REMOTE_ADDR="127.0.0.1").status_code == 404


@pytest.mark.parametrize(
    "setting", ["ADMIN_LOGIN_FAILURE_LIMIT=0", "ADMIN_LOGIN_LOCKOUT_MINUTES=0"]
)
def test_settings_that_would_lock_everyone_or_no_one_are_refused(setting):
    name, value = setting.split("=")
    result = subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=ROOT,
        env={**server_env(), name: value},
        capture_output=True,
        text=True,
        timeout=60,
    )

    assert result.returncode != 0
    assert "ADMIN_LOGIN_FAILURE_LIMIT and ADMIN_LOGIN_LOCKOUT_MINUTES must be at least 1" in (
        result.stderr
    )
