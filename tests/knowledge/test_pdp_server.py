"""The PDP endpoints on the real server (gunicorn + gevent): exact counts, the creation race, CORS.

`live` runs with the default configuration, where each worker buffers request counts and adds
them every PDP_COUNT_FLUSH_SECONDS (1 s); `workers` runs several worker processes that write
each count at once (PDP_COUNT_FLUSH_SECONDS=0). Both must count every request exactly once.
"""

from __future__ import annotations

import threading
import time
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
def workers_process(committed_database, django_db_blocker):
    """A server with several worker processes: on SQLite one gevent worker runs each request
    to the end without switching, so only separate processes can race for the same URL."""
    with (
        django_db_blocker.unblock(),
        start_server(WEB_CONCURRENCY="3", PDP_COUNT_FLUSH_SECONDS="0") as server,
    ):
        yield server


@pytest.fixture
def workers(workers_process, transactional_db) -> LiveServer:
    return workers_process


def settled_counts(question_sets, expected: int, timeout: float = 10) -> list[int]:
    """The stored counts once all reached `expected` (or the timeout passed) and then held."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        counts = [PdpQuestionSet.objects.get(pk=s.pk).requests for s in question_sets]
        if min(counts) >= expected:
            break
        time.sleep(0.2)
    time.sleep(1.5)  # longer than a flush interval: nothing more may arrive
    return [PdpQuestionSet.objects.get(pk=s.pk).requests for s in question_sets]


def settled_count(question_set: PdpQuestionSet, expected: int) -> int:
    return settled_counts([question_set], expected)[0]


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
    assert settled_count(stored, PARALLEL) == PARALLEL
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
    assert settled_count(question_set, PARALLEL) == PARALLEL
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
    question_sets = list(PdpQuestionSet.objects.filter(organization=organization))
    assert len(question_sets) == len(products)
    assert settled_counts(question_sets, 2) == [2] * len(products)


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


def test_buffered_counts_are_written_when_a_server_stops():
    # Given a server with a long flush interval, so only the exit can write the counts
    organization = OrganizationFactory()
    stored = question_set_create(
        organization=organization,
        url="https://shop.example/p/2",
        product_title=None,
        questions=["Q?"],
    )
    path = f"/v1/knowledge/pdp-questions/{organization.id}/public"
    with start_server(PDP_COUNT_FLUSH_SECONDS="600", WEB_CONCURRENCY="2") as server:
        with server.client() as client:
            for _ in range(30):
                assert (
                    client.get(path, params={"url": "https://shop.example/p/2"}).status_code == 200
                )
        stored.refresh_from_db()
        assert stored.requests < 30  # still buffered
        # When it stops (SIGTERM, as a deploy does)
        server.process.terminate()
        server.process.wait(timeout=30)
    # Then every request was counted
    stored.refresh_from_db()
    assert stored.requests == 30


def stored_set(url: str, question: str) -> tuple[PdpQuestionSet, str, dict[str, str]]:
    """A set of one question for `url`, with the path and query of its public GET."""
    organization = OrganizationFactory()
    stored = question_set_create(
        organization=organization, url=url, product_title=None, questions=[question]
    )
    return stored, f"/v1/knowledge/pdp-questions/{organization.id}/public", {"url": url}


def test_an_admin_edit_is_served_within_a_flush_interval(live):
    from django.utils import timezone

    stored, path, params = stored_set("https://shop.example/p/3", "Old?")
    with live.client() as client:
        before = client.get(path, params=params)
        assert before.json()["questions"][0]["text"] == "Old?"
        # An edit as the admin saves it: the text, and the set's updated_at.
        stored.questions.update(text="New?")
        PdpQuestionSet.objects.filter(pk=stored.pk).update(updated_at=timezone.now())

        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            response = client.get(path, params=params)
            if response.json()["questions"][0]["text"] == "New?":
                break
            time.sleep(0.2)
        assert response.json()["questions"][0]["text"] == "New?"
        assert response.headers["etag"] != before.headers["etag"]


def test_a_worker_idle_for_a_set_answers_with_the_counts_others_wrote_since(live):
    from django.db.models import F

    stored, path, params = stored_set("https://shop.example/p/4", "Idle?")
    with live.client() as client:
        # Given a worker that served the set once and wrote its count
        assert client.get(path, params=params).json()["requests"] == 1
        assert settled_count(stored, 1) == 1
        # When other workers or instances count 100 requests meanwhile
        PdpQuestionSet.objects.filter(pk=stored.pk).update(requests=F("requests") + 100)
        time.sleep(1.2)  # more than a flush interval
        # Then its next response includes them, and its own request
        assert client.get(path, params=params).json()["requests"] == 102
    assert settled_count(stored, 102) == 102
