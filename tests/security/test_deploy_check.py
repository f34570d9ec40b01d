"""`manage.py check --deploy` is clean for a production configuration."""

from __future__ import annotations

import secrets
import subprocess
import sys

from tests.server import ROOT


def test_check_deploy_is_clean_for_production_settings(tmp_path):
    env = {
        "PATH": "/usr/bin:/bin",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "ASSISTANT_ENVIRONMENT": "production",
        "ALLOWED_HOSTS": "api.example.com",
        "DATABASE_URL": "postgresql://postgres@127.0.0.1:5432/postgres",
        "BEHIND_TLS_PROXY": "1",
        "VAR_DIR": str(tmp_path),
    }
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_production_refuses_debug(tmp_path):
    env = {
        "PATH": "/usr/bin:/bin",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "ASSISTANT_ENVIRONMENT": "production",
        "DEBUG": "1",
        "VAR_DIR": str(tmp_path),
    }
    result = subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode != 0
    assert "assistant.E004" in result.stderr


def test_unknown_environment_is_refused(tmp_path):
    env = {
        "PATH": "/usr/bin:/bin",
        "SECRET_KEY": "x" * 50,
        "ASSISTANT_ENVIRONMENT": "prod",
        "VAR_DIR": str(tmp_path),
    }
    result = subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode != 0 and "assistant.E001" in result.stderr
