"""The per-worker API key cache (accounts/key_cache.py): fewer queries, same
docs/api.md#authentication."""

from __future__ import annotations

import threading
import time

import psycopg
import pytest
from django.core.management import call_command
from django.db import connection
from django.test import override_settings

from accounts.authentication import REVOKED_KEY
from accounts.key_cache import MAX_AGE_SECONDS, api_key_lookup
from accounts.services import api_key_revoke
from tests.factories import ChatFactory
from tests.server import start_server


@pytest.mark.django_db
@override_settings(API_KEY_CACHE_SECONDS=1)
def test_a_cached_key_costs_no_query(tenant, django_assert_num_queries):
    chat = ChatFactory(chatbot=tenant.chatbot)
    assert tenant.client.get(f"/v1/chats/{chat.id}").status_code == 200  # reads the key

    with django_assert_num_queries(1):  # the chat only
        response = tenant.client.get(f"/v1/chats/{chat.id}")

    assert response.status_code == 200
    assert response.json()["organizationId"] == str(tenant.organization.id)


@pytest.mark.django_db
@override_settings(API_KEY_CACHE_SECONDS=1)
def test_a_wrong_secret_is_refused_even_when_the_prefix_is_cached(anonymous, tenant):
    assert tenant.client.get("/v1/chats/x").status_code == 404
    forged = tenant.api_key.prefix + "_" + "A" * 43
    assert anonymous.get("/v1/chats/x", HTTP_X_API_KEY=forged).status_code == 401


@pytest.mark.django_db
@override_settings(API_KEY_CACHE_SECONDS=1)
def test_revocation_in_this_process_is_immediate(tenant):
    assert tenant.client.get("/v1/chats/x").status_code == 404
    api_key_revoke(prefix=tenant.api_key.prefix)
    response = tenant.client.get("/v1/chats/x")
    assert response.status_code == 401
    assert response.json() == {"message": REVOKED_KEY}


@pytest.mark.django_db
@override_settings(API_KEY_CACHE_SECONDS=1)
def test_cached_instances_are_saved_as_loaded_rows(tenant):
    # Made from cached values (infrastructure/model_rows.py), they update their rows: an
    # instance taken for a new one would INSERT its primary key again and fail.
    from accounts.models import Organization

    api_key_lookup(prefix=tenant.api_key.prefix)
    cached = api_key_lookup(prefix=tenant.api_key.prefix)
    cached.organization.name = "Renamed by a cached instance"
    cached.organization.save()
    cached.save()

    assert Organization.objects.get(pk=tenant.organization.pk).name == cached.organization.name
    assert cached.organization is cached.organization  # cached relation, no query


@pytest.mark.django_db
@override_settings(API_KEY_CACHE_SECONDS=1)
def test_requests_do_not_share_model_instances(tenant):
    # A view changing its request's organization must not change the next request's.
    from accounts.key_cache import api_key_lookup

    first = api_key_lookup(prefix=tenant.api_key.prefix)
    first.organization.allowed_origins.append("https://evil.example")
    first.organization.name = "changed"
    second = api_key_lookup(prefix=tenant.api_key.prefix)
    assert second is not first
    assert second.organization.allowed_origins == []
    assert second.organization.name == tenant.organization.name


@pytest.mark.e2e
def test_a_key_revoked_elsewhere_is_refused_by_every_worker_within_a_second(
    transactional_db, tenant
):
    chat = ChatFactory(chatbot=tenant.chatbot)
    # Two workers with the longest cache the settings allow.
    with start_server(API_KEY_CACHE_SECONDS="1", WEB_CONCURRENCY="2") as server:

        def statuses() -> set[int]:
            # A new connection per request, so both workers answer some.
            seen = set()
            for _ in range(20):
                with server.client(headers={"x-api-key": tenant.key}) as client:
                    seen.add(client.get(f"/v1/chats/{chat.id}").status_code)
            return seen

        # Given the workers have read (and cached) the key
        assert statuses() == {200}

        # When an operator revokes it from another process
        call_command("revoke_api_key", tenant.api_key.prefix)
        revoked_at = time.monotonic()

        # Then one second later no worker accepts it
        time.sleep(max(0.0, revoked_at + 1.0 - time.monotonic()))
        assert statuses() == {401}


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(connection.vendor != "postgresql", reason="holds a PostgreSQL table lock")
def test_while_one_request_rereads_a_stale_key_the_others_keep_the_entry(tenant):
    prefix = tenant.api_key.prefix
    with override_settings(API_KEY_CACHE_SECONDS=0.05):
        api_key_lookup(prefix=prefix)
        time.sleep(0.06)  # the entry is stale now

        # Another session holds the key table, so the re-read waits on it.
        with psycopg.connect(**connection.get_connection_params(), autocommit=False) as locker:
            locker.execute("LOCK TABLE accounts_apikey IN ACCESS EXCLUSIVE MODE")
            rereading = _lookup_in_thread(prefix)
            _wait_for_a_blocked_query()

            # Other requests are served the entry meanwhile, without waiting for the lock
            served = _lookup_in_thread(prefix)
            served.join(timeout=2)
            assert not served.is_alive()

            # but never once it is a second old (docs/api.md#authentication): then they read the row
            # too
            time.sleep(max(0.0, MAX_AGE_SECONDS - 0.05))
            late = _lookup_in_thread(prefix)
            late.join(timeout=0.3)
            assert late.is_alive()
            locker.rollback()

        for thread in (rereading, served, late):
            thread.join(timeout=10)
            assert not thread.is_alive()


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(connection.vendor != "postgresql", reason="holds a PostgreSQL table lock")
def test_requests_arriving_while_the_key_is_read_wait_for_that_read(tenant):
    prefix = tenant.api_key.prefix
    found: list[object] = []
    with override_settings(API_KEY_CACHE_SECONDS=0.05):
        with psycopg.connect(**connection.get_connection_params(), autocommit=False) as locker:
            locker.execute("LOCK TABLE accounts_apikey IN ACCESS EXCLUSIVE MODE")
            # Given one request reading the (uncached) key row, held up by the lock
            reading = _lookup_in_thread(prefix, found)
            _wait_for_a_blocked_query()

            # When more requests for that key arrive meanwhile
            waiting = [_lookup_in_thread(prefix, found) for _ in range(5)]
            time.sleep(0.3)

            # Then they wait for that read rather than query the row too
            assert all(thread.is_alive() for thread in waiting)
            assert _blocked_queries() == 1
            locker.rollback()

        # and once it ends, each has the key it read
        for thread in (reading, *waiting):
            thread.join(timeout=10)
            assert not thread.is_alive()
    assert [getattr(api_key, "prefix", None) for api_key in found] == [prefix] * 6


def _lookup_in_thread(prefix: str, found: list | None = None) -> threading.Thread:
    def lookup() -> None:
        try:
            api_key = api_key_lookup(prefix=prefix)
            if found is not None:
                found.append(api_key)
        finally:
            connection.close()

    thread = threading.Thread(target=lookup, daemon=True)
    thread.start()
    return thread


def _wait_for_a_blocked_query() -> None:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if _blocked_queries():
            return
        time.sleep(0.01)
    raise AssertionError("the re-read never waited on the lock")


def _blocked_queries() -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
            " AND datname = current_database()"
        )
        return cursor.fetchone()[0]
