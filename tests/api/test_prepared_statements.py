"""`DB_PREPARED_STATEMENTS` (README's configuration): on PostgreSQL a statement a connection runs
again and again is prepared, so the server plans it once; off, nothing is prepared (for a
transaction-pooling PgBouncer older than 1.21)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.db import connection

from tests.factories import ChatFactory

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL only"),
]
ROOT = Path(__file__).resolve().parents[2]


def prepared_statements() -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        return [row[0] for row in cursor.fetchall()]


def test_a_history_page_read_again_is_prepared_on_the_server(tenant):
    chat = ChatFactory(chatbot=tenant.chatbot)
    assert not any('"chats_message"' in s for s in prepared_statements())

    for _ in range(7):  # psycopg prepares a statement on its sixth run
        assert tenant.client.get(f"/v1/chats/{chat.id}/messages").status_code == 200

    assert any('FROM "chats_message"' in s for s in prepared_statements())


def test_switched_off_nothing_is_prepared():
    settings = connection.settings_dict
    url = (
        f"postgresql://{settings['USER']}@{settings['HOST']}:{settings['PORT']}/{settings['NAME']}"
    )
    script = (
        "from django.db import connection\n"
        "for _ in range(7):\n"
        "    with connection.cursor() as cursor: cursor.execute('SELECT %s::int', [1])\n"
        "with connection.cursor() as cursor:\n"
        "    cursor.execute('SELECT count(*) FROM pg_prepared_statements')\n"
        "    print(cursor.fetchone()[0])\n"
    )
    env = {**os.environ, "DATABASE_URL": url}
    counts = {}
    for value in ("0", "1"):
        done = subprocess.run(
            [sys.executable, "manage.py", "shell", "-c", script],
            cwd=ROOT,
            env={**env, "DB_PREPARED_STATEMENTS": value},
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
        counts[value] = int(done.stdout.split()[-1])
    assert counts == {"0": 0, "1": 1}


def test_a_catalog_import_prepares_nothing(tenant, tmp_path):
    # 7,000 items: each batch statement of 1,000 rows runs seven times, past psycopg's five.
    from bench.catalog_feed import write_feed
    from tests.knowledge.catalog_files import run_import

    feed = write_feed(tmp_path / "feed.tsv", 7000)
    before = set(prepared_statements())

    assert not run_import(str(tenant.organization.id), str(feed))[1]

    assert set(prepared_statements()) == before
    # The request path prepares again after it.
    for _ in range(7):
        assert tenant.client.get("/v1/usage").status_code == 200
    assert set(prepared_statements()) != before
