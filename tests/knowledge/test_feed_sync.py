"""Scheduled feed sources (`sync_catalogs`) against a feed server on loopback: conditional
GET, gzip, failures that change nothing, redirects, the address check, the schedule."""

from __future__ import annotations

import gzip
import json
from datetime import timedelta
from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from knowledge.models import FeedAuth, FeedSource, ImportRun, Product, StoreInventory
from knowledge.sources.credentials import secret_encrypt
from tests.knowledge.catalog_files import item, tsv
from tests.knowledge.feed_server import Answer, feed_server

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
    return settings


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


def test_a_changed_feed_is_imported_and_an_unchanged_one_costs_one_request(tenant, server):
    server.answers["/products.tsv"] = Answer(body=FEED, etag='"v1"')
    source_for(tenant, server)

    outcomes, failed = sync()

    assert not failed and [o["status"] for o in outcomes] == ["succeeded"]
    assert prices(tenant) == {"SKU-1": Decimal("89.90"), "SKU-2": Decimal("89.90")}
    run = ImportRun.objects.get(pk=outcomes[0]["importRunId"])
    assert (run.source, run.status, run.created) == ("sync", "succeeded", 2)

    # Unchanged: one request with the ETag, 304, and no write but the schedule's
    with CaptureQueriesContext(connection) as queries:
        outcomes, failed = sync("--all")
    assert [o["status"] for o in outcomes] == ["unchanged"]
    assert server.hits("/products.tsv")[-1]["if-none-match"] == '"v1"'
    assert len(server.hits("/products.tsv")) == 2
    writes = [q["sql"] for q in queries if q["sql"].split()[0] in ("INSERT", "UPDATE", "DELETE")]
    assert len(writes) == 1 and "knowledge_feedsource" in writes[0]
    assert ImportRun.objects.count() == 1

    # Changed: a new version is imported
    server.answers["/products.tsv"] = Answer(
        body=tsv([item(1, price="79.00 EUR"), item(2)]).encode(), etag='"v2"'
    )
    outcomes, _ = sync("--all")
    assert outcomes[0]["status"] == "succeeded"
    assert prices(tenant)["SKU-1"] == Decimal("79.00")


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
    source = source_for(
        tenant, server, auth=FeedAuth.BASIC, username="shop", secret_encrypted=secret_encrypt("pw")
    )
    assert "pw" not in source.secret_encrypted
    sync()
    assert server.hits("/products.tsv")[0]["authorization"] == "Basic c2hvcDpwdw=="


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


def test_only_sources_that_are_due_are_fetched(tenant, server, other_tenant):
    server.answers["/products.tsv"] = Answer(body=FEED, etag='"v1"')
    source = source_for(tenant, server, every_minutes=30)
    FeedSource.objects.create(
        organization=other_tenant.organization,
        products_url=f"{server.url}/products.tsv",
        next_fetch_at=timezone.now() + timedelta(minutes=5),
    )

    assert [o["organizationId"] for o in sync()[0]] == [str(tenant.organization.pk)]
    assert sync()[0] == []  # the next fetch is 30 minutes away
    source.refresh_from_db()
    assert timedelta(minutes=29) < source.next_fetch_at - timezone.now() <= timedelta(minutes=30)
    assert len(server.requests) == 1


def test_operators_add_a_source_in_the_console_and_its_secret_is_never_shown(
    operator_client, tenant, server
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
        "next_fetch_at_0": "2026-01-01",
        "next_fetch_at_1": "00:00:00",
    }
    response = operator_client.post("/admin/knowledge/feedsource/add/", form)
    assert response.status_code == 302, response.content.decode()[:3000]
    source = FeedSource.objects.get(organization=tenant.organization)
    assert source.secret_encrypted and "top-secret-value" not in source.secret_encrypted
    page = operator_client.get(f"/admin/knowledge/feedsource/{source.pk}/change/")
    assert "top-secret-value" not in page.content.decode()
    assert "set (hidden)" in page.content.decode()

    # Saved again without a secret: the stored one is kept and used
    form["secret"] = ""
    operator_client.post(f"/admin/knowledge/feedsource/{source.pk}/change/", form)
    server.answers["/products.tsv"] = Answer(body=FEED)
    assert sync()[0][0]["status"] == "succeeded"
    assert server.hits("/products.tsv")[0]["x-feed-token"] == "top-secret-value"


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
