"""Two instances behind real nginx (deploy/nginx/assistant.conf) on one PostgreSQL and one Redis.

Everything goes through nginx, as a retailer's servers and shoppers' browsers would reach a
deployment of deploy/compose.yaml. nginx's access log (tests/cluster.py) names the instance
that answered each request, so each test also shows that both instances took part.
"""

from __future__ import annotations

import re
import statistics
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from django.db import connection, transaction

from accounts.services import api_key_issue
from accounts.usage import QUOTA_REACHED
from assistant_api.throttling import RATE_LIMITED
from chats.events import EventPublisher
from chats.models import Event, Message
from knowledge.models import PdpQuestionSet
from knowledge.pdp.services import question_set_create
from tests.chats.stream_client import ResumingClient, StreamReader, payloads
from tests.cluster import Cluster, cluster, missing_programs
from tests.conftest import make_tenant
from tests.factories import ChatFactory, OrganizationFactory
from tests.server import free_port, redis_server, server_env

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        connection.vendor != "postgresql",
        reason="several instances share one PostgreSQL (LISTEN/NOTIFY, row locks); "
        "SQLite is a single-machine database",
    ),
    pytest.mark.skipif(
        bool(missing_programs("nginx", "redis-server")),
        reason=missing_programs("nginx", "redis-server") or "",
    ),
]

PARALLEL = 50
RATE_LIMIT = 30  # per key and minute, shared by both instances through Redis
BODY = {"message": "running shoes under 100", "currentUrl": "https://shop.example/"}


@pytest.fixture(scope="module")
def deployment(committed_database, django_db_blocker):
    with django_db_blocker.unblock(), redis_server(free_port()) as redis_url:
        env = server_env(
            REDIS_URL=redis_url,
            RATE_LIMIT_PER_KEY=f"{RATE_LIMIT}/min",
            SSE_KEEPALIVE_SECONDS="1",
            CHAT_CACHE_SECONDS="60",
            API_KEY_CACHE_SECONDS="0.5",
        )
        with cluster(env) as running:
            yield running


def upstreams(deployment: Cluster, method: str, path: str) -> list[str]:
    """The instance address of each request nginx logged for `method path` (any query)."""
    pattern = re.compile(rf"^{method} {re.escape(path)}(\?\S*)? \d+ upstream=(\S+)", re.M)
    return [match.group(2) for match in pattern.finditer(deployment.nginx_log())]


def logged_upstreams(deployment: Cluster, method: str, path: str, count: int) -> list[str]:
    """nginx logs a request when it ends: waits until `count` of them are logged."""
    deadline = time.monotonic() + 10
    while len(found := upstreams(deployment, method, path)) < count:
        assert time.monotonic() < deadline, f"nginx logged {found} for {method} {path}"
        time.sleep(0.1)
    return found


def instance_addresses(deployment: Cluster) -> set[str]:
    return {f"127.0.0.1:{instance.port}" for instance in deployment.instances}


def all_at_once(deployment: Cluster, send, count: int = PARALLEL) -> list[httpx.Response]:
    """`count` requests through nginx released together by a barrier."""
    barrier = threading.Barrier(count)

    def one(index: int) -> httpx.Response:
        with httpx.Client(base_url=deployment.url, timeout=60) as client:
            barrier.wait(timeout=30)
            return send(client, index)

    with ThreadPoolExecutor(max_workers=count) as pool:
        return list(pool.map(one, range(count)))


def away_from_a_minute_boundary() -> None:
    """Rate limits count in fixed one-minute windows: a burst must not straddle two."""
    into_minute = time.time() % 60
    if into_minute > 45:
        time.sleep(61 - into_minute)


def is_final(payload: dict) -> bool:
    """The reply's last event (a tool's end event is `completed` too, with its toolName)."""
    return payload["status"] != "inProgress" and "toolName" not in payload


def test_a_stream_on_one_instance_gets_the_reply_posted_through_the_other(deployment):
    tenant = make_tenant()
    chat = ChatFactory(chatbot=tenant.chatbot)
    headers = {"x-api-key": tenant.key}
    path = f"/v1/chats/{chat.id}/messages/events"

    # Two streams: nginx (least_conn) gives the second to the instance without the first.
    readers = [StreamReader(deployment.url + path, headers).start() for _ in range(2)]
    try:
        with httpx.Client(base_url=deployment.url, headers=headers, timeout=30) as client:
            posted = client.post(f"/v1/chats/{chat.id}/messages", json=BODY)
        assert posted.status_code == 201
        received = [payloads(reader.events_until(is_final)) for reader in readers]
    finally:
        for reader in readers:
            reader.close()

    stored = list(Event.objects.filter(chat=chat).order_by("seq"))
    assert received[0] == received[1]
    assert [event["status"] for event in received[0]] == [event.status for event in stored]
    assert received[0][-1]["content"] == posted.json()["content"]
    # The streams were held by both instances, so one of them is not the one that posted.
    stream_instances = logged_upstreams(deployment, "GET", path, 2)
    assert set(stream_instances) == instance_addresses(deployment)
    (post_instance,) = logged_upstreams(deployment, "POST", f"/v1/chats/{chat.id}/messages", 1)
    assert post_instance in stream_instances


def test_the_rate_limit_holds_across_instances(deployment):
    tenant = make_tenant()
    chats = [ChatFactory(chatbot=tenant.chatbot) for _ in range(5)]
    away_from_a_minute_boundary()

    responses = all_at_once(
        deployment,
        lambda client, n: client.post(
            f"/v1/chats/{chats[n % 5].id}/messages", json=BODY, headers={"x-api-key": tenant.key}
        ),
    )

    statuses = [response.status_code for response in responses]
    assert statuses.count(201) == RATE_LIMIT
    limited = [r.json()["message"] for r in responses if r.status_code == 429]
    assert limited == [RATE_LIMITED] * (PARALLEL - RATE_LIMIT)
    stored = Message.objects.filter(chat__organization=tenant.organization, type="user")
    assert stored.count() == RATE_LIMIT
    served_by = {
        u for chat in chats for u in upstreams(deployment, "POST", f"/v1/chats/{chat.id}/messages")
    }
    assert served_by == instance_addresses(deployment)


def test_the_monthly_quota_holds_across_instances(deployment):
    tenant = make_tenant(monthly_quota=10)
    chats = [ChatFactory(chatbot=tenant.chatbot) for _ in range(5)]
    away_from_a_minute_boundary()

    responses = all_at_once(
        deployment,
        lambda client, n: client.post(
            f"/v1/chats/{chats[n % 5].id}/messages", json=BODY, headers={"x-api-key": tenant.key}
        ),
    )

    statuses = [response.status_code for response in responses]
    assert statuses.count(201) == 10
    refusals = [r.json()["message"] for r in responses if r.status_code == 429]
    # 30 pass the rate limit; of those, the quota lets 10 through.
    assert sorted(refusals) == sorted(
        [RATE_LIMITED] * (PARALLEL - RATE_LIMIT) + [QUOTA_REACHED] * (RATE_LIMIT - 10)
    )
    organization = tenant.organization
    assert Message.objects.filter(chat__organization=organization, type="user").count() == 10
    assert Message.objects.filter(chat__organization=organization, type="answer").count() == 10
    with httpx.Client(base_url=deployment.url, timeout=30) as client:
        usage = client.get("/v1/usage", headers={"x-api-key": make_key(tenant)}).json()
    assert usage["messages"] == 10 and usage["remaining"] == 0


def make_key(tenant) -> str:
    """A second key of the tenant's organization (the first one has used its minute)."""
    return api_key_issue(organization=tenant.organization).key


def test_a_pdp_sets_count_is_exact_across_instances(deployment):
    organization = OrganizationFactory()
    stored = question_set_create(
        organization=organization,
        url="https://shop.example/p/1",
        product_title="One",
        questions=["A?", "B?", "C?"],
    )
    path = f"/v1/knowledge/pdp-questions/{organization.id}/public"

    responses = all_at_once(
        deployment, lambda client, n: client.get(path, params={"url": "https://shop.example/p/1"})
    )

    assert [response.status_code for response in responses] == [200] * PARALLEL
    # Each instance's workers add their counts every PDP_COUNT_FLUSH_SECONDS (1 s).
    deadline = time.monotonic() + 10
    while PdpQuestionSet.objects.get(pk=stored.pk).requests < PARALLEL:
        assert time.monotonic() < deadline
        time.sleep(0.2)
    time.sleep(1.5)  # a flush interval more: nothing else may arrive
    assert PdpQuestionSet.objects.get(pk=stored.pk).requests == PARALLEL
    assert set(upstreams(deployment, "GET", path)) == instance_addresses(deployment)


def test_nginx_does_not_buffer_the_stream(deployment):
    tenant = make_tenant()
    chat = ChatFactory(chatbot=tenant.chatbot)
    url = f"{deployment.url}/v1/chats/{chat.id}/messages/events"
    publisher = EventPublisher(chat_id=chat.id)
    delays = []
    with StreamReader(url, {"x-api-key": tenant.key}) as reader:
        assert reader.response_headers is not None
        assert reader.response_headers["content-type"].startswith("text/event-stream")
        publisher.typing()  # wakes the instance's listener: its LISTEN is in place after this
        reader.events(1)
        for number in range(5):
            time.sleep(0.2)
            event = publisher.chunk(f"word{number} ")
            committed = time.monotonic()
            (received,) = reader.events(1, timeout=5)
            delays.append(time.monotonic() - committed)
            assert received.id == str(event.seq)
    # A buffering proxy holds small events until its buffer fills or the stream ends.
    assert statistics.median(delays) < 0.1, delays
    assert max(delays) < 1.0, delays


def test_stopping_an_instance_moves_its_streams_to_the_other_losing_nothing(deployment):
    tenant = make_tenant()
    chat = ChatFactory(chatbot=tenant.chatbot)
    url = f"{deployment.url}/v1/chats/{chat.id}/messages/events"
    clients = [ResumingClient(url, tenant.key) for _ in range(6)]
    for client in clients:
        client.thread.start()
        assert client.opened.wait(15)
    publisher = EventPublisher(chat_id=chat.id)
    first = deployment.instances[0]
    published: list[int] = []
    try:
        for number in range(40):
            published.append(publisher.chunk(f"w{number} ").seq)
            if number == 10:
                # A graceful stop, as a deploy does: its streams end, clients come back through
                # nginx, which sends them to the other instance.
                stopper = threading.Thread(target=first.stop)
                stopper.start()
            time.sleep(0.05)
        stopper.join(30)
        deadline = time.monotonic() + 30
        while any(len(client.ids) < len(published) for client in clients):
            assert time.monotonic() < deadline, [len(client.ids) for client in clients]
            time.sleep(0.1)
    finally:
        for client in clients:
            client.stopping.set()
        first.start()
        time.sleep(3.5)  # nginx's fail_timeout: the next test gets both instances again

    for client in clients:
        assert client.ids == published  # every event once, in order
        assert set(client.opens) == {200}
    # The three streams nginx gave the stopped instance reconnected.
    assert sum(len(client.opens) > 1 for client in clients) >= 3


def test_a_stream_on_a_reloaded_worker_gets_a_reply_that_was_being_written(deployment):
    # Given a reply of one chat whose transaction took its sequence numbers and has not
    # committed yet, while an event of another chat, with a higher seq, is already committed
    tenant = make_tenant()
    chat, other = ChatFactory(chatbot=tenant.chatbot), ChatFactory(chatbot=tenant.chatbot)
    seen = EventPublisher(chat_id=chat.id).chunk("seen ")
    for instance in deployment.instances:
        instance.reload_and_wait()  # every worker is new: no stream has opened on it yet
    taken = threading.Event()
    commit = threading.Event()
    pending: list[int] = []

    def write_late() -> None:
        try:
            with transaction.atomic():
                pending.append(EventPublisher(chat_id=chat.id).chunk("late ").seq)
                taken.set()
                commit.wait(30)
        finally:
            connection.close()

    writer = threading.Thread(target=write_late)
    writer.start()
    try:
        assert taken.wait(10)
        later = EventPublisher(chat_id=other.id).chunk("later ")
        assert later.seq > pending[0]
        # When the chat's stream resumes on a new worker (the first stream that worker opens)
        # and the reply commits
        url = f"{deployment.url}/v1/chats/{chat.id}/messages/events"
        headers = {"x-api-key": tenant.key, "Last-Event-ID": str(seen.seq)}
        with StreamReader(url, headers) as reader:
            commit.set()
            writer.join(10)
            # Then the stream sends the reply's event
            (received,) = reader.events(1, timeout=5)
    finally:
        commit.set()
        writer.join(10)
    assert received.id == str(pending[0])


def test_a_reload_keeps_answering_and_its_streams_lose_nothing(deployment):
    # Given four clients following a chat's stream through nginx, and a client polling
    tenant = make_tenant()
    chat = ChatFactory(chatbot=tenant.chatbot)
    url = f"{deployment.url}/v1/chats/{chat.id}/messages/events"
    clients = [ResumingClient(url, tenant.key) for _ in range(4)]
    for client in clients:
        client.thread.start()
        assert client.opened.wait(15)
    stop = threading.Event()
    answers: list[tuple[int, float]] = []
    published: list[int] = []

    def poll() -> None:
        with httpx.Client(base_url=deployment.url, timeout=60) as client:
            while not stop.is_set():
                started = time.monotonic()
                status = client.get("/healthz").status_code
                answers.append((status, time.monotonic() - started))
                time.sleep(0.05)

    def publish() -> None:
        publisher = EventPublisher(chat_id=chat.id)
        try:
            while not stop.is_set():
                published.append(publisher.chunk(f"w{len(published)} ").seq)
                time.sleep(0.05)
        finally:
            connection.close()

    threads = [threading.Thread(target=poll), threading.Thread(target=publish)]
    try:
        for thread in threads:
            thread.start()
        # When both instances reload (SIGHUP), one after the other
        for instance in deployment.instances:
            instance.reload_and_wait()
        time.sleep(1)
        stop.set()
        for thread in threads:
            thread.join(30)
        deadline = time.monotonic() + 30
        while any(len(client.ids) < len(published) for client in clients):
            assert time.monotonic() < deadline, [len(client.ids) for client in clients]
            time.sleep(0.1)
    finally:
        stop.set()
        for client in clients:
            client.stopping.set()

    # Then no request waited for the new workers to load the application (seconds), and
    # every client, its stream ended by an old worker, resumed with every event once, in order
    assert {status for status, _ in answers} == {200}
    assert max(seconds for _, seconds in answers) < 2.0, sorted(s for _, s in answers)[-5:]
    for client in clients:
        assert client.ids == published
        assert set(client.opens) == {200}
        assert len(client.opens) > 1
