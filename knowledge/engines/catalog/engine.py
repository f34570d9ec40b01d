"""The built-in `catalog` engine: a deterministic shop assistant over the organization's catalog.

One reply is a pipeline of plain steps over typed data, top to bottom in `CatalogEngine.reply`:

1. understanding: `read` turns the message into an `Understanding` (its wishes as
   `Constraints`, what it asks, the products it points at, its language);
2. dialogue: `converse` merges it with the conversation (dialogue.conversation_state, the
   page's product, dialogue.classify) into a `Turn` with its `Intent`;
3. decision: references.pointed_at looks up the products the intent is about, then
   decision.decide picks the `ReplyKind`;
4. writing: the kind's writer (writers.WRITERS) makes the `Draft`, calling the catalog tools
   (each published as events); `finish` adds product snapshots and suggestions and streams
   the text in chunks.
"""

from __future__ import annotations

from django.conf import settings
from django.utils import translation

from knowledge.engines.base import EventSink, Reply, ReplyRequest
from knowledge.engines.catalog import dialogue as dl
from knowledge.engines.catalog import phrasing as ph
from knowledge.engines.catalog import suggestions as sg
from knowledge.engines.catalog.decision import decide
from knowledge.engines.catalog.draft import Draft
from knowledge.engines.catalog.references import about_page, pointed_at
from knowledge.engines.catalog.snapshots import inventory_for, product_snapshot
from knowledge.engines.catalog.streaming import ToolCalls, publish_text
from knowledge.engines.catalog.tools import (
    ToolContext,
    get_page_context,
    page_product_find,
    tool_context_from,
)
from knowledge.engines.catalog.turn import Turn
from knowledge.engines.catalog.understanding import Understanding, understand
from knowledge.engines.catalog.vocabulary import Vocabulary
from knowledge.engines.catalog.writers import WRITERS
from knowledge.language.detect import Detected, conversation_language
from knowledge.models import Product, Store


class CatalogEngine:
    """The default engine (docs/api.md#catalog-and-assistant): only catalog products, prices and
    stock, no network."""

    @property
    def answers_at_once(self) -> bool:
        # Paced chunks (a UI's typing effect) spread the reply over time: then each goes live.
        return settings.ASSISTANT_STREAM_CHUNK_DELAY_MS <= 0

    def reply(self, request: ReplyRequest, publisher: EventSink) -> Reply:
        publisher.typing()
        context = tool_context_from(request)
        reading = read(request, context.vocabulary)
        # Replies in the shopper's language: the translation catalogs of locale/.
        with translation.override(reading.language):
            turn = converse(request, context, ToolCalls(publisher), reading)
            decision = decide(
                reading=turn.reading,
                intent=turn.intent,
                state=turn.state,
                page=turn.page,
                pointed=pointed_at(turn),
            )
            draft = WRITERS[decision.kind](turn, decision)
            return finish(turn, publisher, draft)


def read(request: ReplyRequest, vocabulary: Vocabulary) -> Understanding:
    """The message's reading, in the language its reply is written in."""
    storefront = request.chatbot.language
    reading = understand(request.message, vocabulary, default=storefront)
    language = reply_language(request, vocabulary, reading)
    if language != reading.language:
        # Too short to tell, or one the chat's language could have written: read so.
        reading = understand(request.message, vocabulary, language=language)
    return reading


def reply_language(request: ReplyRequest, vocabulary: Vocabulary, reading: Understanding) -> str:
    """The message's language, or the conversation's for a message too short to tell
    ("ok") or that its language could equally have written; else the chatbot's, else the
    catalog's."""
    earlier = None
    for message in reversed(list(dl.recent_turns(list(request.history)))):
        if message.type == "user":
            earlier_reading = understand(
                message.content, vocabulary, default=request.chatbot.language
            )
            if earlier_reading.language_sure:
                earlier = earlier_reading.language
                break
    detected = Detected(reading.language, reading.language_sure)
    return conversation_language(
        detected,
        request.message,
        earlier=earlier,
        default=request.chatbot.language or vocabulary.language,
    )


def converse(
    request: ReplyRequest,
    context: ToolContext,
    tools: ToolCalls,
    reading: Understanding,
) -> Turn:
    """The message in its conversation: the state the history leaves (the search being
    refined, the products shown), the page's product and the store it asks about, the
    reading about that product when it names it, and the turn's intent."""
    state = dl.conversation_state(
        request.history, context.vocabulary, default_language=request.chatbot.language
    )
    page = page_product(request, context, tools)
    if page is not None:
        reading = about_page(reading, page)
    reading = dl.with_earlier_question(reading, state)
    return Turn(
        request=request,
        context=context,
        tools=tools,
        reading=reading,
        state=state,
        intent=dl.classify(reading, state, on_pdp=page is not None, url=request.current_url),
        page=page,
        asked_store=asked_store(request, reading),
    )


def page_product(request: ReplyRequest, context: ToolContext, tools: ToolCalls) -> Product | None:
    """The product of the shopper's page; the tool is shown only when there is one."""
    product = page_product_find(request.organization, request.current_url)
    if product is None:
        return None
    tools.run(
        "get_page_context",
        {"url": request.current_url},
        lambda: get_page_context(context, url=request.current_url, found=product),
        lambda result: result[0],
    )
    return product


def asked_store(request: ReplyRequest, reading: Understanding) -> Store | None:
    """A store named in the message ("in Hamburg?") is where availability is answered for;
    snapshots keep the `store` parameter's values (docs/api.md#add-a-message)."""
    store = request.store
    if not reading.store_code or (store is not None and store.code == reading.store_code):
        return store
    return (
        Store.objects.filter(organization=request.organization, code=reading.store_code).first()
        or store
    )


def finish(turn: Turn, publisher: EventSink, draft: Draft) -> Reply:
    """The reply: its products as snapshots (at most the chatbot's `max_products`), its
    suggestions, and its text streamed."""
    limit = turn.request.chatbot.max_products or 4
    items = draft.items[:limit]
    rows = inventory_for([i.product for i in items], turn.store)
    snapshots = [
        product_snapshot(
            product=item.product,
            store=turn.store,
            inventory_row=rows.get(item.product.pk),
            query=item.query,
            recommendation=ph.recommendation_text(item.reasons),
            first_created_at=turn.vocabulary.first_created_at,
        )
        for item in items
    ]
    suggestions = draft.suggestions[: sg.MAX_SUGGESTIONS]
    publish_text(publisher, draft.text)
    return Reply(content=draft.text, products=snapshots, suggestions=suggestions)
