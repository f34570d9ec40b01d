"""infrastructure/turns.py: how turns are handed out (the server's side of it:
tests/chats/test_message_turns_server.py)."""

from __future__ import annotations

import threading
import time

from infrastructure.turns import OVERDUE_LEASES, Turns, held_turn_end


def wait_in_thread(turns: Turns, owner: str, granted: list[str]) -> threading.Thread:
    """Takes a turn in a thread; notes the owner when it gets it, and gives it back at once."""

    def take() -> None:
        turn = turns.take(owner)
        granted.append(owner)
        turn.end()

    thread = threading.Thread(target=take, daemon=True)
    thread.start()
    return thread


def waiting(turns: Turns, count: int) -> None:
    """Until `count` waiters are in line."""
    deadline = time.monotonic() + 5
    while True:
        with turns._lock:
            if sum(len(line) for line in turns._lines.values()) >= count:
                return
        assert time.monotonic() < deadline, "the waiters never got in line"
        time.sleep(0.001)


def test_lines_are_served_one_owner_after_the_other():
    turns = Turns(size=1, lease=60)
    granted: list[str] = []
    with turns.turn("a"):
        # Given two more of a's waiting, then one of b's
        threads = [wait_in_thread(turns, "a", granted)]
        waiting(turns, 1)
        threads += [wait_in_thread(turns, "a", granted)]
        waiting(turns, 2)
        threads += [wait_in_thread(turns, "b", granted)]
        waiting(turns, 3)
    # When the turn is given back, then b goes in after one of a's, not after both
    for thread in threads:
        thread.join(timeout=5)
    assert granted == ["a", "b", "a"]


def test_a_turn_past_its_lease_lets_the_next_in_and_its_end_frees_no_second_place():
    turns = Turns(size=1, lease=0.3)
    slow = turns.take("a")
    started = time.monotonic()
    # Given a turn held past its lease: the next waiter goes in when the lease is over
    beside = turns.take("b")
    assert 0.25 <= time.monotonic() - started < 2
    # When the late turn ends, then it gives back nothing: one place, still held by b's
    slow.end()
    granted: list[str] = []
    thread = wait_in_thread(turns, "c", granted)
    waiting(turns, 1)
    assert granted == []
    beside.end()
    thread.join(timeout=5)
    assert granted == ["c"]


def test_an_overdue_turn_keeps_its_owners_line_waiting_until_it_ends():
    turns = Turns(size=1, lease=0.1)
    slow = turns.take("a")
    granted: list[str] = []
    # Given a's next waiting behind a's turn, then b's
    waiter_a = wait_in_thread(turns, "a", granted)
    waiting(turns, 1)
    waiter_b = wait_in_thread(turns, "b", granted)
    # When a's turn is past its lease, then b's goes in, and a's only once that turn ends
    waiter_b.join(timeout=5)
    time.sleep(0.2)
    assert granted == ["b"]
    slow.end()
    waiter_a.join(timeout=5)
    assert granted == ["b", "a"]


def test_a_turn_never_given_back_is_forgotten_after_the_overdue_leases():
    turns = Turns(size=1, lease=0.02)
    turns.take("a")  # its thread died, say: never ended
    started = time.monotonic()
    turns.take("a").end()
    assert OVERDUE_LEASES * 0.02 * 0.9 <= time.monotonic() - started < 2


def test_held_turn_end_gives_back_the_turn_of_this_thread_only():
    turns = Turns(size=1, lease=60)
    granted: list[str] = []
    with turns.turn("a"):
        # Another thread's held_turn_end does not give this thread's turn back
        elsewhere = threading.Thread(target=held_turn_end)
        elsewhere.start()
        elsewhere.join()
        other = wait_in_thread(turns, "b", granted)
        waiting(turns, 1)
        assert granted == []
        held_turn_end()  # as a reply does before it waits on its model
        other.join(timeout=5)
        assert granted == ["b"]
    held_turn_end()  # holding none: nothing
    started = time.monotonic()
    turns.take("c").end()  # the one place is free
    assert time.monotonic() - started < 0.1
