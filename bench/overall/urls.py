"""The production URLconf plus `/bench/baseline`, a plain Django view with a fixed small body, and
the floors (bench/overall/floors.py)."""

from django.http import HttpRequest, JsonResponse
from django.urls import path

from assistant_api.urls import handler400, handler403, handler404, handler500, urlpatterns
from bench.overall.floors import floor_chat, floor_count, floor_message

BASELINE_BODY = {
    "id": "0b9c7c52-5d1e-4c0e-9a55-2f1f1e8f0d11",
    "chatbotId": "6f1a8a0e-5f5b-4a53-9d1e-3c2b1a0f9e8d",
    "userId": "3c3e2c1a-8b7d-4e6f-a5b4-c3d2e1f0a9b8",
    "organizationId": "9d8c7b6a-5f4e-4d3c-b2a1-0f9e8d7c6b5a",
    "createdAt": "2026-01-01T00:00:00Z",
}


def baseline(request: HttpRequest) -> JsonResponse:
    """The stack's own limit: Django routing a request to a view that returns fixed JSON."""
    return JsonResponse(BASELINE_BODY)


urlpatterns = [
    *urlpatterns,
    path("bench/baseline", baseline),
    path("bench/floor/count", floor_count),
    path("bench/floor/chat", floor_chat),
    path("bench/floor/message", floor_message),
]

__all__ = ["handler400", "handler403", "handler404", "handler500", "urlpatterns"]
