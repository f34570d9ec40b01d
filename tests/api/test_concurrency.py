"""Bursts against the real server (gunicorn + gevent): no errors, bounded DB connections."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from django.conf import settings
from django.db import connection
from django.db.models import Sum

from accounts.models import DailyUsage
from tests.factories import ChatFactory

pytestmark = pytest.mark.e2e

BURST = 200


def server_connections(database: str) -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
            [database],
        )
        return cursor.fetchone()[0]


def burst(live, requests) -> list[httpx.Response]:
    start = threading.Barrier(len(requests))

    def send(request):
        method, path, kwargs = request
        with httpx.Client(base_url=live.url, timeout=60) as client:
            start.wait()
            return client.request(method, path, **kwargs)

    with ThreadPoolExecutor(max_workers=len(requests)) as pool:
        return list(pool.map(send, requests))


def test_200_concurrent_chat_reads_succeed(live, tenant):
    chat = ChatFactory(chatbot=tenant.chatbot)
    headers = {"x-api-key": tenant.key}
    peak = [0]
    done = threading.Event()

    def watch():
        while connection.vendor == "postgresql" and not done.is_set():
            peak[0] = max(peak[0], server_connections(settings.DATABASES["default"]["NAME"]))

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        responses = burst(live, [("GET", f"/v1/chats/{chat.id}", {"headers": headers})] * BURST)
    finally:
        done.set()
        watcher.join()

    assert [r.status_code for r in responses] == [200] * BURST
    if connection.vendor == "postgresql":
        # One worker shares a bounded pool: 200 greenlets never open 200 connections (nor
        # reach PostgreSQL's max_connections of 100). Besides the pool, the database also sees
        # the worker's event listener and this test process's own few connections.
        assert 0 < peak[0] <= settings.DB_POOL_MAX_SIZE + 5


def test_200_concurrent_chat_creations_get_distinct_ids(live, tenant):
    request = (
        "POST",
        "/v1/chats",
        {"headers": {"x-api-key": tenant.key}, "json": {"chatbotId": str(tenant.chatbot.id)}},
    )
    responses = burst(live, [request] * BURST)
    assert [r.status_code for r in responses] == [201] * BURST
    assert len({r.json()["id"] for r in responses}) == BURST
    # Every one counted, though they raced to create the day's usage row
    counted = DailyUsage.objects.filter(organization=tenant.organization, chatbot=tenant.chatbot)
    assert counted.aggregate(chats=Sum("chats"))["chats"] == BURST
