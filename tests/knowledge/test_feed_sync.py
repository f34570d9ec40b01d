"""Scheduled feed sources (`sync_catalogs`) against a feed server on loopback: conditional
GET, gzip, failures that change nothing, redirects, the address check, the schedule (in Redis,
or in the database without it) and two schedulers at once."""

from __future__ import annotations

import gzip
import json
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import timedelta
from decimal import Decimal
from io import StringIO

import pytest
import redis
from django.core.management import CommandError, call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from knowledge.models import FeedAuth, FeedSource, ImportRun, Product, StoreInventory
from knowledge.sources.credentials import secret_encrypt
from knowledge.sources.schedule import source_schedule
from tests.knowledge.catalog_files import item, tsv
from tests.knowledge.feed_server import Answer, feed_server
from tests.server import ROOT, free_port, redis_server, server_env

pytestmark = pytest.mark.django_db

FEED = tsv([item(1), item(2)]).encode()
STORES = b"store_code\tname\nberlin\tBerlin Mitte\n"
INVENTORY = b"store_code\tid\tavailability\tquantity\nberlin\tSKU-1\tin_stock\t4\n"


@pytest.fixture(autouse=True)
def fetching(settings):
    settings.CATALOG_FETCH_ALLOW_PRIVATE_ADDRESSES = True  # the feed server is on loopback
    settings.CATALOG_FETCH_RETRIES = 2
    settings.CATALOG_FETCH_BACKOFF_SECONDS = 0.01
    settings.CATALOG_FETCH_TIMEOUT_SECONDS = 2
    settings.CATALOG_FETCH_MAX_SECONDS = 10
    settings.CATALOG_FETCH_REDIRECT_HOSTS = []
    settings.REDIS_URL = ""  # the schedule in the database, unless a test asks for Redis
    return settings


@pytest.fixture(scope="module")
def redis_url() -> Iterator[str]:
    if shutil.which("redis-server") is None:
        pytest.skip("needs redis-server")
    with redis_server(free_port()) as url:
        yield url


@pytest.fixture
def redis_schedule(redis_url, fetching) -> redis.Redis:
    """The schedule in a private, empty Redis; a client to look inside."""
    client = redis.Redis.from_url(redis_url)
    client.flushdb()
    fetching.REDIS_URL = redis_url
    return client


@pytest.fixture(params=["database", "redis"])
def schedule(request) -> str:
    if request.param == "redis":
        request.getfixturevalue("redis_schedule")
    return request.param


@pytest.fixture
def server():
    with feed_server() as running:
        yield running


def source_for(tenant, server, **fields) -> FeedSource:
    return FeedSource.objects.create(
        organization=tenant.organization, products_url=f"{server.url}/products.tsv", **fields
    )


def sync(*args: str) -> tuple[list[dict], bool]:
    """Runs `sync_catalogs --json`: each source's outcome, and whether the command failed."""
    out = StringIO()
    failed = False
    try:
        call_command("sync_catalogs", *args, "--json", stdout=out)
    except CommandError:
        failed = True
    return json.loads(out.getvalue().strip().splitlines()[-1])["sources"], failed


def prices(tenant) -> dict[str, Decimal]:
    return dict(
        Product.objects.filter(organization=tenant.organization).values_list("item_id", "price")
    )


def next_fetch_in(source: FeedSource) -> timedelta:
    """The time to the source's next fetch, as the console shows it."""
    now = timezone.now()
    next_fetch_at = source_schedule(source, now=now).next_fetch_at
    assert next_fetch_at is not None, "due now"
    return next_fetch_at - now


def writes_of(queries: CaptureQueriesContext) -> list[str]:
    return [q["sql"] for q in queries if q["sql"].split()[0] in ("INSERT", "UPDATE", "DELETE")]


def test_a_changed_feed_is_imported_and_an_unchanged_one_costs_one_request(
    tenant, server, redis_schedule
):
    server.answers["/products.tsv"] = Answer(body=FEED, etag='"v1"')
    source = source_for(tenant, server, every_minutes=15)

    outcomes, failed = sync()

    assert not failed and [o["status"] for o in outcomes] == ["succeeded"]
    assert prices(tenant) == {"SKU-1": Decimal("89.90"), "SKU-2": Decimal("89.90")}
    run = ImportRun.objects.get(pk=outcomes[0]["importRunId"])
    assert (run.source, run.status, run.created) == ("sync", "succeeded", 2)
    assert sync()[0] == []  # not due for 15 minutes

    # Unchanged, when the schedule's time comes (its key expires): one request with the ETag,
    # 304, and no database write at all
    redis_schedule.pexpire(f"feed-source:{source.pk}", 1)
    time.sleep(0.01)
    with CaptureQueriesContext(connection) as queries:
        outcomes, failed = sync()
    assert [o["status"] for o in outcomes] == ["unchanged"]
    assert server.hits("/products.tsv")[-1]["if-none-match"] == '"v1"'
    assert len(server.hits("/products.tsv")) == 2
    assert writes_of(queries) == []
    assert len(queries) == 1  # the enabled sources, read
    assert ImportRun.objects.count() == 1
    # ... and it is not due again for 15 minutes
    assert timedelta(minutes=14) < next_fetch_in(source) <= timedelta(minutes=15)
    assert sync()[0] == [] and len(server.hits("/products.tsv")) == 2

    # Changed: a new version is imported
    server.answers["/products.tsv"] = Answer(
        body=tsv([item(1, price="79.00 EUR"), item(2)]).encode(), etag='"v2"'
    )
    outcomes, _ = sync("--all")
    assert outcomes[0]["status"] == "succeeded"
    assert prices(tenant)["SKU-1"] == Decimal("79.00")


def test_without_redis_an_unchanged_feed_writes_only_its_schedule(tenant, server):
    server.answers["/products.tsv"] = Answer(body=FEED, etag='"v1"')
    source_for(tenant, server)
    sync()
    FeedSource.objects.update(next_fetch_at=timezone.now())  # due again

    with CaptureQueriesContext(connection) as queries:
        outcomes, _ = sync()

    assert [o["status"] for o in outcomes] == ["unchanged"]
    writes = writes_of(queries)
    assert len(writes) == 1 and writes[0].startswith('UPDATE "knowledge_feedsource"')


def test_when_redis_does_not_answer_nothing_is_fetched(tenant, server, fetching):
    fetching.REDIS_URL = f"redis://127.0.0.1:{free_port()}/0"
    server.answers["/products.tsv"] = Answer(body=FEED)
    source_for(tenant, server)

    outcomes, failed = sync()

    assert failed and outcomes[0]["status"] == "failed"
    assert "the schedule's Redis did not answer" in outcomes[0]["message"]
    assert not server.requests and not prices(tenant)


def test_last_modified_alone_makes_the_request_conditional(tenant, server):
    stamp = "Wed, 25 Nov 2026 10:00:00 GMT"
    server.answers["/products.tsv"] = Answer(body=FEED, last_modified=stamp)
    source_for(tenant, server)
    sync()
    outcomes, _ = sync("--all")
    assert outcomes[0]["status"] == "unchanged"
    assert server.hits("/products.tsv")[-1]["if-modified-since"] == stamp


def test_stores_products_and_inventory_feeds_gzip_by_encoding_or_by_file(tenant, server):
    server.answers["/products.tsv"] = Answer(
        body=gzip.compress(FEED), headers={"Content-Encoding": "gzip"}
    )
    server.answers["/stores.tsv.gz"] = Answer(
        body=gzip.compress(STORES), headers={"Content-Type": "application/gzip"}
    )
    server.answers["/inventory.tsv"] = Answer(body=INVENTORY)
    source_for(
        tenant,
        server,
        stores_url=f"{server.url}/stores.tsv.gz",
        inventory_url=f"{server.url}/inventory.tsv",
    )

    outcomes, failed = sync()

    assert not failed, outcomes
    assert len(prices(tenant)) == 2
    stock = StoreInventory.objects.get()
    assert (stock.store.name, stock.product.item_id, stock.quantity) == ("Berlin Mitte", "SKU-1", 4)


def failed_sync(tenant) -> dict:
    """A sync that must fail and change nothing: its outcome."""
    before = prices(tenant)
    outcomes, failed = sync("--all")
    assert failed and outcomes[0]["status"] == "failed"
    run = ImportRun.objects.get(pk=outcomes[0]["importRunId"])
    assert run.status == "failed"
    assert prices(tenant) == before
    return outcomes[0]


@pytest.fixture
def imported(tenant, server) -> FeedSource:
    """A source whose first version (two items, ETag "v1") is imported."""
    server.answers["/products.tsv"] = Answer(body=FEED, etag='"v1"')
    source = source_for(tenant, server)
    assert sync()[0][0]["status"] == "succeeded"
    return source


def test_a_truncated_gzip_imports_nothing_and_is_fetched_again(tenant, server, imported):
    whole = gzip.compress(tsv([item(1, price="1.00 EUR"), item(2)]).encode())
    server.answers["/products.tsv"] = Answer(
        body=whole[: len(whole) // 2], headers={"Content-Type": "application/gzip"}, etag='"v2"'
    )
    assert "gzip data is truncated" in failed_sync(tenant)["message"]
    # The ETag of the version imported is kept, so the next run asks for the new one again
    server.answers["/products.tsv"] = Answer(body=gzip.compress(FEED), etag='"v2"')
    sync("--all")
    assert server.hits("/products.tsv")[-1]["if-none-match"] == '"v1"'


def test_a_server_error_is_retried_then_recorded(tenant, server, imported):
    server.answers["/products.tsv"] = Answer(status=500, body=b"oops")
    outcome = failed_sync(tenant)
    assert "HTTP 500 (3 attempts)" in outcome["message"]
    assert len(server.hits("/products.tsv")) == 1 + 3


def test_a_server_that_does_not_answer_in_time_is_a_timeout(tenant, server, imported, settings):
    settings.CATALOG_FETCH_TIMEOUT_SECONDS = 0.3
    settings.CATALOG_FETCH_RETRIES = 0
    server.answers["/products.tsv"] = Answer(body=FEED, delay=1.5)
    assert "timed out" in failed_sync(tenant)["message"]


def test_a_server_that_sends_too_slowly_is_cut_off(tenant, server, imported, settings):
    settings.CATALOG_FETCH_MAX_SECONDS = 0.5
    settings.CATALOG_FETCH_RETRIES = 0
    # Each read comes in time; the whole body does not
    server.answers["/products.tsv"] = Answer(body=FEED * 2000, etag='"slow"', chunk_delay=0.05)
    assert "not complete after 0.5 s" in failed_sync(tenant)["message"]


def test_a_feed_that_suddenly_has_no_rows_removes_nothing(tenant, server, imported):
    server.answers["/products.tsv"] = Answer(body=tsv([]).encode(), etag='"empty"')
    outcome = failed_sync(tenant)
    assert (
        "the feed has no items: a full import would have removed every product"
        in (outcome["message"])
    )
    assert len(prices(tenant)) == 2


def test_a_feed_over_the_size_limit_is_refused(tenant, server, imported, settings):
    settings.CATALOG_FETCH_MAX_BYTES = 100
    server.answers["/products.tsv"] = Answer(body=gzip.compress(FEED * 50), etag='"big"')
    assert "larger than CATALOG_FETCH_MAX_BYTES" in failed_sync(tenant)["message"]


def test_a_redirect_to_another_host_is_refused_unless_allowed(tenant, server, settings):
    port = server.url.rsplit(":", 1)[1]
    server.answers["/products.tsv"] = Answer(
        status=302, headers={"Location": f"http://localhost:{port}/moved.tsv"}
    )
    server.answers["/moved.tsv"] = Answer(body=FEED)
    source_for(
        tenant,
        server,
        auth=FeedAuth.HEADER,
        header_name="X-Feed-Token",
        secret_encrypted=secret_encrypt("s3cret"),
    )

    outcomes, failed = sync()
    assert failed
    assert "to another host, localhost: refused" in outcomes[0]["message"]
    assert not server.hits("/moved.tsv") and not prices(tenant)

    settings.CATALOG_FETCH_REDIRECT_HOSTS = ["localhost"]
    outcomes, failed = sync("--all")
    assert not failed and len(prices(tenant)) == 2
    # The secret went to the feed's own host only
    assert server.hits("/products.tsv")[-1]["x-feed-token"] == "s3cret"
    assert "x-feed-token" not in server.hits("/moved.tsv")[-1]


def test_a_redirect_on_the_same_host_is_followed(tenant, server):
    server.answers["/products.tsv"] = Answer(status=301, headers={"Location": "/v2/products.tsv"})
    server.answers["/v2/products.tsv"] = Answer(body=FEED)
    source_for(tenant, server)
    assert sync()[0][0]["status"] == "succeeded"


def test_basic_auth_is_sent_and_the_password_stored_encrypted(tenant, server):
    server.answers["/products.tsv"] = Answer(body=FEED)
    # A password with a space and "!", which the token's URL-safe base64 never holds, so that
    # its absence from the stored token is not chance.
    password = "pass word!"
    source = source_for(
        tenant,
        server,
        auth=FeedAuth.BASIC,
        username="shop",
        secret_encrypted=secret_encrypt(password),
    )
    assert password not in source.secret_encrypted
    sync()
    assert server.hits("/products.tsv")[0]["authorization"] == "Basic c2hvcDpwYXNzIHdvcmQh"


def test_without_the_setting_a_loopback_feed_is_refused_before_any_request(
    tenant, server, settings
):
    settings.CATALOG_FETCH_ALLOW_PRIVATE_ADDRESSES = False
    server.answers["/products.tsv"] = Answer(body=FEED)
    source_for(tenant, server)

    outcomes, failed = sync()

    assert failed
    assert "resolves to 127.0.0.1, an internal address: refused" in outcomes[0]["message"]
    assert not server.requests and not prices(tenant)


def test_only_sources_that_are_due_are_fetched(tenant, server, other_tenant, schedule):
    server.answers["/products.tsv"] = Answer(body=FEED, etag='"v1"')
    source = source_for(tenant, server, every_minutes=30)
    FeedSource.objects.create(
        organization=other_tenant.organization,
        products_url=f"{server.url}/products.tsv",
        enabled=False,
    )

    assert [o["organizationId"] for o in sync()[0]] == [str(tenant.organization.pk)]
    assert sync()[0] == []  # the next fetch is 30 minutes away
    source.refresh_from_db()
    assert timedelta(minutes=29) < next_fetch_in(source) <= timedelta(minutes=30)
    assert len(server.requests) == 1
    # A forced fetch does not wait for the schedule, and moves it
    assert [o["status"] for o in sync("--org", str(tenant.organization.pk))[0]] == ["unchanged"]
    assert len(server.requests) == 2


def test_operators_add_a_source_in_the_console_and_its_secret_is_never_shown(
    operator_client, tenant, server, schedule
):
    form = {
        "organization": tenant.organization.pk,
        "products_url": f"{server.url}/products.tsv",
        "stores_url": "",
        "inventory_url": "",
        "auth": "header",
        "username": "",
        "header_name": "X-Feed-Token",
        "secret": "top-secret-value",
        "every_minutes": "15",
        "full": "on",
        "enabled": "on",
    }
    response = operator_client.post("/admin/knowledge/feedsource/add/", form)
    assert response.status_code == 302, response.content.decode()[:3000]
    source = FeedSource.objects.get(organization=tenant.organization)
    assert source.secret_encrypted and "top-secret-value" not in source.secret_encrypted
    page = operator_client.get(f"/admin/knowledge/feedsource/{source.pk}/change/")
    assert "top-secret-value" not in page.content.decode()
    assert "set (hidden)" in page.content.decode()
    assert "due now" in page.content.decode()  # its next fetch

    # Saved again without a secret: the stored one is kept and used
    form["secret"] = ""
    operator_client.post(f"/admin/knowledge/feedsource/{source.pk}/change/", form)
    server.answers["/products.tsv"] = Answer(body=FEED)
    assert sync()[0][0]["status"] == "succeeded"
    assert server.hits("/products.tsv")[0]["x-feed-token"] == "top-secret-value"
    listing = operator_client.get("/admin/knowledge/feedsource/").content.decode()
    assert f"{server.url}/products.tsv" in listing and "due now" not in listing


def test_only_the_feeds_that_changed_are_imported(tenant, server):
    server.answers["/products.tsv"] = Answer(body=FEED, etag='"p1"')
    server.answers["/stores.tsv"] = Answer(body=STORES, etag='"s1"')
    server.answers["/inventory.tsv"] = Answer(body=INVENTORY, etag='"i1"')
    source_for(
        tenant,
        server,
        stores_url=f"{server.url}/stores.tsv",
        inventory_url=f"{server.url}/inventory.tsv",
    )
    assert sync()[0][0]["status"] == "succeeded"

    server.answers["/inventory.tsv"] = Answer(
        body=INVENTORY.replace(b"in_stock\t4", b"out_of_stock\t0"), etag='"i2"'
    )
    outcomes, failed = sync("--all")

    assert not failed
    run = ImportRun.objects.get(pk=outcomes[0]["importRunId"])
    assert (run.feed_name, run.stores_name) == ("", "")
    assert run.inventory_name == f"{server.url}/inventory.tsv"
    assert StoreInventory.objects.get().availability == "out_of_stock"
    assert len(prices(tenant)) == 2  # the unchanged product feed removed nothing


def sync_processes(count: int, *args: str, **env: str) -> list[list[dict]]:
    """`count` runs of `manage.py sync_catalogs --json` started together, as schedulers on
    separate instances would: each run's outcomes."""
    environment = server_env(CATALOG_FETCH_ALLOW_PRIVATE_ADDRESSES="1", **env)
    processes = [
        subprocess.Popen(
            [sys.executable, "manage.py", "sync_catalogs", *args, "--json"],
            cwd=ROOT,
            env=environment,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(count)
    ]
    runs = []
    for process in processes:
        out, err = process.communicate(timeout=120)
        assert process.returncode == 0, err
        runs.append(json.loads(out.strip().splitlines()[-1])["sources"])
    return runs


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("forced", [(), ("--all",)], ids=["scheduled", "forced"])
def test_two_schedulers_at_once_fetch_a_source_once(tenant, server, redis_url, forced):
    redis.Redis.from_url(redis_url).flushdb()
    # The feed answers after 3 s, so the two runs overlap however their start-up differs
    server.answers["/products.tsv"] = Answer(body=FEED, delay=3.0)
    source_for(tenant, server)

    runs = sync_processes(2, *forced, REDIS_URL=redis_url)

    assert sorted(len(outcomes) for outcomes in runs) == [0, 1]
    assert len(server.requests) == 1
    assert len(prices(tenant)) == 2


@pytest.mark.django_db(transaction=True)
def test_two_schedulers_at_once_without_redis_fetch_a_source_once(tenant, server):
    server.answers["/products.tsv"] = Answer(body=FEED, delay=3.0)
    source_for(tenant, server)

    runs = sync_processes(2, REDIS_URL="")

    assert sorted(len(outcomes) for outcomes in runs) == [0, 1]
    assert len(server.requests) == 1
