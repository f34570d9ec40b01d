"""What support reads on a chat's page: its messages as a transcript, its assistant activity.

Plain data for the templates (admin/chats/transcript.html, activity.html): prices and stock
written for people, tool calls summed up in one line each with their JSON folded below.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Q

from chats.models import Chat, Event, EventStatus, Feedback, Message
from knowledge.display import price_text, stock_text

ACTIVITY_EVENTS = 200  # the most recent; a long chat has many replies
DETAIL_CHARS = 4000  # a search's response lists products in full: the start tells enough
SUMMARY_CHARS = 140


@dataclass
class ProductCard:
    name: str
    brand: str
    url: str
    image: str
    price: str
    stock: str


@dataclass
class TranscriptMessage:
    message: Message
    cards: list[ProductCard] = field(default_factory=list)
    feedback: Feedback | None = None


@dataclass
class ActivityRow:
    event: Event
    title: str
    arguments: str  # one line
    outcome: str  # one line
    arguments_json: str  # indented, for the folded part
    response_json: str
    failed: bool


def transcript(chat: Chat) -> list[TranscriptMessage]:
    messages = Message.objects.filter(chat=chat).order_by("seq")
    feedback = {f.message_id: f for f in Feedback.objects.filter(chat=chat)}
    return [
        TranscriptMessage(
            message,
            [_card(p) for p in message.products or [] if isinstance(p, dict)],
            feedback.get(message.seq),
        )
        for message in messages
    ]


def _card(product: dict[str, Any]) -> ProductCard:
    availability = product.get("availability")
    stock = ""
    if isinstance(availability, dict):
        stock = stock_text(availability.get("status"), availability.get("quantity"))
    price = product.get("price")
    return ProductCard(
        name=str(product.get("designation", "")),
        brand=str(product.get("brand", "")),
        url=_http_url(product.get("url")),
        image=_http_url(product.get("image")),
        price="" if price is None else price_text(price, str(product.get("currency", ""))),
        stock=stock,
    )


def _http_url(value: object) -> str:
    """Only web addresses become links or images (a snapshot is data, not trusted markup)."""
    text = str(value or "")
    return text if text.startswith(("https://", "http://")) else ""


def activity(chat: Chat) -> list[ActivityRow]:
    """The tools the assistant ran and every failure, oldest first: why a reply said what it
    said, or why it failed. Typing and text chunks are left out (the reply has the text)."""
    finished_tool = Q(status=EventStatus.COMPLETED) & ~Q(tool_name="")
    events = Event.objects.filter(finished_tool | Q(status=EventStatus.FAILED), chat=chat).order_by(
        "-seq"
    )[:ACTIVITY_EVENTS]
    return [_activity_row(event) for event in reversed(events)]


def _activity_row(event: Event) -> ActivityRow:
    failed = event.status == EventStatus.FAILED
    if event.tool_name:
        title = f"{event.tool_name} (failed)" if failed else event.tool_name
    else:
        title = "reply failed"
    outcome = (event.content or "") if failed else _response_summary(event.tool_response)
    return ActivityRow(
        event=event,
        title=title,
        arguments=_one_line(_arguments_summary(event.tool_args)),
        outcome=_one_line(outcome),
        arguments_json=_indented(event.tool_args),
        response_json=_indented(event.tool_response),
        failed=failed,
    )


def _arguments_summary(args: object) -> str:
    if not isinstance(args, dict):
        return "" if args is None else json.dumps(args, ensure_ascii=False)
    return ", ".join(f"{key}: {_scalar(value)}" for key, value in args.items())


def _response_summary(response: object) -> str:
    if isinstance(response, dict) and isinstance(response.get("products"), list):
        products = response["products"]
        total = response.get("total", len(products))
        names = [str(p.get("designation", "")) for p in products[:3] if isinstance(p, dict)]
        found = f"{total} found" if total else "nothing found"
        return f"{found}: {', '.join(names)}" if names else found
    if response is None:
        return ""
    return json.dumps(response, ensure_ascii=False)


def _scalar(value: object) -> str:
    if isinstance(value, str):
        return f"“{value}”"
    return json.dumps(value, ensure_ascii=False)


def _one_line(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= SUMMARY_CHARS else text[: SUMMARY_CHARS - 1] + "…"


def _indented(value: object) -> str:
    if value is None:
        return ""
    text = json.dumps(value, ensure_ascii=False, indent=2)
    return text if len(text) <= DETAIL_CHARS else text[:DETAIL_CHARS] + "\n…"
