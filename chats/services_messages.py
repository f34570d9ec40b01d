"""Answering a shopper's message (docs/api.md#add-a-message): store it, run the assistant,
store the reply.

The user's message is stored with its quota count (chats/message_insert.py); the engine then
runs outside any transaction, so each event it publishes is committed (and streamed) as it
happens (docs/api.md#event-stream).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from django.db import IntegrityError, InterfaceError, OperationalError, connection

from accounts.models import Chatbot, Organization
from assistant_api.errors import ValidationFailedError
from chats.events import EventObserver, EventPublisher
from chats.history_cache import history_changed, history_maybe_changed
from chats.idempotency import (
    Outcome,
    idempotency_fingerprint_check,
    idempotency_outcome_replay,
    idempotency_outcome_save,
    idempotency_record_find,
    idempotency_record_take_over,
    request_fingerprint,
)
from chats.message_insert import user_message_store
from chats.models import Chat, IdempotencyRecord, Message, MessageType
from chats.serializers import MessageOutput
from infrastructure.prepared import PreparedQuery
from infrastructure.turns import held_turn_end
from knowledge.engines import engine_for
from knowledge.engines.base import (
    EngineError,
    PastMessage,
    Reply,
    ReplyRequest,
    answers_at_once,
    ends_its_turn,
)
from knowledge.models import Store

logger = logging.getLogger(__name__)

ASSISTANT_FAILED = "The assistant could not complete the response"
REPLY_INTERRUPTED = "The reply was interrupted; answering the message again"
UNKNOWN_STORE = "Unknown store code"
# The engine sees the recent conversation only: enough for follow-ups, cheap to load.
HISTORY_LIMIT = 30
DATABASE_ERRORS = (OperationalError, InterfaceError)
# How long a reply that lost the database keeps trying to write its `failed` event and its
# outcome (docs/api.md#add-a-message).
DATABASE_RETRY_SECONDS = 30.0


def store_resolve(*, organization: Organization, store_code: str | None) -> Store | None:
    """The organization's store with that code; None when no code is given; else 422."""
    if not store_code:
        return None
    if not store_code.isprintable():  # no code has a control character; a NUL made a 500
        raise ValidationFailedError(UNKNOWN_STORE, errors={"store": [UNKNOWN_STORE]})
    store = Store.objects.filter(organization=organization, code=store_code).first()
    if store is None:
        raise ValidationFailedError(UNKNOWN_STORE, errors={"store": [UNKNOWN_STORE]})
    return store


@dataclass(frozen=True)
class AcceptedMessage:
    """A shopper's message that passed every check (and is stored, unless it repeats an
    earlier request), with what produces its reply.

    `fresh`: producing the reply runs the assistant now, publishing its events as it goes;
    otherwise it is the outcome of an earlier request with the same `Idempotency-Key`.
    `observe` (EventPublisher's) is handed the events of this reply, and of no other, as they
    are written.
    """

    fresh: bool
    produce: Callable[[EventObserver | None], Outcome]

    def reply(self, *, observe: EventObserver | None = None) -> Outcome:
        return self.produce(observe)


def message_create(
    *,
    organization: Organization,
    chat: Chat,
    content: str,
    current_url: str,
    store_code: str | None,
    idempotency_key: str | None,
) -> Outcome:
    """Answers one message of the shopper: 201 and the reply, or 503 if the assistant failed."""
    return message_accept(
        organization=organization,
        chat=chat,
        content=content,
        current_url=current_url,
        store_code=store_code,
        idempotency_key=idempotency_key,
    ).reply()


def message_accept(
    *,
    organization: Organization,
    chat: Chat,
    content: str,
    current_url: str,
    store_code: str | None,
    idempotency_key: str | None,
) -> AcceptedMessage:
    """Everything of `message_create` that can refuse the message (store, quota, key reused
    with another body), done now; the assistant's reply is left to `AcceptedMessage.reply()`.

    Split so a streaming response (chats/ui/views.py) answers refusals as ordinary JSON
    errors before its stream starts, and then streams the reply as it is produced.
    """
    incoming = _Incoming(
        organization=organization,
        chat=chat,
        content=content,
        current_url=current_url,
        store_code=store_code or "",
        store=store_resolve(organization=organization, store_code=store_code),
        fingerprint=request_fingerprint(
            message=content, current_url=current_url, store_code=store_code or ""
        ),
    )
    if idempotency_key is not None:
        existing = idempotency_record_find(chat=chat, key=idempotency_key)
        if existing is not None:
            return _repeated(incoming, existing)
    return _stored(incoming, idempotency_key)


@dataclass(frozen=True)
class _Incoming:
    """A message as accepted so far: its store resolved, its request fingerprinted."""

    organization: Organization
    chat: Chat
    content: str
    current_url: str
    store_code: str
    store: Store | None
    fingerprint: str


def _repeated(incoming: _Incoming, record: IdempotencyRecord) -> AcceptedMessage:
    """A message whose `Idempotency-Key` was seen: its reply resumed if the request that
    claimed the key died mid-reply, else that request's outcome (409/422 if the body differs)."""
    claimed_at = record.created_at
    if not idempotency_record_take_over(record=record, fingerprint=incoming.fingerprint):
        return _replayed(record, incoming.fingerprint)
    return AcceptedMessage(
        fresh=True,
        produce=lambda observe: interrupted_reply_resume(
            organization=incoming.organization,
            chat=incoming.chat,
            record=record,
            since=claimed_at,
            content=incoming.content,
            current_url=incoming.current_url,
            store=incoming.store,
            observe=observe,
        ),
    )


def _replayed(record: IdempotencyRecord, fingerprint: str) -> AcceptedMessage:
    idempotency_fingerprint_check(record=record, fingerprint=fingerprint)
    return AcceptedMessage(
        fresh=False,
        produce=lambda _: idempotency_outcome_replay(record=record, fingerprint=fingerprint),
    )


def _stored(incoming: _Incoming, idempotency_key: str | None) -> AcceptedMessage:
    """The message stored with its quota count (and its key claimed), its reply to produce."""
    chat = incoming.chat
    try:
        user_message, record = user_message_store(
            organization=incoming.organization,
            chat=chat,
            content=incoming.content,
            current_url=incoming.current_url,
            store_code=incoming.store_code,
            idempotency_key=idempotency_key,
            fingerprint=incoming.fingerprint,
        )
    except DATABASE_ERRORS:
        history_maybe_changed(chat.pk)  # the message may have been committed all the same
        raise
    except IntegrityError:
        # An identical request claimed the key a moment ago: answer with its outcome.
        claimed = (
            idempotency_record_find(chat=chat, key=idempotency_key) if idempotency_key else None
        )
        if claimed is None:
            raise
        return _replayed(claimed, incoming.fingerprint)

    def produce(observe: EventObserver | None) -> Outcome:
        outcome = assistant_reply(
            organization=incoming.organization,
            chat=chat,
            user_message=user_message,
            store=incoming.store,
            observe=observe,
        )
        if record is not None:
            _outcome_save(record, outcome)
        return outcome

    return AcceptedMessage(fresh=True, produce=produce)


def _outcome_save(record: IdempotencyRecord, outcome: Outcome) -> None:
    """Keeps the outcome for retries with the key, also when the reply ended by a database
    outage that is just over (a retry then gets this outcome, docs/api.md#idempotency)."""
    when_database_back(
        lambda: idempotency_outcome_save(record=record, outcome=outcome),
        what=f"the outcome of idempotency record {record.pk}",
    )


# Read before every reply: compiled once (infrastructure/prepared.py).
_chatbot_by_id = PreparedQuery(
    lambda chatbot_id: Chatbot.objects.filter(pk=chatbot_id).order_by(),
    chatbot_id=Chatbot._meta.pk,
)


def _chatbot_of(chat: Chat) -> Chatbot:
    found = _chatbot_by_id.fetch(chatbot_id=chat.chatbot_id, limit=1)
    if not found:
        raise Chatbot.DoesNotExist(f"chatbot {chat.chatbot_id} of chat {chat.pk}")
    return found[0]


_messages_before = PreparedQuery(
    lambda chat_id, seq: (
        Message.objects.filter(chat_id=chat_id, seq__lt=seq)
        .order_by("-seq")
        .values_list(*PastMessage._fields)
    ),
    chat_id=Message._meta.get_field("chat"),
    seq=Message._meta.pk,
)


def message_history(*, chat: Chat, before: Message) -> list[PastMessage]:
    """The latest messages before `before`, oldest first."""
    recent = _messages_before.fetch(chat_id=chat.pk, seq=before.seq, limit=HISTORY_LIMIT)
    return [PastMessage._make(row) for row in reversed(recent)]


def interrupted_reply_resume(
    *,
    organization: Organization,
    chat: Chat,
    record: IdempotencyRecord,
    since: datetime,
    content: str,
    current_url: str,
    store: Store | None,
    observe: EventObserver | None = None,
) -> Outcome:
    """Answers the stored message of a request that died mid-reply, for a retry that took its
    `Idempotency-Key` over: no second user message, no second count against the quota.

    A `failed` event first ends the interrupted reply's events, so a stream never runs the
    text chunks of two attempts together.
    """
    user_message = interrupted_message_find(chat=chat, since=since, fingerprint=record.request_hash)
    if user_message is None:  # not expected: the record and the message commit together
        user_message, _ = user_message_store(
            organization=organization,
            chat=chat,
            content=content,
            current_url=current_url,
            store_code=store.code if store else "",
            idempotency_key=None,
            fingerprint=record.request_hash,
        )
    EventPublisher(chat_id=chat.id, reply_to_seq=user_message.seq).failed(REPLY_INTERRUPTED)
    outcome = assistant_reply(
        organization=organization,
        chat=chat,
        user_message=user_message,
        store=store,
        observe=observe,
    )
    _outcome_save(record, outcome)
    return outcome


def interrupted_message_find(*, chat: Chat, since: datetime, fingerprint: str) -> Message | None:
    """The user message stored with a key claimed at `since` (same transaction, so not older)."""
    candidates = Message.objects.filter(
        chat=chat, type=MessageType.USER, created_at__gte=since
    ).order_by("seq")
    for message in candidates[:HISTORY_LIMIT]:
        stored = request_fingerprint(
            message=message.content,
            current_url=message.current_url,
            store_code=message.store_code,
        )
        if stored == fingerprint:
            return message
    return None


def assistant_reply(
    *,
    organization: Organization,
    chat: Chat,
    user_message: Message,
    store: Store | None,
    observe: EventObserver | None = None,
) -> Outcome:
    """Runs the chatbot's engine (outside any transaction) and stores its reply.

    The user's message is already stored, so however the reply ends, it ends with either the
    answer or a `failed` event (docs/api.md#failures), also when the database goes away in the
    middle.
    """
    publisher = EventPublisher(chat_id=chat.id, reply_to_seq=user_message.seq, observe=observe)
    try:
        return reply_run(
            organization=organization,
            chat=chat,
            user_message=user_message,
            store=store,
            publisher=publisher,
        )
    except DATABASE_ERRORS as exc:
        logger.error("database lost during the reply for chat %s: %s", chat.id, type(exc).__name__)
        history_maybe_changed(chat.pk)  # the answer may have been committed all the same
        failed_event_publish_when_back(publisher=publisher)
        return Outcome(status_code=503, body={"message": ASSISTANT_FAILED})


def failed_event_publish_when_back(*, publisher: EventPublisher) -> None:
    """Writes the reply's `failed` event as soon as the database takes it again.

    Gives up (raising the database error: 503) after DATABASE_RETRY_SECONDS; a retry with the
    request's Idempotency-Key then ends the reply (`interrupted_reply_resume`).
    """
    first_try = True

    def publish() -> None:
        nonlocal first_try
        if first_try:
            first_try = False
            publisher.failed(ASSISTANT_FAILED)
        else:
            publisher.flush_end()  # the failed event, and any before it, are still pending

    if not connection.in_atomic_block:
        connection.close()  # the reply's connection is broken: the pool drops it
    when_database_back(publish, what=f"the failed event of chat {publisher.chat_id}")


def when_database_back(action: Callable[[], None], *, what: str) -> None:
    """Runs `action`, and again while the database is away, for up to DATABASE_RETRY_SECONDS;
    then raises the database error (503).

    Also once the database is back: the connection pool reconnects with a growing delay after
    failed attempts, so for a few seconds it may have no connection to lend.
    """
    deadline = time.monotonic() + DATABASE_RETRY_SECONDS
    delay = 0.25
    while True:
        try:
            action()
            return
        except DATABASE_ERRORS:
            if time.monotonic() + delay >= deadline:
                logger.error("%s could not be written", what)
                raise
            held_turn_end()  # waiting for the database: the next message goes in meanwhile
            time.sleep(delay)
            delay = min(delay * 2, 2.0)
            if not connection.in_atomic_block:
                # The pool drops a broken connection; the next query gets a new one.
                connection.close()


def reply_run(
    *,
    organization: Organization,
    chat: Chat,
    user_message: Message,
    store: Store | None,
    publisher: EventPublisher,
) -> Outcome:
    """The engine's reply stored as the answer (201), or its failure ended with `failed` (503).

    Whatever fails on the way (the chatbot's engine, the reply it gives, storing it), except
    the database going away, the reply's events end with `failed` and the caller gets an
    outcome to settle the request's Idempotency-Key with.
    """
    try:
        chatbot = _chatbot_of(chat)
        engine = engine_for(chatbot)
        publisher.buffered = answers_at_once(engine)
        request = ReplyRequest(
            organization=organization,
            chatbot=chatbot,
            chat_id=chat.id,
            history=message_history(chat=chat, before=user_message),
            message=user_message.content,
            current_url=user_message.current_url,
            store=store,
        )
        if not ends_its_turn(engine):
            held_turn_end()
        reply = engine.reply(request, publisher)
        publisher.flush()  # an engine that ended without `completed`: still nothing is lost
        answer = answer_store(chat=chat, user_message=user_message, reply=reply)
    except DATABASE_ERRORS:
        raise  # not the engine's failure: assistant_reply waits for the database
    except Exception as exc:
        # Any engine failure, expected or not, leaves the user's message stored
        # (docs/api.md#add-a-message).
        logger.exception("assistant engine failed for chat %s", chat.id)
        failed = str(exc) if isinstance(exc, EngineError) and str(exc) else ASSISTANT_FAILED
        publisher.failed(failed)
        return Outcome(status_code=503, body={"message": ASSISTANT_FAILED})
    return Outcome(status_code=201, body=dict(MessageOutput(answer).data))


def answer_store(*, chat: Chat, user_message: Message, reply: Reply) -> Message:
    """Stores the engine's reply as the user message's answer."""
    answer = Message.objects.create(
        chat=chat,
        type=MessageType.ANSWER,
        content=reply.content,
        suggestions=reply.suggestions or None,
        products=reply.products or None,
        current_url=user_message.current_url,
        store_code=user_message.store_code,
    )
    history_changed(chat.pk)
    return answer
