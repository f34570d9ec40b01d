"""`POST /v1/ui/chat` and `GET /v1/ui/chat/{chatId}/stream`: the AI SDK's UI message stream.

Plain Django streaming views, like the event stream (chats/stream/views.py). The POST hands
the shopper's message to the one message path (`message_accept` in
chats/services_messages.py: validation, quota, idempotency, storing) before its stream starts,
so every refusal is an ordinary JSON error. Then the reply runs in a thread of its own (a
greenlet under gunicorn's gevent workers), handing the events it writes straight to the
response (chats/ui/reply_events.py), which writes them as UI message chunks
(chats/ui/chunks.py): only that reply's, even when another reply of the chat runs at the
same time (two tabs). A resume follows a running reply's own events, woken by the process's
hub. A client that goes away ends only its stream: the reply is still produced and stored.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import orjson
from django.conf import settings
from django.db import connections
from django.http import HttpRequest, HttpResponse, HttpResponseBase, StreamingHttpResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_POST

from assistant_api.errors import INVALID_JSON, ApplicationError, body_too_large
from assistant_api.exception_handlers import error_response
from assistant_api.middleware import json_error
from assistant_api.throttling import key_rate_limit
from chats.idempotency import Outcome
from chats.message_turns import message_turn
from chats.models import Chat
from chats.selectors import chat_get
from chats.services_messages import (
    ASSISTANT_FAILED,
    REPLY_INTERRUPTED,
    AcceptedMessage,
    message_accept,
)
from chats.stream.framing import KEEP_ALIVE
from chats.stream.process_hub import hub_subscribe
from chats.stream.replay import event_settled
from chats.token_auth import request_chat_key
from chats.ui.chunks import DONE, HEADERS, ReplyChunks, chunk_frame, reply_message_id
from chats.ui.replies import REPLY_AT_MOST, answer_stored_since, running_reply_start
from chats.ui.reply_events import ReplyEvents, ResumedEvents, connection_release
from chats.ui.request import body_chat_id, ui_chat_message

logger = logging.getLogger("chats.ui")

JSON_ONLY = "Send the body as application/json"
NOT_AN_OBJECT = "The body must be a JSON object"
EVENT_STREAM = "text/event-stream"


@csrf_exempt  # no cookies: a client token or an API key in a header
@require_POST
def ui_chat(request: HttpRequest) -> HttpResponseBase:
    try:
        body = _json_body(request)
        if isinstance(body, HttpResponse):
            return body
        api_key = request_chat_key(request, body_chat_id(body) or "")
        key_rate_limit(api_key)
        message = ui_chat_message(body, request)
        with message_turn(api_key.organization_id):
            chat = chat_get(organization=api_key.organization, chat_id=message.chat_id, fresh=True)
            accepted = message_accept(
                organization=api_key.organization,
                chat=chat,
                content=message.text,
                current_url=message.current_url,
                store_code=message.store_code,
                idempotency_key=message.idempotency_key,
            )
    except Exception as exc:
        return error_response(exc, request)
    if accepted.fresh:
        runner = ReplyRunner(accepted)
        stream: Any = LiveReplyStream(chat, runner.events, runner=runner)
        runner.start()
    else:
        stream = RepeatedReplyStream(accepted)
    connection_release()
    return _streaming(stream)


@csrf_exempt
@require_GET
def ui_chat_stream(request: HttpRequest, chatId: str) -> HttpResponseBase:
    """The transport's resume: 204 when no reply of the chat is running, else that reply
    from its `start` (the earliest, when two run at once)."""
    try:
        api_key = request_chat_key(request, chatId)
        key_rate_limit(api_key)
        chat = chat_get(organization=api_key.organization, chat_id=chatId)
        start = running_reply_start(chat)
        if start is None:
            connection_release()
            return HttpResponse(status=204)
        subscription = hub_subscribe(chat.id, settled=event_settled)
    except Exception as exc:
        return error_response(exc, request)
    events = ResumedEvents(chat, subscription, after=start.seq - 1, reply_to_seq=start.reply_to_seq)
    stream = LiveReplyStream(chat, events, runner=None, since=start.created_at)
    connection_release()
    return _streaming(stream)


def _json_body(request: HttpRequest) -> dict[str, Any] | HttpResponse:
    if request.content_type != "application/json":
        return json_error(415, JSON_ONLY)
    # Read as it comes, not through request.body: the transport sends the whole
    # conversation each time, beyond the API's usual 64 KiB (UI_CHAT_MAX_BODY_BYTES).
    limit = settings.UI_CHAT_MAX_BODY_BYTES
    raw = request.read(limit + 1)
    if len(raw) > limit:
        return json_error(413, body_too_large(limit))
    try:
        body = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        return json_error(400, f"{INVALID_JSON}: {str(exc).split(':', 1)[0]}")
    if not isinstance(body, dict):
        return json_error(422, NOT_AN_OBJECT)
    return body


def _streaming(stream: Any) -> StreamingHttpResponse:
    response = StreamingHttpResponse(stream, content_type=EVENT_STREAM)
    for name, value in HEADERS.items():
        response[name] = value
    return response


class ReplyRunner:
    """Produces an accepted message's reply in a thread of its own, handing its events to
    `events` as they are written."""

    def __init__(self, accepted: AcceptedMessage) -> None:
        self.accepted = accepted
        self.events = ReplyEvents()
        self.outcome: Outcome | None = None
        self.done = threading.Event()

    def start(self) -> None:
        threading.Thread(target=self._run, name="ui-chat-reply", daemon=True).start()

    def _run(self) -> None:
        try:
            self.outcome = self.accepted.reply(observe=self.events.written)
        except Exception as exc:
            if isinstance(exc, ApplicationError):
                self.outcome = Outcome(status_code=exc.status_code, body={"message": exc.message})
            else:
                logger.exception("the reply of a UI chat request failed")
                self.outcome = Outcome(status_code=503, body={"message": ASSISTANT_FAILED})
        finally:
            connections.close_all()  # this thread's own connections
            self.done.set()
            self.events.end()


class LiveReplyStream:
    """The chunks of one reply as its events are written (a POST's own reply, or a running
    one a resume joins), ended by the stored answer or the failure."""

    def __init__(
        self,
        chat: Chat,
        events: ReplyEvents | ResumedEvents,
        *,
        runner: ReplyRunner | None,
        since: datetime | None = None,
    ) -> None:
        self.chat = chat
        self.events = events
        self.runner = runner  # None: a resume, whose answer is read once stored
        self.since = since  # when the reply a resume joins started
        self.chunks = ReplyChunks()
        self.after = 0  # the highest event seq handled

    def __iter__(self) -> Iterator[bytes]:
        return self._frames()

    def close(self) -> None:
        self.events.close()

    def _frames(self) -> Iterator[bytes]:
        keepalive = max(0.01, settings.SSE_KEEPALIVE_SECONDS)
        gives_up = time.monotonic() + REPLY_AT_MOST.total_seconds()
        last_write = time.monotonic()
        if isinstance(self.events, ResumedEvents):  # the running reply so far
            frames = self._handle(self.events.so_far())
            if frames:
                yield frames
                last_write = time.monotonic()
        while not self.chunks.ended and not self.events.exhausted:
            if time.monotonic() >= gives_up:
                break
            frames = self._handle(self.events.wait(until=last_write + keepalive))
            if frames:
                yield frames
                last_write = time.monotonic()
            elif time.monotonic() - last_write >= keepalive:
                yield KEEP_ALIVE
                last_write = time.monotonic()
        yield self._end()

    def _handle(self, payloads: list[dict[str, Any]]) -> bytes:
        chunks: list[dict[str, Any]] = []
        for payload in payloads:
            seq = int(payload["eventId"])
            if seq <= self.after:
                continue
            self.after = seq
            if not self.chunks.started:
                if payload["status"] == "failed" and payload.get("content") == REPLY_INTERRUPTED:
                    continue  # the end of an earlier attempt at this message, not this reply
                chunks += self.chunks.start(reply_message_id(payload["eventId"]))
            chunks += self.chunks.event(payload)
        return chunk_frame(chunks)

    def _end(self) -> bytes:
        if self.chunks.failed is not None:
            return chunk_frame(self.chunks.failure(self.chunks.failed)) + DONE
        if self.runner is not None:
            self.runner.done.wait()
            outcome = self.runner.outcome
            assert outcome is not None
            return self._outcome_end(outcome)
        if not self.chunks.ended or self.since is None:  # the reply died with its worker
            return chunk_frame(self.chunks.failure(ASSISTANT_FAILED)) + DONE
        answer = answer_stored_since(self.chat, self.since, content=self.chunks.text)
        connection_release()
        return chunk_frame(self.chunks.finish(answer)) + DONE

    def _outcome_end(self, outcome: Outcome) -> bytes:
        chunks: list[dict[str, Any]] = []
        if not self.chunks.started:  # a reply that published nothing we saw
            chunks += self.chunks.start(reply_message_id(str(outcome.body.get("id", "answer"))))
        if outcome.status_code == 201:
            chunks += self.chunks.finish(outcome.body)
        else:
            chunks += self.chunks.failure(self.chunks.failed or outcome.body["message"])
        return chunk_frame(chunks) + DONE


class RepeatedReplyStream:
    """A repeated request's reply (same idempotency key): the first one's stored outcome."""

    def __init__(self, accepted: AcceptedMessage) -> None:
        self.accepted = accepted

    def __iter__(self) -> Iterator[bytes]:
        try:
            outcome = self.accepted.reply()
        except ApplicationError as exc:
            outcome = Outcome(status_code=exc.status_code, body={"message": exc.message})
        finally:
            connection_release()
        chunks = ReplyChunks()
        frames = chunk_frame(chunks.start(str(outcome.body.get("id", "answer"))))
        if outcome.status_code == 201:
            return iter([frames + chunk_frame(chunks.finish(outcome.body)) + DONE])
        return iter([frames + chunk_frame(chunks.failure(outcome.body["message"])) + DONE])
