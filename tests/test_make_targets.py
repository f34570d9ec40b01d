"""The Makefile targets a newcomer runs as README and the `make run` banner print them, each in a
subprocess with the environment of a fresh clone (no SECRET_KEY)."""

from __future__ import annotations

import fcntl
import os
import select
import sqlite3
import subprocess
import termios
import time
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


def answer_prompts(command: list[str], env: dict[str, str], answers: list[tuple[bytes, bytes]]):
    """Runs the command on a pseudo-terminal of its own (its controlling terminal, as in a
    shell) and types each answer once its prompt has appeared. Returns the exit status and
    everything the command wrote."""
    controller, terminal = os.openpty()

    def own_terminal() -> None:
        os.setsid()
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)

    process = subprocess.Popen(
        command,
        cwd=ROOT,
        env=env,
        stdin=terminal,
        stdout=terminal,
        stderr=terminal,
        preexec_fn=own_terminal,
    )
    os.close(terminal)
    output, answered_up_to = b"", 0
    deadline = time.monotonic() + 600
    pending = list(answers)
    while time.monotonic() < deadline:
        if pending and pending[0][0] in output[answered_up_to:]:
            prompt, answer = pending.pop(0)
            answered_up_to = output.index(prompt, answered_up_to) + len(prompt)
            os.write(controller, answer + b"\n")
            continue
        if select.select([controller], [], [], 1)[0]:
            try:
                chunk = os.read(controller, 4096)
            except OSError:  # the terminal is gone: the command has ended
                chunk = b""
            if not chunk:
                break
            output += chunk
    os.close(controller)
    return process.wait(timeout=60), output.decode(errors="replace")


def test_make_createsuperuser_works_as_printed_without_secret_key(tmp_path):
    # Given a shell with no SECRET_KEY and a database that does not exist yet
    database = tmp_path / "db.sqlite3"
    env = fresh_env(VAR_DIR=str(tmp_path), SQLITE_PATH=str(database))
    password = b"correct horse battery staple"

    # When the printed command runs on a terminal and the newcomer answers its questions
    status, output = answer_prompts(
        ["make", "--no-print-directory", "createsuperuser"],
        env,
        [
            (b"Username", b"admin"),
            (b"Email address: ", b"admin@example.com"),
            (b"Password: ", password),
            (b"Password (again): ", password),
        ],
    )

    # Then the admin user exists with that password
    assert status == 0, output
    assert "Superuser created successfully." in output
    with sqlite3.connect(database) as db:
        rows = db.execute("SELECT username, is_superuser, is_staff, password FROM auth_user")
        [(username, is_superuser, is_staff, stored)] = rows.fetchall()
    assert (username, is_superuser, is_staff) == ("admin", 1, 1)
    assert check_password(password.decode(), stored)


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

    # When the evaluation runs (one small file: the whole set is played and judged by
    # tests/knowledge/test_catalog_engine_eval.py)
    result = make("eval", env, "EVAL_ARGS=--set seed")

    # Then it passed in its own database, which is gone afterwards with nothing left behind
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Passed: " in result.stdout
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT datname FROM pg_database WHERE datname LIKE %s", [f"{name}%"])
            assert cursor.fetchall() == []
    else:
        assert [p.name for p in Path(tmp_path).iterdir()] == []
