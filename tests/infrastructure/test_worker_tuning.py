"""Server worker habits (infrastructure/worker_tuning.py): frozen startup heap, fair turns."""

from __future__ import annotations

import gc
import time

import gevent
import gevent.socket

from infrastructure.worker_tuning import freeze_startup_objects, yield_to_other_connections


def test_full_collections_no_longer_scan_the_startup_heap():
    gc.unfreeze()
    scanned_before = len(gc.get_objects())  # what a full collection walks
    try:
        frozen = freeze_startup_objects()
        scanned_after = len(gc.get_objects())
    finally:
        gc.unfreeze()

    # Django, DRF and every view module: tens of thousands of objects, never scanned again.
    assert frozen > 20_000
    assert scanned_after < scanned_before - 20_000


def test_after_a_request_the_other_ready_connections_run_first():
    turns: list[str] = []

    def connection(name: str, requests: int) -> None:
        for _ in range(requests):
            turns.append(name)  # serves one request (its next one is already waiting)
            yield_to_other_connections()

    gevent.joinall([gevent.spawn(connection, "a", 3), gevent.spawn(connection, "b", 3)])

    assert turns == ["a", "b", "a", "b", "a", "b"]


def test_a_connection_whose_request_waits_in_its_socket_is_served_next():
    # Given a connection whose request has arrived (its greenlet waits to read it)
    served: list[str] = []
    arrived, client = gevent.socket.socketpair()

    def waiting_connection() -> None:
        arrived.recv(1)
        served.append("waiting")

    waiting = gevent.spawn(waiting_connection)
    gevent.sleep(0.01)
    client.send(b"x")

    # When another connection serves request after request without blocking
    def busy_connection() -> None:
        for _ in range(100):
            deadline = time.perf_counter() + 0.0002  # a request's CPU time
            while time.perf_counter() < deadline:
                pass
            served.append("busy")
            yield_to_other_connections()

    gevent.joinall([waiting, gevent.spawn(busy_connection)])
    arrived.close()
    client.close()

    # Then the waiting one is served within a couple of the busy one's requests
    assert served.index("waiting") <= 2
