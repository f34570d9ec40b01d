"""The catalog tools the model calls, and the grounding of what it names in their results.

Every product a tool returns is remembered by its public `gtin` (the catalog item id when the
catalog has no GTIN, contract §4); the reply may only show those, rebuilt from the catalog at
reply time, so no price or availability ever comes from the model.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Any

from django.db.models import Q
from django.utils.module_loading import import_string

from chats.events import EventPublisher
from knowledge.canonical import InvalidUrlError, canonicalize_url
from knowledge.engines.base import Reply, ReplyRequest
from knowledge.models import Product
from knowledge.search import SearchFilters, product_search

MAX_RESULTS = 10


class ToolArgumentsError(ValueError):
    """The model's arguments do not fit the tool; the message says which one and why."""


def public_gtin(product: Product) -> str:
    return product.gtin or product.item_id


class CatalogTools:
    """The tools of one reply, scoped to its organization and store."""

    def __init__(self, request: ReplyRequest) -> None:
        self.request = request
        self.organization = request.organization
        self.seen: dict[str, Product] = {}

    # --- what the model may call -----------------------------------------------------------

    def run(self, name: str, args: dict[str, Any]) -> dict[str, Any]:
        return getattr(self, f"tool_{name}")(args)

    def page_context(self) -> dict[str, Any] | None:
        """get_page_context for the shopper's page, given to the model with the prompt."""
        return self.tool_get_page_context({})

    def tool_get_page_context(self, args: dict[str, Any]) -> dict[str, Any]:
        url = _text(args, "url") or self.request.current_url
        try:
            canonical = canonicalize_url(url)
        except InvalidUrlError:
            raise ToolArgumentsError("url must be an absolute http or https URL") from None
        product = Product.objects.filter(organization=self.organization, url=canonical).first()
        if product is None:
            return {"url": canonical, "product": None}
        return {"url": canonical, "product": self._summary(product, details=True)}

    def tool_search_products(self, args: dict[str, Any]) -> dict[str, Any]:
        query = _text(args, "query")
        limit = _integer(args, "limit", default=5, low=1, high=MAX_RESULTS)
        sort = _text(args, "sort") or "relevance"
        if sort not in {"relevance", "price_asc", "price_desc"}:
            raise ToolArgumentsError("sort must be relevance, price_asc or price_desc")
        filters = SearchFilters(
            min_price=_price(args, "min_price"),
            max_price=_price(args, "max_price"),
            brands=_strings(args, "brands"),
            exclude_brands=_strings(args, "exclude_brands"),
            category=_text(args, "category"),
            colors=_strings(args, "colors"),
            sizes=_strings(args, "sizes"),
            materials=_strings(args, "materials"),
            in_stock=_boolean(args, "in_stock"),
            on_sale=_boolean(args, "on_sale"),
            store=self.request.store if _boolean(args, "in_stock") else None,
        )
        result = product_search(
            organization=self.organization, query=query, filters=filters, sort=sort, limit=limit
        )
        return {
            "query": query,
            "total": result.total,
            "products": [self._summary(product) for product in result.products],
        }

    def tool_get_product(self, args: dict[str, Any]) -> dict[str, Any]:
        product = self._product(_required_text(args, "gtin"))
        return {"product": self._summary(product, details=True) if product else None}

    def tool_compare_products(self, args: dict[str, Any]) -> dict[str, Any]:
        gtins = _strings(args, "gtins")
        if not 2 <= len(gtins) <= 4:
            raise ToolArgumentsError("gtins must list 2 to 4 products")
        found = [p for p in (self._product(gtin) for gtin in gtins) if p is not None]
        return {"products": [self._summary(product, details=True) for product in found]}

    def tool_check_availability(self, args: dict[str, Any]) -> dict[str, Any]:
        product = self._product(_required_text(args, "gtin"))
        if product is None:
            return {"product": None}
        variants = Product.objects.filter(organization=self.organization)
        if product.item_group_id:
            variants = variants.filter(item_group_id=product.item_group_id)
        else:
            variants = variants.filter(pk=product.pk)
        if size := _text(args, "size"):
            variants = variants.filter(size__iexact=size)
        if color := _text(args, "color"):
            variants = variants.filter(color__iexact=color)
        return {
            "product": self._summary(product),
            "store": self.request.store.code if self.request.store else None,
            "variants": [self._summary(variant) for variant in variants[:20]],
        }

    # --- grounding -------------------------------------------------------------------------

    def products_named(self, gtins: list[str], *, limit: int) -> list[Product]:
        """The products the model named that a tool returned in this reply, re-read now."""
        known = [gtin for gtin in gtins if gtin in self.seen][:limit]
        if not known:
            return []
        fresh = {
            public_gtin(p): p
            for p in Product.objects.filter(
                pk__in=[self.seen[gtin].pk for gtin in known], organization=self.organization
            )
        }
        return [fresh[gtin] for gtin in known if gtin in fresh]

    def snapshots(self, products: list[Product]) -> list[dict[str, Any]]:
        return [self._snapshot(product) for product in products]

    def suggestions(self, products: list[Product]) -> list[str]:
        if len(products) >= 2:
            first, second = products[0], products[1]
            return [f"Compare {first.title} and {second.title}", "Show me cheaper options"]
        if products:
            return [f"Is {products[0].title} in stock?", "Show me similar products"]
        return ["What's on sale?", "Show me your best sellers"]

    # --- helpers ---------------------------------------------------------------------------

    def _product(self, gtin: str) -> Product | None:
        product = (
            Product.objects.filter(organization=self.organization)
            .filter(Q(gtin=gtin) | Q(gtin="", item_id=gtin))
            .first()
        )
        if product is not None:
            self.seen[public_gtin(product)] = product
        return product

    def _summary(self, product: Product, *, details: bool = False) -> dict[str, Any]:
        self.seen[public_gtin(product)] = product
        summary: dict[str, Any] = {
            "gtin": public_gtin(product),
            "brand": product.brand,
            "title": product.title,
            "price": float(product.current_price),
            "currency": product.currency,
            "availability": product.availability,
        }
        if product.sale_price is not None and product.sale_price < product.price:
            summary["regularPrice"] = float(product.price)
        for name in ("color", "size", "material"):
            if value := getattr(product, name):
                summary[name] = value
        if details:
            summary["category"] = product.category
            summary["description"] = product.description[:500]
            summary["url"] = product.url
        return summary

    def _snapshot(self, product: Product) -> dict[str, Any]:
        snapshot: dict[str, Any] = {
            "gtin": public_gtin(product),
            "brand": product.brand,
            "designation": product.title,
            "url": product.url,
            "image": product.image_url,
            "price": float(product.current_price),
            "currency": product.currency,
        }
        if product.category:
            snapshot["category"] = product.category
        return snapshot


def catalog_fallback(request: ReplyRequest, publisher: EventPublisher) -> Reply:
    """The catalog engine's reply, in the same stream (which already has its typing event)."""
    from knowledge.engines import ENGINES  # the registry imports this package

    return import_string(ENGINES["catalog"])().reply(request, TypingOnce(publisher))


class TypingOnce(EventPublisher):
    """A publisher for the fallback: the reply's typing event was published already."""

    def __init__(self, inner: EventPublisher) -> None:
        super().__init__(chat_id=inner.chat_id)

    def typing(self):  # type: ignore[override]
        return None


def _text(args: dict[str, Any], name: str) -> str:
    value = args.get(name)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ToolArgumentsError(f"{name} must be a string")
    return value.strip()[:500]


def _required_text(args: dict[str, Any], name: str) -> str:
    value = _text(args, name)
    if not value:
        raise ToolArgumentsError(f"{name} is required")
    return value


def _strings(args: dict[str, Any], name: str) -> tuple[str, ...]:
    value = args.get(name)
    if value is None:
        return ()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str | int) for v in value):
        raise ToolArgumentsError(f"{name} must be a list of strings")
    return tuple(str(v).strip() for v in value if str(v).strip())[:10]


def _boolean(args: dict[str, Any], name: str) -> bool | None:
    value = args.get(name)
    if value is None or isinstance(value, bool):
        return value
    raise ToolArgumentsError(f"{name} must be true or false")


def _price(args: dict[str, Any], name: str) -> Decimal | None:
    value = args.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise ToolArgumentsError(f"{name} must be a number")
    try:
        price = Decimal(str(value))
    except InvalidOperation:
        raise ToolArgumentsError(f"{name} must be a number") from None
    if not price.is_finite() or price < 0:
        raise ToolArgumentsError(f"{name} must be a positive number")
    return price


def _integer(args: dict[str, Any], name: str, *, default: int, low: int, high: int) -> int:
    value = args.get(name)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int):
        raise ToolArgumentsError(f"{name} must be an integer")
    return min(max(value, low), high)
