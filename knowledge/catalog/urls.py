"""Routes of the catalog API, with their full paths (see chats/urls.py)."""

from django.urls import path

from knowledge.catalog.views import ProductBatchView, ProductView, StoreStockView

urlpatterns = [
    # Before the item route: "batch" is not an item id here.
    path("v1/catalog/products/batch", ProductBatchView.as_view(), name="catalog-batch"),
    path("v1/catalog/products/<path:itemId>", ProductView.as_view(), name="catalog-product"),
    path(
        "v1/catalog/inventory/<str:storeCode>/<path:itemId>",
        StoreStockView.as_view(),
        name="catalog-stock",
    ),
]
