"""The catalog API (docs/api.md, "Catalog API"): keys of the `catalog` scope only.

Each view validates the JSON shape, calls one function of knowledge/catalog/items.py and
writes its result; a single-item request is a batch of one.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.authentication import request_organization
from accounts.scopes import CatalogScope
from assistant_api.errors import NotFoundError, ValidationFailedError
from assistant_api.openapi import ERROR_RESPONSES
from assistant_api.validation import validated
from knowledge.catalog.items import (
    DELETE,
    PATCH,
    PUT,
    ItemChange,
    ItemResult,
    catalog_items_apply,
    store_stock_put,
)
from knowledge.catalog.serializers import (
    BatchInput,
    BatchOutput,
    ProductInput,
    ProductOutput,
    StockInput,
    StockOutput,
)
from knowledge.feeds.products import product_values
from knowledge.models import Product, StoreInventory

_ERRORS = ERROR_RESPONSES(401, 403, 404, 413, 415, 422, 429)


def _item_parameter() -> OpenApiParameter:
    return OpenApiParameter(
        "itemId", OpenApiTypes.STR, OpenApiParameter.PATH, description="The product's feed `id`."
    )


class CatalogView(APIView):
    permission_classes = [CatalogScope]


class ProductView(CatalogView):
    @extend_schema(
        operation_id="putCatalogProduct",
        summary="Create or Replace a Product",
        parameters=[_item_parameter()],
        request=ProductInput,
        responses={200: ProductOutput, 201: ProductOutput, **_ERRORS},
    )
    def put(self, request: Request, itemId: str) -> Response:
        return _single(request, ItemChange(PUT, itemId, validated(ProductInput, request.data)))

    @extend_schema(
        operation_id="patchCatalogProduct",
        summary="Update Some Attributes of a Product",
        parameters=[_item_parameter()],
        request=ProductInput,
        responses={200: ProductOutput, **_ERRORS},
    )
    def patch(self, request: Request, itemId: str) -> Response:
        return _single(request, ItemChange(PATCH, itemId, validated(ProductInput, request.data)))

    @extend_schema(
        operation_id="deleteCatalogProduct",
        summary="Delete a Product",
        parameters=[_item_parameter()],
        responses={204: OpenApiResponse(description="Deleted."), **_ERRORS},
    )
    def delete(self, request: Request, itemId: str) -> Response:
        return _single(request, ItemChange(DELETE, itemId))


def _single(request: Request, change: ItemChange) -> Response:
    organization = request_organization(request)
    (result,) = catalog_items_apply(organization=organization, changes=[change])
    _raise_refusal(result.status, result.message, result.errors)
    if result.status == 204:
        return Response(status=204)
    product = Product.objects.get(organization=organization, item_id=change.item_id)
    body = {"product": product_values(product), "warnings": result.warnings}
    return Response(body, status=result.status)


def _raise_refusal(status: int, message: str, errors: dict[str, list[str]]) -> None:
    if status == 404:
        raise NotFoundError(message)
    if status == 422:
        raise ValidationFailedError(message, errors=errors)


class ProductBatchView(CatalogView):
    @extend_schema(
        operation_id="batchCatalogProducts",
        summary="Upsert, Update or Delete up to 1,000 Products",
        request=BatchInput,
        responses={200: BatchOutput, **_ERRORS},
    )
    def post(self, request: Request) -> Response:
        data = validated(BatchInput, request.data)
        changes = [
            ItemChange(item["method"], item["id"], item.get("product", {}))
            for item in data["items"]
        ]
        results = catalog_items_apply(organization=request_organization(request), changes=changes)
        return Response({"results": [_result_body(result) for result in results]})


def _result_body(result: ItemResult) -> dict[str, Any]:
    body: dict[str, Any] = {"id": result.item_id, "status": result.status}
    if result.message:
        body["message"] = result.message
    if result.errors:
        body["errors"] = result.errors
    if result.warnings:
        body["warnings"] = result.warnings
    return body


class StoreStockView(CatalogView):
    @extend_schema(
        operation_id="putStoreStock",
        summary="Set a Product's Stock in a Store",
        parameters=[
            OpenApiParameter(
                "storeCode",
                OpenApiTypes.STR,
                OpenApiParameter.PATH,
                description="The store's `store_code` (from the stores feed).",
            ),
            _item_parameter(),
        ],
        request=StockInput,
        responses={200: StockOutput, 201: StockOutput, **_ERRORS},
    )
    def put(self, request: Request, storeCode: str, itemId: str) -> Response:
        organization = request_organization(request)
        values = validated(StockInput, request.data)
        result = store_stock_put(
            organization=organization, store_code=storeCode, item_id=itemId, values=values
        )
        _raise_refusal(result.status, result.message, result.errors)
        stock = StoreInventory.objects.get(
            store__organization=organization, store__code=storeCode, product__item_id=itemId
        )
        body = {
            "storeCode": storeCode,
            "id": itemId,
            "availability": stock.availability,
            "quantity": stock.quantity,
            "location": stock.location,
        }
        return Response(body, status=result.status)
