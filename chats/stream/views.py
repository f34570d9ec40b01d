"""`GET /v1/chats/{chatId}/messages/events`: a plain Django streaming view
(docs/api.md#event-stream).

Not a DRF view: DRF renders whole responses. Everything that can fail (the key, the chat, the
resume position, the replay query) happens before the response starts, so 401/404/422/503 are
ordinary JSON errors; then the database connection goes back to the pool and the stream only
waits on its subscription to the process's hub.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from datetime import datetime

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connection, connections
from django.http import HttpRequest, HttpResponseBase, StreamingHttpResponse
from django.utils import timezone
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET
from rest_framework import exceptions as drf

from accounts.models import Scope
from accounts.scopes import scope_require
from assistant_api.errors import ApplicationError, TooManyRequestsError, ValidationFailedError
from assistant_api.exception_handlers import error_response
from assistant_api.throttling import key_rate_limit
from assistant_api.validation import digits_value
from chats.models import Chat, Event
from chats.selectors import chat_get
from chats.stream.framing import KEEP_ALIVE, RETRY, event_frame, stopping_retry
from chats.stream.hangup import watch_hangup
from chats.stream.hub import Delivery, Subscription
from chats.stream.places import RETRY_AFTER_SECONDS, TOO_MANY_STREAMS, stream_places
from chats.stream.process_hub import get_hub, hub_subscribe
from chats.stream.replay import RECENT_WINDOW, event_replay, event_settled
from chats.token_auth import request_chat_key

logger = logging.getLogger("chats.stream")

INVALID_LAST_EVENT_ID = "must be the id of an event: a non-negative integer"
LAST_POSSIBLE_EVENT_ID = 2**63 - 1  # Event.seq is a bigint


@csrf_exempt  # API-key authenticated, no cookies: other methods get 405, not a CSRF 403.
@require_GET
def chat_events(request: HttpRequest, chatId: str) -> HttpResponseBase:
    try:
        # A client token may come as `?token=`: EventSource cannot send headers.
        api_key = request_chat_key(request, chatId, allow_query=True)
        scope_require(api_key, Scope.CHAT)
        # Opening a stream is one request of the key (docs/api.md#rate-limits).
        key_rate_limit(api_key)
        chat = chat_get(organization=api_key.organization, chat_id=chatId)
        after = resume_position(request)
        organization_id = api_key.organization_id
        if not stream_places().take(organization_id):
            raise TooManyRequestsError(TOO_MANY_STREAMS, retry_after=RETRY_AFTER_SECONDS)
    except (
        drf.NotAuthenticated,
        drf.AuthenticationFailed,
        drf.PermissionDenied,
        ApplicationError,
    ) as exc:
        return error_response(exc, request)
    try:
        return open_stream(request, chat=chat, after=after, organization_id=organization_id)
    except BaseException:
        stream_places().give_back(organization_id)
        raise


def open_stream(
    request: HttpRequest, *, chat: Chat, after: int | None, organization_id: object
) -> HttpResponseBase:
    """The streaming response, once the stream has its place."""
    now = timezone.now()
    # Subscribe before reading the replay: an event committed in between is then either in
    # the replay or delivered live (the stream drops the second copy).
    subscription = hub_subscribe(chat.id, settled=event_settled)
    try:
        replay = event_replay(chat=chat, after=after, now=now)
    except BaseException:
        subscription.close()
        raise
    finally:
        # A stream must not pin a database connection for its lifetime. Under gevent Django
        # also keeps a connection object per greenlet, which would live as long as the stream.
        if not connection.in_atomic_block:
            connection.close()
            del connections[DEFAULT_DB_ALIAS]

    stream = EventStream(
        subscription,
        request=request,
        organization_id=organization_id,
        replay=replay,
        after=after,
        since=now - RECENT_WINDOW,
        keepalive=settings.SSE_KEEPALIVE_SECONDS,
        max_duration=settings.SSE_MAX_DURATION_SECONDS,
    )
    streaming = StreamingHttpResponse(stream, content_type="text/event-stream")
    streaming["Cache-Control"] = "no-cache"
    # Tells nginx (and proxies that honour it) not to buffer the stream.
    streaming["X-Accel-Buffering"] = "no"
    return streaming


def resume_position(request: HttpRequest) -> int | None:
    """The `Last-Event-ID` header, else `?lastEventId=`; None for a new connection."""
    value = request.headers.get("Last-Event-ID")
    if value is None or not value.strip():
        value = request.GET.get("lastEventId")
    if value is None or not value.strip():
        return None
    # Leading zeros allowed; beyond the largest id an event can have (a bigint), refused.
    position = digits_value(value.strip(), cap=LAST_POSSIBLE_EVENT_ID + 1)
    if position is None or position > LAST_POSSIBLE_EVENT_ID:
        raise ValidationFailedError(
            f"lastEventId: {INVALID_LAST_EVENT_ID}",
            errors={"lastEventId": [INVALID_LAST_EVENT_ID]},
        )
    return position


class EventStream:
    """The body of one stream: a sync iterator (Django's WSGI handler would collect an async
    one into a list) whose `close()` the server calls when the client goes away."""

    def __init__(
        self,
        subscription: Subscription,
        *,
        request: HttpRequest | None = None,
        organization_id: object = None,
        replay: list[Event],
        after: int | None,
        since: datetime,
        keepalive: float,
        max_duration: float,
    ) -> None:
        self.subscription = subscription
        self.request = request
        self.replay = replay
        self.after = after
        self.since = since
        self.keepalive = max(0.01, keepalive)
        self.max_duration = max_duration
        # The place this stream holds (chats/stream/places.py), freed when it closes.
        self.organization_id = organization_id
        self.client = request.META.get("gunicorn.socket") if request is not None else None
        self.stop_watching: Callable[[], None] | None = None

    def __iter__(self) -> Iterator[bytes]:
        return self._frames()

    def close(self) -> None:
        if self.stop_watching is not None:
            self.stop_watching()  # before the socket goes and its descriptor is reused
            self.stop_watching = None
        self.subscription.close()
        if self.organization_id is not None:
            stream_places().give_back(self.organization_id)
            self.organization_id = None  # a second close frees nothing more
        # One line per ended stream, like an access log's; `openStreams` (this process's count
        # after it) shows operators, and the tests, that vanished clients are let go.
        logger.info(
            "event stream closed",
            extra={
                "chatId": str(self.subscription.chat_id),
                "openStreams": get_hub().stream_count(),
            },
        )

    def _release_request(self) -> None:
        """Drops the request's per-request state once the response has started.

        Django keeps the request alive until the response closes (it closes the request's
        uploaded files then), so each open stream would keep its headers, query, session and
        message storages and URL match: about 6 KB, for thousands of streams. Nothing reads the
        request after the middlewares have handled the response; an emptied request still
        closes (it has no files).
        """
        if self.request is not None:
            self.request.__dict__.clear()
            self.request = None

    def _frames(self) -> Iterator[bytes]:
        started = last_write = time.monotonic()
        ends = started + self.max_duration
        sent = {event.seq for event in self.replay}
        yield RETRY + b"".join(event_frame(event) for event in self.replay)
        self.replay = []
        self._release_request()
        # A client that closes the connection ends the stream now, freeing its place.
        self.stop_watching = watch_hangup(self.client, self.subscription.end)
        self.client = None
        while not self.subscription.closed and time.monotonic() < ends:
            batch = self.subscription.wait(until=min(ends, last_write + self.keepalive))
            frames = [d.frame for d in batch if self._wanted(d, sent)]
            sent.update(d.seq for d in batch)
            now = time.monotonic()
            if frames:
                yield b"".join(frames)
                last_write = time.monotonic()
            elif now >= ends:
                return
            elif now - last_write >= self.keepalive:
                # Also how a vanished client is noticed: the write fails and the server
                # closes the stream.
                yield KEEP_ALIVE
                last_write = time.monotonic()
            if len(sent) > 256:
                # The hub never delivers an event at or below its floor again.
                floor = self.subscription.floor
                sent = {seq for seq in sent if seq > floor}
        if self.subscription.server_stopping:
            # Its client resumes on another process sooner than after the usual 3 s.
            yield stopping_retry()

    def _wanted(self, delivery: Delivery, sent: set[int]) -> bool:
        if delivery.seq in sent:
            return False
        if self.after is not None:
            return delivery.seq > self.after
        return delivery.created_at >= self.since
