"""Operators' command line (docs/api.md#operators-command-line): --json output and clear errors."""

from __future__ import annotations

import json
import subprocess
import sys
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from accounts.keys import hash_key
from accounts.models import ApiKey, Chatbot, Organization
from tests.server import ROOT, server_env


def run_json(*args: str) -> dict:
    out = StringIO()
    call_command(*args, "--json", stdout=out)
    return json.loads(out.getvalue().strip().splitlines()[-1])


@pytest.mark.django_db
def test_operator_flow_from_organization_to_revoked_key():
    organization_id = run_json("create_organization", "Shoe Shop", "--quota", "1000")[
        "organizationId"
    ]
    organization = Organization.objects.get(pk=organization_id)
    assert organization.monthly_quota == 1000

    chatbot_id = run_json(
        "create_chatbot", "Shoe Shop", "Helper", "--greeting", "Hello!", "--language", "de"
    )["chatbotId"]
    chatbot = Chatbot.objects.get(pk=chatbot_id)
    assert (chatbot.greeting, chatbot.language) == ("Hello!", "de")

    issued = run_json(
        "issue_api_key", organization_id, "--environment", "production", "--expires", "2099-01-31"
    )
    api_key = ApiKey.objects.get(prefix=issued["prefix"])
    assert issued["apiKey"].startswith("sk_prod_") and api_key.hashed_key == hash_key(
        issued["apiKey"]
    )
    assert api_key.expires_at.date().isoformat() == "2099-01-31"

    assert run_json("set_quota", "Shoe Shop", "unlimited") == {"quota": None}
    assert run_json("set_quota", organization_id, "25") == {"quota": 25}
    assert run_json("revoke_api_key", issued["prefix"]) == {"revoked": True}
    assert ApiKey.objects.get(prefix=issued["prefix"]).revoked_at is not None


@pytest.mark.django_db
def test_human_output_shows_the_key_once_with_a_warning():
    Organization.objects.create(name="Acme")
    out = StringIO()
    call_command("issue_api_key", "Acme", stdout=out)
    assert "sk_stag_" in out.getvalue() and "will not be shown again" in out.getvalue()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["create_chatbot", "Nobody", "Bot"], "Organization not found"),
        (["issue_api_key", "Nobody"], "Organization not found"),
        (["set_quota", "Acme", "lots"], "Quota must be a whole number"),
        (["set_quota", "Acme", "-5"], "Quota must be a whole number"),
        (["revoke_api_key", "sk_stag_00000000"], "API key not found"),
        (["issue_api_key", "Acme", "--expires", "tomorrow"], "--expires must be a date"),
        (["issue_api_key", "Acme", "--expires", "2001-01-01"], "--expires must be in the future"),
        (["create_organization", "Acme"], "already exists"),
        (["create_organization", "  "], "must not be empty"),
    ],
)
def test_bad_arguments_are_clear_errors(args, message):
    Organization.objects.create(name="Acme")
    with pytest.raises(CommandError, match=message):
        call_command(*args, "--json", stdout=StringIO())


@pytest.mark.django_db(transaction=True)
def test_errors_exit_non_zero_from_the_shell():
    result = subprocess.run(
        [sys.executable, "manage.py", "set_quota", "Nobody", "5", "--json"],
        cwd=ROOT,
        env=server_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode != 0
    assert "Organization not found: Nobody" in result.stderr
