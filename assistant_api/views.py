"""Health checks and the JSON pages Django shows for its own errors."""

from __future__ import annotations

from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.http import require_safe

from assistant_api import errors
from assistant_api.middleware import json_error


@require_safe
def healthz(request: HttpRequest) -> JsonResponse:
    """Liveness: the process answers."""
    return JsonResponse({"status": "ok"})


@require_safe
def readyz(request: HttpRequest) -> JsonResponse:
    """Readiness: the database answers a query."""
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception:
        return JsonResponse(
            {"status": "unavailable", "message": errors.DATABASE_UNAVAILABLE}, status=503
        )
    finally:
        connection.close()
    return JsonResponse({"status": "ok"})


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return json_error(400, errors.bad_request_message(exception))


def permission_denied(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return json_error(403)


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """CSRF_FAILURE_VIEW (admin forms): JSON like every error, with Django's reason."""
    because = f": {reason.rstrip('.')}" if reason else ""
    return json_error(403, f"CSRF verification failed{because}. Reload the page and try again.")


def not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return json_error(404)


def server_error(request: HttpRequest) -> HttpResponse:
    return json_error(500)
