"""The Makefile targets a newcomer runs as README and the `make run` banner print them, each in a
subprocess with the environment of a fresh clone (no SECRET_KEY)."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import uuid
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
from django.contrib.auth.hashers import check_password
from django.db import connection

from knowledge.management.commands.seed_demo import banner_text
from tests.server import ROOT

# Variables of the test run (pytest-env, make's own) that a newcomer's shell does not have.
NOT_IN_A_FRESH_SHELL = {"SECRET_KEY", "DATABASE_URL", "SQLITE_PATH", "MAKEFLAGS", "MAKELEVEL"}


def fresh_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in NOT_IN_A_FRESH_SHELL}
    return env | {"LOG_LEVEL": "ERROR"} | extra


def make(target: str, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["make", "--no-print-directory", target, *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_the_banner_prints_the_createsuperuser_command_tested_here():
    ids = {"organizationId": "o", "chatbotId": "c", "apiKey": "k"}

    assert "(make createsuperuser)" in banner_text(ids)


def test_make_createsuperuser_works_without_secret_key(tmp_path):
    # Given a shell with no SECRET_KEY and a database that does not exist yet
    database = tmp_path / "db.sqlite3"
    env = fresh_env(
        VAR_DIR=str(tmp_path),
        SQLITE_PATH=str(database),
        DJANGO_SUPERUSER_USERNAME="admin",
        DJANGO_SUPERUSER_EMAIL="admin@example.com",
        DJANGO_SUPERUSER_PASSWORD="correct horse battery staple",
    )

    # When the printed command runs (without a terminal, so the answers come from the env)
    result = make("createsuperuser", env, "ARGS=--noinput")

    # Then the admin user exists with that password
    assert result.returncode == 0, result.stdout + result.stderr
    with sqlite3.connect(database) as db:
        rows = db.execute("SELECT username, is_superuser, is_staff, password FROM auth_user")
        [(username, is_superuser, is_staff, password)] = rows.fetchall()
    assert (username, is_superuser, is_staff) == ("admin", 1, 1)
    assert check_password("correct horse battery staple", password)


@pytest.mark.django_db
def test_make_eval_never_opens_the_configured_database(tmp_path):
    # Given a configured database that does not exist: opening it at all would fail
    if connection.vendor == "postgresql":
        url = urlsplit(os.environ["DATABASE_URL"])
        name = f"evalrun_{uuid.uuid4().hex[:12]}"
        env = fresh_env(DATABASE_URL=urlunsplit(url._replace(path=f"/{name}")))
    else:
        name = str(tmp_path / "run.sqlite3")
        env = fresh_env(VAR_DIR=str(tmp_path), SQLITE_PATH=name)

    # When the evaluation runs
    result = make("eval", env)

    # Then it passed in its own database, which is gone afterwards with nothing left behind
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Passed: " in result.stdout
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT datname FROM pg_database WHERE datname LIKE %s", [f"{name}%"])
            assert cursor.fetchall() == []
    else:
        assert [p.name for p in Path(tmp_path).iterdir()] == []
