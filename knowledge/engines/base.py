"""The assistant engine interface: one method, `reply` (a pluggable part behind a small
interface)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol

from accounts.models import Chatbot, Organization
from chats.events import EventPublisher
from chats.models import Chat
from knowledge.models import Store


class PastMessage(NamedTuple):
    """What an engine reads of an earlier message: only these columns are loaded, since every
    reply reads up to 30 of them (whole model instances cost the reply 0.5 ms more)."""

    type: str  # a MessageType value
    content: str
    current_url: str
    products: list[dict[str, Any]] | None


@dataclass(frozen=True)
class ReplyRequest:
    organization: Organization
    chatbot: Chatbot
    chat: Chat
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


class Engine(Protocol):
    def reply(self, request: ReplyRequest, publisher: EventPublisher) -> Reply:
        """Answers the message, publishing typing, tool, chunk and completed events."""
        ...


def answers_at_once(engine: Engine) -> bool:
    """Whether the engine replies within milliseconds, with no network call and no pause, so
    its events may be written together when the reply ends (EventPublisher's `buffered`).

    An engine says so with a true `answers_at_once` attribute; any other publishes live."""
    return bool(getattr(engine, "answers_at_once", False))
