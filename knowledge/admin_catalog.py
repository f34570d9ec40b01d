"""Admin pages of the product catalog: products (with store inventory inline), stores, inventory.

The import form and the import history are in `admin_imports`. Product URLs are stored
canonical whichever way they are entered (docs/api.md#url-canonical-form), and a saved
product's words join the typo-correction vocabulary so that search knows them at once; a save
or delete renews what workers keep of the catalog, as an import does
(knowledge/catalog/freshness.py).
"""

from __future__ import annotations

from django import forms
from django.contrib import admin
from django.db.models import Count, Q, QuerySet
from django.http import HttpRequest

from accounts.models import Organization
from knowledge import admin_imports  # noqa: F401  (registers the import history and form)
from knowledge.canonical import InvalidUrlError, canonicalize_url
from knowledge.catalog.freshness import catalog_changed
from knowledge.display import price_text
from knowledge.models import Product, Store, StoreInventory
from knowledge.search.vocabulary import search_terms_add, search_terms_of_products

INVALID_PRODUCT_URL = "Enter an absolute http or https URL."


class StoreFilter(admin.SimpleListFilter):
    """Products carried by one store (having an inventory row there)."""

    title = "store"
    parameter_name = "store"

    def lookups(self, request: HttpRequest, model_admin):
        stores = Store.objects.select_related("organization").order_by("organization__name", "code")
        return [(str(store.pk), f"{store} ({store.organization})") for store in stores]

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        if self.value():
            return queryset.filter(inventory__store_id=self.value())
        return queryset


class CategoryFilter(admin.SimpleListFilter):
    """The first level of the category path ("shoes" for "shoes > running")."""

    title = "category"
    parameter_name = "category"

    def lookups(self, request: HttpRequest, model_admin):
        paths = Product.objects.values_list("product_type", flat=True).distinct()[:5000]
        tops = sorted({path.split(">")[0].strip() for path in paths if path.strip()})
        return [(top, top) for top in tops]

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        if self.value():
            return queryset.filter(
                Q(product_type__iexact=self.value())
                | Q(product_type__istartswith=f"{self.value()} >")
            )
        return queryset


class ProductForm(forms.ModelForm):
    class Meta:
        model = Product
        fields = ["url"]  # the admin adds the fieldsets' fields

    def clean_url(self) -> str:
        try:
            return canonicalize_url(self.cleaned_data["url"])
        except InvalidUrlError:
            raise forms.ValidationError(INVALID_PRODUCT_URL) from None


class StoreInventoryInline(admin.TabularInline):
    model = StoreInventory
    extra = 0
    fields = ["store", "availability", "quantity", "location"]

    def get_formset(self, request: HttpRequest, obj: Product | None = None, **kwargs):
        self._product = obj
        return super().get_formset(request, obj, **kwargs)

    def formfield_for_foreignkey(self, db_field, request: HttpRequest, **kwargs):
        # Only the product's own organization's stores can hold its inventory.
        product = getattr(self, "_product", None)
        if db_field.name == "store" and product is not None:
            kwargs["queryset"] = Store.objects.filter(organization=product.organization_id)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


@admin.register(Product)
class ProductAdmin(admin.ModelAdmin):
    form = ProductForm
    list_display = [
        "title",
        "item_id",
        "brand",
        "category",
        "price_shown",
        "availability",
        "quantity",
        "organization",
        "updated_at",
    ]
    list_filter = ["availability", "organization", "brand", CategoryFilter, StoreFilter]
    search_fields = ["title", "=item_id", "=gtin", "brand", "item_group_id"]
    list_select_related = ["organization"]
    readonly_fields = ["created_at", "updated_at"]
    inlines = [StoreInventoryInline]
    fieldsets = [
        (
            None,
            {"fields": ["organization", "item_id", "title", "brand", "gtin", "url", "image_url"]},
        ),
        ("Price", {"fields": ["price", "sale_price", "currency", "price_info"]}),
        ("Stock", {"fields": ["availability", "quantity"]}),
        (
            "Details",
            {
                "fields": [
                    "product_type",
                    "google_product_category",
                    "description",
                    "item_group_id",
                    "color",
                    "size",
                    "material",
                    "gender",
                    "age_group",
                ]
            },
        ),
        ("History", {"fields": ["created_at", "updated_at"]}),
    ]

    @admin.display(description="price", ordering="price")
    def price_shown(self, obj: Product) -> str:
        """The price a shopper pays now (the sale price when there is one)."""
        return price_text(obj.current_price, obj.currency)

    def save_model(self, request: HttpRequest, obj: Product, form, change: bool) -> None:
        super().save_model(request, obj, form, change)
        search_terms_add(organization=obj.organization, terms=search_terms_of_products([obj]))

    def save_related(self, request: HttpRequest, form, formsets, change: bool) -> None:
        super().save_related(request, form, formsets, change)
        # As an import or the catalog API: the assistant's words and the page's question set,
        # once the store stock inline is saved too (the questions ask about stores' stock).
        product = form.instance
        catalog_changed(organization=product.organization, words=True, urls={product.url})

    def delete_model(self, request: HttpRequest, obj: Product) -> None:
        super().delete_model(request, obj)
        catalog_changed(organization=obj.organization, words=True, urls=())

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Product]) -> None:
        organizations = {product.organization for product in queryset}
        super().delete_queryset(request, queryset)
        for organization in organizations:
            catalog_changed(organization=organization, words=True, urls=())


@admin.register(Store)
class StoreAdmin(admin.ModelAdmin):
    list_display = ["code", "name", "organization", "products_listed"]
    list_filter = ["organization"]
    search_fields = ["code", "name"]
    list_select_related = ["organization"]

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        return super().get_queryset(request).annotate(products_listed=Count("inventory"))

    @admin.display(description="products listed", ordering="products_listed")
    def products_listed(self, obj: Store) -> int:
        return obj.products_listed  # type: ignore[attr-defined]


@admin.register(StoreInventory)
class StoreInventoryAdmin(admin.ModelAdmin):
    list_display = ["product", "store", "availability", "quantity"]
    list_filter = ["availability", "store"]
    search_fields = ["product__title", "=product__item_id", "store__code"]
    list_select_related = ["product", "store"]
    raw_id_fields = ["product"]

    # Store stock decides whether a PDP asks which stores have the product in stock.
    def save_model(self, request: HttpRequest, obj: StoreInventory, form, change: bool) -> None:
        super().save_model(request, obj, form, change)
        _stock_changed([obj])

    def delete_model(self, request: HttpRequest, obj: StoreInventory) -> None:
        super().delete_model(request, obj)
        _stock_changed([obj])

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[StoreInventory]) -> None:
        rows = list(queryset.select_related("product__organization"))
        super().delete_queryset(request, queryset)
        _stock_changed(rows)


def _stock_changed(rows: list[StoreInventory]) -> None:
    urls: dict[Organization, set[str]] = {}
    for row in rows:
        urls.setdefault(row.product.organization, set()).add(row.product.url)
    for organization, changed in urls.items():
        catalog_changed(organization=organization, words=False, urls=changed)
