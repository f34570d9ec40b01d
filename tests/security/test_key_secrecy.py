"""No API key in plain text anywhere.

A real run: keys issued through the operators' command line and the admin console, used against
the real server (x-api-key and Bearer, chats, messages, history, the event stream, usage, a
public endpoint that ignores keys), wrong keys, revoked keys (by command and by admin action)
and a key of the other environment. The server runs with DEBUG logging and an access log. Afterwards the whole database (every row
of every table, and pg_dump on PostgreSQL) and every log line are searched for each key.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import subprocess
import sys

import httpx
import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.db import connection

from tests.security.private_postgres import postgres_bin
from tests.server import ROOT, server_env, start_server

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

BODY = {"message": "Show me a jacket", "currentUrl": "https://shop.example/"}


class Operator:
    """Runs the operators' commands against the test database, keeping what they log."""

    def __init__(self) -> None:
        self.stderr: list[str] = []

    def __call__(self, *args: str) -> dict:
        env = {**server_env(), "LOG_LEVEL": "DEBUG"}
        result = subprocess.run(
            [sys.executable, "manage.py", *args, "--json"],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert result.returncode == 0, result.stdout + result.stderr
        self.stderr.append(result.stderr)
        return json.loads(result.stdout.strip().splitlines()[-1])


def admin_login(server) -> httpx.Client:
    client = server.client(follow_redirects=False)
    token = csrf_token(client.get("/admin/login/").text)
    response = client.post(
        "/admin/login/",
        data={"username": "root", "password": "pw-root-1", "csrfmiddlewaretoken": token},
    )
    assert response.status_code == 302, response.text[:300]
    return client


def csrf_token(page: str) -> str:
    return re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)


def admin_issue_key(admin: httpx.Client, organization_id: str) -> str:
    token = csrf_token(admin.get("/admin/accounts/apikey/add/").text)
    response = admin.post(
        "/admin/accounts/apikey/add/",
        data={
            "organization": organization_id,
            "environment": "staging",
            "name": "from the admin",
            "csrfmiddlewaretoken": token,
        },
    )
    assert response.status_code == 200
    return re.search(r'id="full-api-key"[^>]*>([^<]+)<', response.text).group(1)


def admin_revoke(admin: httpx.Client, prefix: str) -> None:
    listing = admin.get("/admin/accounts/apikey/", params={"q": prefix}).text
    pk = re.search(r'name="_selected_action" value="([^"]+)"', listing).group(1)
    response = admin.post(
        "/admin/accounts/apikey/",
        data={
            "action": "revoke_selected",
            "_selected_action": [pk],
            "post": "yes",  # the confirmation page's answer
            "csrfmiddlewaretoken": csrf_token(listing),
        },
    )
    assert response.status_code == 302


def use_key(server, key: str, organization_id: str, chatbot_id: str) -> list[int]:
    """A client's day with a key: every operation, both header forms."""
    statuses = []
    with server.client(headers={"x-api-key": key}) as client:
        created = client.post("/v1/chats", json={"chatbotId": chatbot_id})
        statuses.append(created.status_code)
        chat = created.json().get("id", "00000000-0000-4000-8000-000000000000")
        statuses.append(client.post(f"/v1/chats/{chat}/messages", json=BODY).status_code)
        statuses.append(client.get(f"/v1/chats/{chat}/messages").status_code)
        statuses.append(client.get("/v1/usage").status_code)
        with client.stream("GET", f"/v1/chats/{chat}/messages/events") as stream:
            statuses.append(stream.status_code)
        statuses.append(
            client.get(
                f"/v1/knowledge/pdp-questions/{organization_id}/public",
                params={"url": "https://shop.example/p/1"},
            ).status_code
        )
    with server.client(headers={"Authorization": f"Bearer {key}"}) as client:
        statuses.append(client.get(f"/v1/chats/{chat}").status_code)
    return statuses


def database_dump() -> str:
    """Every row of every table, as text; on PostgreSQL also `pg_dump` of the database."""
    parts = []
    with connection.cursor() as cursor:
        for table in connection.introspection.table_names(cursor):
            cursor.execute(f"SELECT * FROM {connection.ops.quote_name(table)}")
            parts.append(f"{table}: {cursor.fetchall()!r}")
    if connection.vendor == "postgresql" and postgres_bin() is not None:
        db = settings.DATABASES["default"]
        dumped = subprocess.run(
            [
                str(postgres_bin() / "pg_dump"),
                "-h",
                db.get("HOST") or "127.0.0.1",
                "-p",
                str(db.get("PORT") or 5432),
                "-U",
                db.get("USER") or "postgres",
                db["NAME"],
            ],
            env={**os.environ, "PGPASSWORD": db.get("PASSWORD") or ""},
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
        parts.append(dumped.stdout)
    return "\n".join(parts)


def secret_part(key: str) -> str:
    """What follows the public `sk_stag_<prefix>_`: the part that must never be written."""
    return key.split("_", 3)[-1]


def test_no_key_appears_in_the_database_or_the_logs(tmp_path, caplog):
    # Given an organization, chatbot and keys made through the operators' command line
    operator = Operator()
    organization_id = operator("create_organization", "Secrecy Shop")["organizationId"]
    chatbot_id = operator("create_chatbot", organization_id, "Bot", "--greeting", "Hi")["chatbotId"]
    cli_key = operator("issue_api_key", organization_id)["apiKey"]
    to_revoke = operator("issue_api_key", organization_id)
    production_key = operator("issue_api_key", organization_id, "--environment", "production")[
        "apiKey"
    ]
    User.objects.create_superuser("root", "root@example.com", "pw-root-1")
    log_path = tmp_path / "server.log"

    with start_server(log_path=log_path, LOG_LEVEL="DEBUG", ACCESS_LOG="1") as server:
        # And one made in the admin console
        admin = admin_login(server)
        admin_key = admin_issue_key(admin, organization_id)

        # When clients use the good keys, and others try wrong, revoked and foreign ones
        for key in (cli_key, admin_key):
            statuses = use_key(server, key, organization_id, chatbot_id)
            assert statuses == [201, 201, 200, 200, 200, 404, 200]
        operator("revoke_api_key", to_revoke["prefix"])
        admin_revoke(admin, admin_key[:16])
        admin.close()
        wrong_keys = [
            f"{cli_key[:17]}{secrets.token_urlsafe(32)}",  # right prefix, wrong secret
            f"sk_stag_{secrets.token_hex(4)}_{secrets.token_urlsafe(32)}",
            f"sk_prod_{secrets.token_hex(4)}_{secrets.token_urlsafe(32)}",
            secrets.token_urlsafe(40),
        ]
        refused = [to_revoke["apiKey"], admin_key, production_key, *wrong_keys]
        for key in refused:
            statuses = use_key(server, key, organization_id, chatbot_id)
            assert statuses[:5] == [401] * 5 and statuses[6] == 401

    # Then no key, nor the secret part of one, is in any row of any table or in any log line
    dump = database_dump()
    logs = log_path.read_text() + "".join(operator.stderr) + caplog.text
    # (the search can find things: the run's rows and requests are there)
    assert organization_id in dump or organization_id.replace("-", "") in dump  # SQLite: hex
    assert cli_key[:16] in dump and admin_key[:16] in dump
    assert '"POST /v1/chats HTTP/1.1" 201' in logs and '"GET /v1/usage HTTP/1.1" 401' in logs
    for key in [cli_key, admin_key, *refused]:
        assert key not in dump and secret_part(key) not in dump
        assert key not in logs and secret_part(key) not in logs
