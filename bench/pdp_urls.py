"""The production URLconf plus `/bench/pdp-baseline`: a plain Django view with a fixed JSON body.

The body has the size and shape of a PDP question set, so the baseline differs from the real
GET only by what the endpoint does (DRF view, lookup, counting, ETag), not by bytes on the wire.
"""

from django.http import HttpRequest, JsonResponse
from django.urls import path

from assistant_api.urls import handler400, handler403, handler404, handler500, urlpatterns

BASELINE_BODY = {
    "id": "0b9c7c52-5d1e-4c0e-9a55-2f1f1e8f0d11",
    "organizationId": "9d8c7b6a-5f4e-4d3c-b2a1-0f9e8d7c6b5a",
    "productTitle": "Trail Runner 2 Waterproof Running Shoe",
    "url": "https://shop.example/products/trail-runner-2",
    "requests": 1,
    "createdAt": "2026-01-01T00:00:00Z",
    "questions": [
        {"id": f"6f1a8a0e-5f5b-4a53-9d1e-3c2b1a0f9e8{rank}", "text": text, "rank": rank}
        for rank, text in enumerate(
            [
                "Which sizes of the Trail Runner 2 are in stock?",
                "What colours does the Trail Runner 2 come in?",
                "Is the Trail Runner 2 available in size 43?",
                "Does the Trail Runner 2 run true to size?",
                "How much is the discount on the Trail Runner 2?",
                "Do you have a cheaper alternative to the Trail Runner 2?",
            ],
            start=1,
        )
    ],
}


def baseline(request: HttpRequest) -> JsonResponse:
    """What Django alone costs: route a request to a view that returns fixed JSON."""
    return JsonResponse(BASELINE_BODY)


urlpatterns = [*urlpatterns, path("bench/pdp-baseline", baseline)]

__all__ = ["handler400", "handler403", "handler404", "handler500", "urlpatterns"]
