"""The PDP endpoints on the real server (gunicorn + gevent): exact counts, the creation race, CORS."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from knowledge.models import PdpQuestion, PdpQuestionSet
from knowledge.pdp.services import question_set_create
from tests.factories import OrganizationFactory, ProductFactory
from tests.server import LiveServer, start_server

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

PARALLEL = 50
POST_PATH = "/v1/knowledge/pdp-questions/public/get-questions"


@pytest.fixture(scope="module")
def workers_process(django_db_setup, django_db_blocker):
    """A server with several worker processes: on SQLite one gevent worker runs each request
    to the end without switching, so only separate processes can race for the same URL."""
    with django_db_blocker.unblock(), start_server(WEB_CONCURRENCY="3") as server:
        yield server


@pytest.fixture
def workers(workers_process, transactional_db) -> LiveServer:
    return workers_process


def parallel(live, send, count: int = PARALLEL) -> list[httpx.Response]:
    """Fires `count` requests at once: every thread waits at a barrier, then sends."""
    barrier = threading.Barrier(count)

    def one(_: int) -> httpx.Response:
        with live.client() as client:
            barrier.wait(timeout=30)
            return send(client)

    with ThreadPoolExecutor(max_workers=count) as pool:
        return list(pool.map(one, range(count)))


@pytest.mark.parametrize("server", ["live", "workers"])
def test_parallel_gets_are_all_counted(request, server):
    live = request.getfixturevalue(server)
    organization = OrganizationFactory()
    stored = question_set_create(
        organization=organization,
        url="https://shop.example/p/1",
        product_title="One",
        questions=["A?", "B?", "C?"],
    )
    path = f"/v1/knowledge/pdp-questions/{organization.id}/public"

    responses = parallel(live, lambda c: c.get(path, params={"url": "https://shop.example/p/1"}))

    assert [response.status_code for response in responses] == [200] * PARALLEL
    stored.refresh_from_db()
    assert stored.requests == PARALLEL
    # Each response saw a count between 1 and 50.
    assert all(1 <= response.json()["requests"] <= PARALLEL for response in responses)


@pytest.mark.parametrize("server", ["live", "workers"])
def test_parallel_first_posts_create_one_set_and_count_every_request(request, server):
    live = request.getfixturevalue(server)
    organization = OrganizationFactory()
    product = ProductFactory(
        organization=organization,
        url="https://shop.example/p/new",
        title="Canvas Tote Bag",
        product_type="Bags",
    )
    body = {"url": product.url + "?utm_source=x", "organizationId": str(organization.id)}

    responses = parallel(live, lambda c: c.post(POST_PATH, json=body))

    assert [response.status_code for response in responses] == [200] * PARALLEL
    ids = {response.json()["id"] for response in responses}
    assert len(ids) == 1
    question_set = PdpQuestionSet.objects.get(organization=organization)
    assert str(question_set.id) in ids
    assert question_set.requests == PARALLEL
    count = PdpQuestion.objects.filter(question_set=question_set).count()
    assert 3 <= count <= 6
    assert all(len(response.json()["questions"]) == count for response in responses)


@pytest.mark.parametrize("server", ["live", "workers"])
def test_two_simultaneous_first_requests_create_exactly_one_set(request, server):
    live = request.getfixturevalue(server)
    organization = OrganizationFactory()
    products = [
        ProductFactory(organization=organization, url=f"https://shop.example/race/{n}")
        for n in range(10)
    ]
    for product in products:
        body = {"url": product.url, "organizationId": str(organization.id)}
        first, second = parallel(live, lambda c, body=body: c.post(POST_PATH, json=body), count=2)
        assert first.status_code == second.status_code == 200
        assert first.json()["id"] == second.json()["id"]
        assert sorted([first.json()["requests"], second.json()["requests"]])[-1] >= 1
        question_set = PdpQuestionSet.objects.get(organization=organization, url=product.url)
        assert question_set.requests == 2
    assert PdpQuestionSet.objects.filter(organization=organization).count() == len(products)


def test_cors_over_real_http(live):
    organization = OrganizationFactory(allowed_origins=["http://127.0.0.1:9"])
    question_set_create(
        organization=organization,
        url="https://shop.example/p",
        product_title=None,
        questions=["Q?"],
    )
    path = f"/v1/knowledge/pdp-questions/{organization.id}/public"
    with live.client() as client:
        preflight = client.options(
            POST_PATH,
            headers={
                "Origin": "https://anyone.example",
                "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "content-type",
            },
        )
        assert preflight.status_code == 200
        assert preflight.headers["access-control-allow-origin"] == "*"
        assert preflight.headers["access-control-allow-methods"] == "GET, POST, OPTIONS"

        listed = client.get(
            path, params={"url": "https://shop.example/p"}, headers={"Origin": "http://127.0.0.1:9"}
        )
        assert listed.headers["access-control-allow-origin"] == "http://127.0.0.1:9"
        assert listed.headers["cache-control"] == "public, max-age=60"
        refused = client.get(
            path,
            params={"url": "https://shop.example/p"},
            headers={"Origin": "https://evil.example"},
        )
        assert refused.status_code == 200
        assert "access-control-allow-origin" not in refused.headers

        for method in ("POST", "GET"):
            chats = client.options(
                "/v1/chats",
                headers={
                    "Origin": "https://anyone.example",
                    "Access-Control-Request-Method": method,
                },
            )
            assert "access-control-allow-origin" not in chats.headers
