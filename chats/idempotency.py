"""`Idempotency-Key` of `POST .../messages` (docs/api.md#idempotency): one reply per key and chat.

The record is inserted, before the assistant runs, in the same short transaction as the user's
message, so its unique constraint on (chat, key) decides which of several identical requests
does the work. The others find the record and wait for the winner's outcome.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import orjson
from django.utils import timezone

from assistant_api.errors import ServiceUnavailableError, ValidationFailedError
from chats.models import Chat, IdempotencyRecord
from infrastructure.turns import held_turn_end

MAX_KEY_CHARS = 255
KEY_LIFETIME = timedelta(hours=24)
# How long an identical concurrent request waits for the first one's reply (an LLM is slow).
WAIT_SECONDS = 60.0
# A claimed key with no outcome after this long belongs to a request that died (its worker was
# killed, or the database stayed away longer than the reply's retry of its `failed` event). No
# live reply takes this long: the openai engine's budget is OPENAI_TIMEOUT_SECONDS (30 s) and
# identical requests stop waiting after WAIT_SECONDS. A retry then takes the key over instead of
# being told to "retry shortly" for the rest of the 24 hours.
IN_PROGRESS_LEASE = timedelta(seconds=2 * WAIT_SECONDS)
KEY_TOO_LONG = f"Idempotency-Key must be at most {MAX_KEY_CHARS} characters"
KEY_NOT_PRINTABLE = "Idempotency-Key must not contain control characters"
KEY_REUSED = "Idempotency-Key was already used with a different request body"
STILL_ANSWERING = "A request with this Idempotency-Key is still being answered; retry shortly"


@dataclass(frozen=True)
class Outcome:
    """What `POST .../messages` answers: a status and a JSON body."""

    status_code: int
    body: dict[str, Any]


def idempotency_key_clean(value: str | None) -> str | None:
    """The header's key, None when absent or blank; 422 when too long."""
    if value is None or not value.strip():
        return None
    if len(value) > MAX_KEY_CHARS:
        raise ValidationFailedError(KEY_TOO_LONG, errors={"Idempotency-Key": [KEY_TOO_LONG]})
    if not value.isprintable():  # a NUL cannot even be stored in PostgreSQL text (was a 500)
        raise ValidationFailedError(
            KEY_NOT_PRINTABLE, errors={"Idempotency-Key": [KEY_NOT_PRINTABLE]}
        )
    return value


def request_fingerprint(*, message: str, current_url: str, store_code: str) -> str:
    """Same key with a different body is refused: this is what "the body" means here."""
    return hashlib.sha256(orjson.dumps([message, current_url, store_code])).hexdigest()


def idempotency_record_find(*, chat: Chat, key: str) -> IdempotencyRecord | None:
    """The live record of the key; one older than 24 hours is deleted and counts as none."""
    record = IdempotencyRecord.objects.filter(chat=chat, key=key).first()
    if record is not None and record.created_at < timezone.now() - KEY_LIFETIME:
        record.delete()
        return None
    return record


def idempotency_fingerprint_check(*, record: IdempotencyRecord, fingerprint: str) -> None:
    if record.request_hash != fingerprint:
        raise ValidationFailedError(KEY_REUSED, errors={"Idempotency-Key": [KEY_REUSED]})


def idempotency_record_take_over(*, record: IdempotencyRecord, fingerprint: str) -> bool:
    """Claims a key whose request died without an outcome; False while its lease runs.

    One conditional UPDATE, so of several retries at once exactly one takes it over; the
    others wait for that one's outcome like any identical request. The claim restarts the
    lease (and the 24 hours) from now.
    """
    idempotency_fingerprint_check(record=record, fingerprint=fingerprint)
    now = timezone.now()
    if record.status_code is not None or record.created_at > now - IN_PROGRESS_LEASE:
        return False
    claimed = IdempotencyRecord.objects.filter(
        pk=record.pk, status_code__isnull=True, created_at=record.created_at
    ).update(created_at=now)
    return claimed == 1


def idempotency_outcome_replay(*, record: IdempotencyRecord, fingerprint: str) -> Outcome:
    """The first request's outcome, waiting briefly while that request is still running."""
    idempotency_fingerprint_check(record=record, fingerprint=fingerprint)
    deadline = time.monotonic() + WAIT_SECONDS
    delay = 0.01
    while record.status_code is None:
        held_turn_end()  # waiting on the other request: the next message goes in meanwhile
        if time.monotonic() >= deadline:
            raise ServiceUnavailableError(STILL_ANSWERING, headers={"Retry-After": "1"})
        time.sleep(delay)
        delay = min(delay * 2, 0.1)
        refreshed = IdempotencyRecord.objects.filter(pk=record.pk).first()
        if refreshed is None:  # the winner failed before storing anything; retry afresh
            raise ServiceUnavailableError(STILL_ANSWERING, headers={"Retry-After": "1"})
        record = refreshed
    return Outcome(status_code=record.status_code, body=orjson.loads(record.response_json or "{}"))


def idempotency_outcome_save(*, record: IdempotencyRecord, outcome: Outcome) -> None:
    IdempotencyRecord.objects.filter(pk=record.pk).update(
        status_code=outcome.status_code, response_json=orjson.dumps(outcome.body).decode()
    )
