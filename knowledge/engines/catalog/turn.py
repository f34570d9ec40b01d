"""What the steps of one reply share: the request, the message's reading, the conversation,
the page the shopper is on and the store asked about."""

from __future__ import annotations

from dataclasses import dataclass

from accounts.models import Organization
from knowledge.engines.base import ReplyRequest
from knowledge.engines.catalog.dialogue import ConversationState, Intent
from knowledge.engines.catalog.streaming import ToolCalls
from knowledge.engines.catalog.tools import ToolContext
from knowledge.engines.catalog.understanding import Understanding
from knowledge.engines.catalog.vocabulary import Vocabulary
from knowledge.models import Product, Store


@dataclass
class Turn:
    """One message being answered, once read and merged with the conversation."""

    request: ReplyRequest
    context: ToolContext
    tools: ToolCalls
    reading: Understanding  # the message, read about the page's product when it names it
    state: ConversationState  # the conversation before it
    intent: Intent  # what kind of turn it is in the conversation (dialogue.classify)
    page: Product | None = None  # the product of the shopper's page
    asked_store: Store | None = None  # where availability is answered for

    @property
    def organization(self) -> Organization:
        return self.request.organization

    @property
    def store(self) -> Store | None:
        """The shopper's store (the request's `store`), which snapshots keep."""
        return self.request.store

    @property
    def vocabulary(self) -> Vocabulary:
        return self.context.vocabulary

    @property
    def language(self) -> str:
        return self.reading.language
