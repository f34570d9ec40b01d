"""The assistant engine interface: one method, `reply` (a pluggable part behind a small
interface), and what it is handed: the request as plain data and a sink for its events.

Engines know nothing of how chats store messages or events: the caller (chats) builds the
request and hands over its event publisher, which has the methods of `EventSink`.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, NamedTuple, Protocol

from accounts.models import Chatbot, Organization
from knowledge.models import Store


class PastMessageType(StrEnum):
    """Who wrote an earlier message: the shopper, or the assistant (a message of its own, or
    the answer to one of the shopper's)."""

    USER = "user"
    ASSISTANT = "assistant"
    ANSWER = "answer"


class PastMessage(NamedTuple):
    """What an engine reads of an earlier message: only these columns are loaded, since every
    reply reads up to 30 of them (whole model instances cost the reply 0.5 ms more)."""

    type: str  # a PastMessageType value
    content: str
    current_url: str
    products: list[dict[str, Any]] | None


@dataclass(frozen=True)
class ReplyRequest:
    organization: Organization
    chatbot: Chatbot
    chat_id: uuid.UUID
    history: Sequence[PastMessage]  # earlier messages of the chat, oldest first
    message: str  # what the shopper just wrote
    current_url: str  # the page the shopper is on
    store: Store | None  # the `store` query parameter, when given


@dataclass
class Reply:
    content: str
    # Product snapshots in the API's Product shape (docs/api.md#product), taken at reply time.
    products: list[dict[str, Any]] = field(default_factory=list)
    suggestions: list[str] = field(default_factory=list)


class EngineError(Exception):
    """The engine could not complete the response; the message is safe to show integrators."""


class EventSink(Protocol):
    """Where an engine writes the events of its reply (docs/api.md#events-of-a-reply), in order.

    The first is `typing`; then tool calls and text chunks; the last is `completed` with the
    reply's whole text. What each method returns is the caller's business.
    """

    def typing(self) -> object: ...

    def tool_started(self, name: str, args: dict[str, Any]) -> object: ...

    def tool_finished(
        self, name: str, args: dict[str, Any], response: dict[str, Any]
    ) -> object: ...

    def tool_failed(self, name: str, args: dict[str, Any], description: str) -> object: ...

    def chunk(self, text: str) -> object: ...

    def completed(self, content: str) -> object: ...


class Engine(Protocol):
    def reply(self, request: ReplyRequest, publisher: EventSink) -> Reply:
        """Answers the message, publishing typing, tool, chunk and completed events."""
        ...


def answers_at_once(engine: Engine) -> bool:
    """Whether the engine replies within milliseconds, with no network call and no pause, so
    its events may be written together when the reply ends (the caller's sink may buffer them).

    An engine says so with a true `answers_at_once` attribute; any other publishes live."""
    return bool(getattr(engine, "answers_at_once", False))


def ends_its_turn(engine: Engine) -> bool:
    """Whether the engine ends the message's turn itself (docs/scaling.md#messages-take-turns),
    with `infrastructure.turns.held_turn_end()` just before it first waits on a network
    service, so that its own preparation runs in the turn. Any other engine starts its reply
    after the turn.

    An engine says so with a true `ends_its_turn` attribute."""
    return bool(getattr(engine, "ends_its_turn", False))
