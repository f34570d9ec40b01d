"""Two instances behind nginx reaching PostgreSQL through PgBouncer in transaction mode.

As README's deployment section prescribes: `DATABASE_URL` points at PgBouncer with
`DB_PREPARED_STATEMENTS=0` (PgBouncer before 1.21 cannot keep prepared statements across the
server connections it hands out), and `DATABASE_LISTEN_URL` points the event stream's listener
at PostgreSQL itself, since LISTEN needs a session of its own.
"""

from __future__ import annotations

import time
import uuid

import httpx
import psutil
import psycopg
import pytest
from django.db import connection

from chats.models import Message
from knowledge.models import PdpQuestionSet
from tests.chats.stream_client import StreamReader, payloads
from tests.cluster import Instance, cluster, missing_programs, pgbouncer, private_directory
from tests.conftest import make_tenant
from tests.factories import ProductFactory
from tests.server import free_port, redis_server, server_env
from tests.server import test_database_url as direct_database_url

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        connection.vendor != "postgresql", reason="PgBouncer pools PostgreSQL connections"
    ),
    pytest.mark.skipif(
        bool(missing_programs("nginx", "pgbouncer", "redis-server")),
        reason=missing_programs("nginx", "pgbouncer", "redis-server") or "",
    ),
]

ROUNDS = 8  # more than psycopg's prepare threshold (5) for every statement of a round


@pytest.fixture(scope="module")
def deployment(committed_database, django_db_blocker):
    direct = direct_database_url()
    assert direct is not None
    directory = private_directory("assistant-pgbouncer-")
    with (
        django_db_blocker.unblock(),
        redis_server(free_port()) as redis_url,
        pgbouncer(direct, directory) as pooled,
    ):
        env = server_env(
            DATABASE_URL=pooled,
            DATABASE_LISTEN_URL=direct,
            DB_PREPARED_STATEMENTS="0",
            REDIS_URL=redis_url,
            SSE_KEEPALIVE_SECONDS="1",
        )
        with cluster(env, directory=directory) as running:
            yield running, pooled


def admin_console(pooled_url: str, command: str) -> list[dict]:
    """A SHOW command of PgBouncer's admin console (simple query protocol only)."""
    url = pooled_url.rsplit("/", 1)[0] + "/pgbouncer"
    with psycopg.connect(url, autocommit=True, cursor_factory=psycopg.ClientCursor) as conn:
        cursor = conn.execute(command)
        names = [column.name for column in cursor.description or []]
        return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def test_the_whole_api_and_the_stream_work_through_pgbouncer(deployment):
    deployment, pooled_url = deployment
    tenant = make_tenant()
    product = ProductFactory(organization=tenant.organization, url="https://shop.example/p/bag")
    headers = {"x-api-key": tenant.key}
    database = connection.settings_dict["NAME"]
    xacts_before = sum(
        row["total_xact_count"]
        for row in admin_console(pooled_url, "SHOW STATS")
        if row["database"] == database
    )

    with httpx.Client(base_url=deployment.url, headers=headers, timeout=30) as client:
        for _ in range(ROUNDS):
            created = client.post("/v1/chats", json={"chatbotId": str(tenant.chatbot.id)})
            assert created.status_code == 201
            chat_id = created.json()["id"]
            assert client.get(f"/v1/chats/{chat_id}").status_code == 200
            url = f"{deployment.url}/v1/chats/{chat_id}/messages/events"
            with StreamReader(url, headers) as reader:
                key = {"Idempotency-Key": str(uuid.uuid4())}
                body = {"message": "a bag", "currentUrl": product.url}
                posted = client.post(f"/v1/chats/{chat_id}/messages", json=body, headers=key)
                assert posted.status_code == 201
                events = payloads(
                    reader.events_until(
                        lambda e: e["status"] != "inProgress" and "toolName" not in e
                    )
                )
            assert events[-1]["content"] == posted.json()["content"]
            again = client.post(f"/v1/chats/{chat_id}/messages", json=body, headers=key)
            assert again.content == posted.content
            history = client.get(f"/v1/chats/{chat_id}/messages", params={"size": 20})
            assert history.status_code == 200
            assert sorted(m["type"] for m in history.json()["items"]) == ["answer", "user"]
            pdp = client.post(
                "/v1/knowledge/pdp-questions/public/get-questions",
                json={"organizationId": str(tenant.organization.id), "url": product.url},
            )
            assert pdp.status_code == 200 and pdp.json() is not None
            shown = client.get(
                f"/v1/knowledge/pdp-questions/{tenant.organization.id}/public",
                params={"url": product.url},
            )
            assert shown.status_code == 200
            assert client.get("/v1/usage").status_code == 200

        usage = client.get("/v1/usage").json()
    assert usage["messages"] == ROUNDS
    assert Message.objects.filter(chat__organization=tenant.organization).count() == 2 * ROUNDS
    deadline = time.monotonic() + 10
    while PdpQuestionSet.objects.get(organization=tenant.organization).requests < 2 * ROUNDS:
        assert time.monotonic() < deadline
        time.sleep(0.2)

    # The instances' queries went through PgBouncer...
    xacts_after = sum(
        row["total_xact_count"]
        for row in admin_console(pooled_url, "SHOW STATS")
        if row["database"] == database
    )
    assert xacts_after - xacts_before > 10 * ROUNDS
    clients = admin_console(pooled_url, "SHOW CLIENTS")
    assert all(row["application_name"] != "sse-listener" for row in clients)
    # ...and the stream listener of each instance (started by its first stream; nginx gives
    # two streams opened together to different instances) holds a session on PostgreSQL
    # itself, from the instance's worker, not through PgBouncer.
    url = f"{deployment.url}/v1/chats/{chat_id}/messages/events"
    with StreamReader(url, headers), StreamReader(url, headers):
        assert direct_listener_sessions(deployment.instances) == len(deployment.instances)


def direct_listener_sessions(instances: list[Instance]) -> int:
    """`sse-listener` sessions on PostgreSQL opened by the instances' own worker processes
    (other servers of the test session may have listeners on the same database)."""
    postgres_port = int(connection.settings_dict.get("PORT") or 5432)
    ports = [
        conn.laddr.port
        for instance in instances
        if instance.process is not None
        for worker in psutil.Process(instance.process.pid).children()
        for conn in worker.net_connections(kind="tcp")
        if conn.raddr and conn.raddr.port == postgres_port
    ]
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity "
            "WHERE application_name = 'sse-listener' AND client_port = ANY(%s)",
            [ports],
        )
        return cursor.fetchone()[0]
