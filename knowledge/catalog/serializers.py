"""Request and response shapes of the catalog API: Merchant Center attributes as JSON.

The shapes only: whether a value is right (a price, an availability, a URL) is for the feed
import's row checks (knowledge/feeds), which the catalog API shares.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_serializer
from rest_framework import serializers

from knowledge.catalog.items import DELETE, MAX_BATCH_ITEMS, PATCH, PUT
from knowledge.feeds.inventory import STANDARD_ATTRIBUTES
from knowledge.feeds.products import PRODUCT_ATTRIBUTES

UNKNOWN_ATTRIBUTE = "not a product attribute the catalog reads"


def _attribute(name: str) -> serializers.CharField:
    # A JSON string or number (a quantity may be 12 or "12"), as the feed's cell would read.
    return serializers.CharField(
        required=False, allow_blank=True, help_text=f"Merchant Center `{name}`, as in a feed."
    )


class _Attributes(serializers.Serializer):
    def to_internal_value(self, data: Any) -> dict[str, Any]:
        checked = super().to_internal_value(data)  # refuses anything but an object first
        unknown = [name for name in data if name not in self.fields]
        if unknown:
            raise serializers.ValidationError({name: [UNKNOWN_ATTRIBUTE] for name in unknown})
        return checked


# One optional field per attribute product_row reads.
ProductInput = extend_schema_serializer(component_name="CatalogProduct")(
    type("ProductInput", (_Attributes,), {name: _attribute(name) for name in PRODUCT_ATTRIBUTES})
)


@extend_schema_serializer(component_name="CatalogProductResult")
class ProductOutput(serializers.Serializer):
    product = ProductInput(help_text="The product as stored, as feed attributes.")
    warnings = serializers.ListField(child=serializers.CharField())


@extend_schema_serializer(component_name="CatalogBatchItem")
class BatchItemInput(serializers.Serializer):
    method = serializers.ChoiceField(
        choices=[PUT, PATCH, DELETE], help_text="What the single-item request would be."
    )
    id = serializers.CharField(max_length=1000)
    product = ProductInput(required=False, help_text="The attributes of PUT or PATCH.")


@extend_schema_serializer(component_name="CatalogBatch")
class BatchInput(serializers.Serializer):
    items = serializers.ListField(child=BatchItemInput(), min_length=1, max_length=MAX_BATCH_ITEMS)


@extend_schema_serializer(component_name="CatalogBatchResult")
class BatchItemOutput(serializers.Serializer):
    id = serializers.CharField()
    status = serializers.IntegerField(help_text="200, 201, 204, 404 or 422")
    message = serializers.CharField(required=False)
    # A declared field, not Serializer.errors: DRF's metaclass takes it out of the class.
    errors = serializers.DictField(  # type: ignore[assignment]
        child=serializers.ListField(child=serializers.CharField()), required=False
    )
    warnings = serializers.ListField(child=serializers.CharField(), required=False)


class BatchOutput(serializers.Serializer):
    results = BatchItemOutput(many=True)


@extend_schema_serializer(component_name="StoreStock")
class StockInput(serializers.Serializer):
    """A local inventory row: attributes beyond the standard ones are the store's details."""

    availability = serializers.CharField(
        required=False, help_text="in_stock, out_of_stock, limited_availability, ..."
    )
    quantity = serializers.CharField(required=False, allow_blank=True)

    def to_internal_value(self, data: Any) -> dict[str, str]:
        checked = super().to_internal_value(data)
        extra = {
            name: value
            for name, value in data.items()
            if name not in self.fields and name not in STANDARD_ATTRIBUTES
        }
        details = serializers.DictField(child=serializers.CharField(allow_blank=True))
        return {**details.run_validation(extra), **checked}


class StockOutput(serializers.Serializer):
    storeCode = serializers.CharField()
    id = serializers.CharField()
    availability = serializers.CharField()
    quantity = serializers.IntegerField(allow_null=True)
    location = serializers.ListField(child=serializers.DictField(child=serializers.CharField()))
