"""Search filters: what the shopper may narrow a product search by, applied as ORM filters."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from functools import reduce
from operator import or_

from django.db.models import Exists, F, OuterRef, Q, QuerySet
from django.db.models.functions import Coalesce

from knowledge.models import Availability, Product, Store, StoreInventory


@dataclass(frozen=True)
class SearchFilters:
    """Every field is optional; an empty value (None, (), "") means "no restriction".

    Text values match case-insensitively. `min_price`/`max_price` apply to the price the shopper
    pays (the sale price when there is one, docs/api.md#product). `category` matches the whole
    category path ("mens shoes > footwear"), its leading part ("mens shoes") or any one level
    ("footwear"), in `product_type` or `google_product_category`.
    """

    min_price: Decimal | None = None
    max_price: Decimal | None = None
    brands: tuple[str, ...] = ()
    exclude_brands: tuple[str, ...] = ()
    category: str = ""
    in_stock: bool | None = None  # True: in stock (in `store` when given); False: not in stock
    store: Store | None = None
    colors: tuple[str, ...] = ()
    sizes: tuple[str, ...] = ()
    materials: tuple[str, ...] = ()
    genders: tuple[str, ...] = ()
    age_groups: tuple[str, ...] = ()
    on_sale: bool | None = None
    item_group_id: str = ""
    exclude_item_ids: tuple[str, ...] = field(default=())


def with_paid_price(queryset: QuerySet[Product]) -> QuerySet[Product]:
    """Annotates `paid_price`: the sale price when there is one, else the regular price."""
    return queryset.annotate(paid_price=Coalesce(F("sale_price"), F("price")))


def apply_filters(queryset: QuerySet[Product], filters: SearchFilters) -> QuerySet[Product]:
    """The queryset narrowed by `filters`; expects `with_paid_price` to have been applied."""
    conditions: list[Q] = []
    if filters.min_price is not None:
        conditions.append(Q(paid_price__gte=filters.min_price))
    if filters.max_price is not None:
        conditions.append(Q(paid_price__lte=filters.max_price))
    if filters.brands:
        conditions.append(_any_iexact("brand", filters.brands))
    if filters.exclude_brands:
        conditions.append(~_any_iexact("brand", filters.exclude_brands))
    if filters.category.strip():
        conditions.append(_category_matches(filters.category.strip()))
    for name, values in (
        ("color", filters.colors),
        ("size", filters.sizes),
        ("material", filters.materials),
        ("gender", filters.genders),
        ("age_group", filters.age_groups),
    ):
        if values:
            condition = _any_iexact(name, values)
            if name == "color":
                condition |= _any_listed_color(values)
            conditions.append(condition)
    if filters.on_sale is not None:
        on_sale = Q(sale_price__isnull=False, sale_price__lt=F("price"))
        conditions.append(on_sale if filters.on_sale else ~on_sale)
    if filters.item_group_id:
        conditions.append(Q(item_group_id=filters.item_group_id))
    if filters.exclude_item_ids:
        conditions.append(~Q(item_id__in=filters.exclude_item_ids))
    if filters.in_stock is not None:
        in_stock = _in_stock(filters.store)
        conditions.append(in_stock if filters.in_stock else ~in_stock)
    elif filters.store is not None:
        # A store without an availability wish still means "carried by that store".
        conditions.append(
            Q(Exists(StoreInventory.objects.filter(product=OuterRef("pk"), store=filters.store)))
        )
    return queryset.filter(*conditions) if conditions else queryset


def _any_iexact(field_name: str, values: tuple[str, ...]) -> Q:
    cleaned = [value.strip() for value in values if value and value.strip()]
    if not cleaned:
        return Q()
    return reduce(or_, (Q(**{f"{field_name}__iexact": value}) for value in cleaned))


def _any_listed_color(values: tuple[str, ...]) -> Q:
    """A feed's multi-colour value names up to three colours separated by "/" ("White/Black"):
    each of them matches."""
    condition = Q()
    for value in (v.strip() for v in values if v and v.strip()):
        condition |= (
            Q(color__istartswith=f"{value}/")
            | Q(color__iendswith=f"/{value}")
            | Q(color__icontains=f"/{value}/")
        )
    return condition


def _category_matches(category: str) -> Q:
    condition = Q()
    for field_name in ("product_type", "google_product_category"):
        condition |= (
            Q(**{f"{field_name}__iexact": category})
            | Q(**{f"{field_name}__istartswith": f"{category} >"})
            | Q(**{f"{field_name}__icontains": f"> {category} >"})
            | Q(**{f"{field_name}__iendswith": f"> {category}"})
        )
    return condition


def _in_stock(store: Store | None) -> Q:
    if store is None:
        return Q(availability=Availability.IN_STOCK)
    return Q(
        Exists(
            StoreInventory.objects.filter(
                product=OuterRef("pk"), store=store, availability=Availability.IN_STOCK
            )
        )
    )
