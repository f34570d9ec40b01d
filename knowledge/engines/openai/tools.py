"""The catalog tools the model calls, and the grounding of what it names in their results.

The tools are the catalog engine's own (`knowledge.engines.catalog.tools.tool_run`), so the
model sees the same catalog search and integrators the same `toolArgs`/`toolResponse` shapes.
Every product a tool returns is remembered by its public `gtin` (the catalog item id when the
catalog has no GTIN, docs/api.md#product); the reply may only show those, rebuilt from the
catalog at
reply time, so no price or availability ever comes from the model.
"""

from __future__ import annotations

from typing import Any

from django.utils.module_loading import import_string

from knowledge.engines.base import EventSink, Reply, ReplyRequest
from knowledge.engines.catalog import suggestions as sg
from knowledge.engines.catalog.snapshots import inventory_for, product_snapshot
from knowledge.engines.catalog.tools import (
    ToolArgumentError,
    page_product_find,
    products_by_gtin,
    tool_context_from,
    tool_run,
    variants_of,
)
from knowledge.engines.catalog.understanding import Constraints
from knowledge.engines.openai.schemas import ArgumentsInvalid, arguments_check
from knowledge.models import Product


class ToolArgumentsError(ValueError):
    """The model's arguments do not fit the tool's schema; the message says which and why."""


class CatalogTools:
    """The tools of one reply, scoped to its organization and store."""

    def __init__(self, request: ReplyRequest) -> None:
        self.request = request
        self.context = tool_context_from(request)
        self.seen: set[str] = set()  # GTINs of every product a tool returned
        self.queries: dict[str, str] = {}  # GTIN -> the search that found it

    def page_context(self) -> dict[str, Any]:
        """get_page_context for the shopper's page, given to the model with the prompt."""
        response = tool_run(name="get_page_context", args={}, context=self.context)
        self._remember(response, query="")
        return response

    def check(self, name: str, args: dict[str, Any]) -> dict[str, Any]:
        """The model's arguments, checked against the tool's schema, before anything runs."""
        try:
            return arguments_check(name, args)
        except ArgumentsInvalid as exc:
            raise ToolArgumentsError(str(exc)) from None

    def run(self, name: str, args: dict[str, Any]) -> dict[str, Any]:
        """The tool's response; a catalog refusal (say, an unknown GTIN) is told to the model
        as `{"error": ...}` so it can search instead."""
        try:
            response = tool_run(name=name, args=args, context=self.context)
        except ToolArgumentError as exc:
            return {"error": str(exc)}
        query = args.get("query", "") if name == "search_products" else ""
        self._remember(response, query=query)
        return response

    def _remember(self, value: Any, *, query: str) -> None:
        if isinstance(value, dict):
            gtin = value.get("gtin")
            if isinstance(gtin, str) and gtin:
                self.seen.add(gtin)
                if query:
                    self.queries.setdefault(gtin, query)
            for item in value.values():
                self._remember(item, query=query)
        elif isinstance(value, list):
            for item in value:
                self._remember(item, query=query)

    # --- grounding -------------------------------------------------------------------------

    def products_named(self, gtins: list[str], *, limit: int) -> list[Product]:
        """The products the model named that a tool returned in this reply, read now."""
        known = [gtin for gtin in gtins if gtin in self.seen][: max(0, limit)]
        return products_by_gtin(self.request.organization, known)

    def snapshots(self, products: list[Product]) -> list[dict[str, Any]]:
        store = self.request.store
        rows = inventory_for(products, store)
        return [
            product_snapshot(
                product=product,
                store=store,
                inventory_row=rows.get(product.pk),
                query=self.queries.get(product.gtin or product.item_id, ""),
                first_created_at=self.context.vocabulary.first_created_at,
            )
            for product in products
        ]

    def suggestions(self, products: list[Product]) -> list[str]:
        """The catalog engine's follow-ups for these products, when the model gave none."""
        vocabulary = self.context.vocabulary
        if len(products) >= 2:
            return sg.search_suggestions(
                constraints=Constraints(),
                products=products,
                total=len(products),
                shown_so_far=len(products),
                vocabulary=vocabulary,
            )
        if products:
            return sg.product_suggestions(
                product=products[0],
                variants=variants_of(products[0]),
                answered=set(),
                vocabulary=vocabulary,
            )
        page_product = page_product_find(self.request.organization, self.request.current_url)
        return sg.smalltalk_suggestions(vocabulary, page_product)


def catalog_fallback(request: ReplyRequest, publisher: EventSink) -> Reply:
    """The catalog engine's reply, in the same stream (which already has its typing event)."""
    from knowledge.engines import ENGINES  # the registry imports this package

    return import_string(ENGINES["catalog"])().reply(request, TypingOnce(publisher))


class TypingOnce:
    """A sink for the fallback: the reply's typing event was written already; every other
    event goes to the reply's own sink."""

    def __init__(self, inner: EventSink) -> None:
        self.inner = inner

    def typing(self) -> None:
        return None

    def tool_started(self, name: str, args: dict[str, Any]) -> object:
        return self.inner.tool_started(name, args)

    def tool_finished(self, name: str, args: dict[str, Any], response: dict[str, Any]) -> object:
        return self.inner.tool_finished(name, args, response)

    def tool_failed(self, name: str, args: dict[str, Any], description: str) -> object:
        return self.inner.tool_failed(name, args, description)

    def chunk(self, text: str) -> object:
        return self.inner.chunk(text)

    def completed(self, content: str) -> object:
        return self.inner.completed(content)
