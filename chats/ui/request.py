"""The body `useChat` sends through the AI SDK's `DefaultChatTransport`, read as a message.

`{"id": chatId, "messages": [UIMessage...], "trigger": "submit-message", "messageId"?,
"currentUrl"?, "store"?}`: the service keeps the history, so only the last message (the
shopper's) is read; the text of its text parts is the message, validated as
`POST .../messages` validates it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from django.http import HttpRequest

from assistant_api.errors import ValidationFailedError
from assistant_api.validation import validated
from chats.idempotency import idempotency_key_clean
from chats.serializers import MessageCreateInput

TRIGGERS = ("submit-message", "regenerate-message")
UI_ROLES = ("system", "user", "assistant")  # of a UIMessage
NOT_A_CHAT_ID = "Must be the chat's id (a string)."
NO_USER_MESSAGE = "The last message must be the shopper's: role user, with text parts."
UNKNOWN_TRIGGER = f"Must be one of: {', '.join(TRIGGERS)}."
NO_PAGE = "Required: the page the shopper is on (send it in the transport's body)."


@dataclass(frozen=True)
class UiChatMessage:
    chat_id: str
    text: str
    current_url: str
    store_code: str | None
    idempotency_key: str | None


def body_chat_id(body: dict[str, Any]) -> str | None:
    """The chat the body is for, read before anything else: a client token is checked
    against it."""
    chat_id = body.get("id")
    return chat_id if isinstance(chat_id, str) else None


def ui_chat_message(body: dict[str, Any], request: HttpRequest) -> UiChatMessage:
    """The shopper's message in the body, or 422 naming the field at fault."""
    chat_id = body_chat_id(body)
    if chat_id is None:
        raise _invalid("id", NOT_A_CHAT_ID)
    trigger = body.get("trigger", "submit-message")
    if trigger not in TRIGGERS:
        raise _invalid("trigger", UNKNOWN_TRIGGER)
    last = _last_user_message(body.get("messages"))
    text = "\n".join(
        part["text"]
        for part in last.get("parts") or []
        if isinstance(part, dict)
        and part.get("type") == "text"
        and isinstance(part.get("text"), str)
    )
    current_url = body.get("currentUrl") or _page_of(request)
    if current_url is None:
        raise _invalid("currentUrl", NO_PAGE)
    try:
        data = validated(MessageCreateInput, {"message": text, "currentUrl": current_url})
    except ValidationFailedError as exc:
        # The text is the last message's: name the field the integrator sent.
        errors = {("messages" if f == "message" else f): p for f, p in (exc.errors or {}).items()}
        raise ValidationFailedError.from_detail(errors) from None
    store = body.get("store") if body.get("store") is not None else request.GET.get("store")
    if store is not None and not isinstance(store, str):
        raise _invalid("store", "Must be a store code (a string).")
    return UiChatMessage(
        chat_id=chat_id,
        text=data["message"],
        current_url=data["currentUrl"],
        store_code=store,
        idempotency_key=_idempotency_key(request, last, trigger, body.get("messageId")),
    )


def _last_user_message(messages: Any) -> dict[str, Any]:
    if not isinstance(messages, list) or not messages:
        raise _invalid("messages", NO_USER_MESSAGE)
    last = messages[-1]
    if not isinstance(last, dict) or last.get("role") != "user":
        raise _invalid("messages", NO_USER_MESSAGE)
    return last


def _page_of(request: HttpRequest) -> str | None:
    """The page the request came from (Referer, which a cross-origin fetch cuts to the
    page's origin by default), when `currentUrl` is not sent."""
    referer = request.META.get("HTTP_REFERER", "")
    parts = urlsplit(referer)
    return referer if parts.scheme in {"http", "https"} and parts.netloc else None


def _idempotency_key(
    request: HttpRequest, last: dict[str, Any], trigger: str, message_id: Any
) -> str | None:
    """`Idempotency-Key` when sent, else the shopper's UI message id: the transport's retry of
    the same message is answered once. A regeneration is a new answer to that message."""
    header = idempotency_key_clean(request.headers.get("Idempotency-Key"))
    if header is not None:
        return header
    ui_id = last.get("id")
    if not isinstance(ui_id, str) or not ui_id.strip():
        return None
    if trigger == "regenerate-message":
        ui_id = f"{ui_id}:regenerate:{message_id if isinstance(message_id, str) else ''}"
    return idempotency_key_clean(ui_id[:255])


def _invalid(field: str, problem: str) -> ValidationFailedError:
    return ValidationFailedError(f"{field}: {problem}", errors={field: [problem]})
