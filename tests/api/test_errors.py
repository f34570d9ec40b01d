"""docs/api.md#errors: every non-2xx response is JSON `{"message": ...}`, with X-Request-Id."""

from __future__ import annotations

import pytest
from django.test import Client, override_settings

from assistant_api import errors

pytestmark = pytest.mark.django_db


def assert_error(response, status: int) -> dict:
    assert response.status_code == status
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert isinstance(body["message"], str) and body["message"]
    assert set(body) <= {"message", "errors"}
    return body


@pytest.mark.parametrize(
    "path", ["/nope", "/v1/nope", "/v1/chats/a/b/c", "/v1/", "/static/nope.css"]
)
def test_unknown_paths_are_json_404(client, path):
    assert_error(client.get(path), 404)


def test_invalid_json_is_400(tenant):
    response = tenant.client.post("/v1/chats", data="{not json", content_type="application/json")
    assert assert_error(response, 400)["message"].startswith(errors.INVALID_JSON)


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ("[" * 10_000 + "]" * 10_000, "depth limit exceeded"),
        (b'{"chatbotId": "\xff\xfe"}', "not valid UTF-8"),
        ('{"chatbotId": "\\ud800"}', "surrogate"),
        ('{"chatbotId": 1e999}', "infinity"),
        ("NaN", "unexpected character"),
    ],
)
def test_hostile_json_is_400_with_a_reason(tenant, body, reason):
    response = tenant.client.post("/v1/chats", data=body, content_type="application/json")
    assert reason in assert_error(response, 400)["message"]


def test_method_not_allowed_is_405_with_allow(tenant):
    response = tenant.client.delete("/v1/chats")
    assert_error(response, 405)
    assert "POST" in response["Allow"]


def test_healthz_method_not_allowed_is_json(client):
    assert_error(client.post("/healthz"), 405)


def test_admin_csrf_failure_is_json_with_the_reason():
    # A form posted without its CSRF token (an expired page, a forged request).
    response = Client(enforce_csrf_checks=True).post(
        "/admin/login/", {"username": "ops", "password": "pw"}
    )
    body = assert_error(response, 403)
    assert body["message"] == (
        "CSRF verification failed: CSRF cookie not set. Reload the page and try again."
    )


def test_admin_method_not_allowed_is_json_with_allow(superuser_client):
    response = superuser_client.get("/admin/logout/")  # signing out is a POST
    assert_error(response, 405)
    assert "POST" in response["Allow"]


def test_replaced_errors_keep_their_headers_and_say_their_length(superuser_client, tenant):
    # Django's own 405 (HTML, empty) becomes JSON; only its body and Content-Type change.
    replaced = superuser_client.get("/admin/logout/")
    assert_error(replaced, 405)
    assert replaced["X-Frame-Options"] == "DENY" and replaced["X-Content-Type-Options"]
    # An error answered before Django's middleware (the size limit) still says its length.
    too_large = tenant.client.post(
        "/v1/chats", data="{}" + " " * 70_000, content_type="application/json"
    )
    for response in (replaced, too_large):
        assert int(response["Content-Length"]) == len(response.content)


def test_not_acceptable_is_406(tenant):
    assert_error(tenant.client.get("/v1/chats/x", HTTP_ACCEPT="text/html"), 406)


def test_body_over_64_kib_is_413(tenant):
    body = '{"chatbotId": "' + "a" * (64 * 1024) + '"}'
    response = tenant.client.post("/v1/chats", data=body, content_type="application/json")
    assert assert_error(response, 413) == {"message": errors.BODY_TOO_LARGE}


def test_body_of_exactly_64_kib_is_read(tenant):
    padding = 64 * 1024 - len('{"chatbotId": ""}')
    body = '{"chatbotId": "' + "a" * padding + '"}'
    assert len(body.encode()) == 64 * 1024
    assert_error(tenant.client.post("/v1/chats", data=body, content_type="application/json"), 422)


def test_non_json_body_is_415(tenant):
    response = tenant.client.post(
        "/v1/chats", data="chatbotId=x", content_type="application/x-www-form-urlencoded"
    )
    assert_error(response, 415)


def test_validation_error_lists_fields(tenant):
    body = assert_error(tenant.client.post("/v1/chats", {}, format="json"), 422)
    assert body["errors"] == {"chatbotId": ["This field is required."]}
    assert body["message"] == "chatbotId: This field is required."


@override_settings(ROOT_URLCONF="tests.api.urls_failing")
@pytest.mark.parametrize("path", ["/test/explode", "/test/plain-explode"])
def test_unexpected_error_is_500_without_details(client, path, caplog):
    client.raise_request_exception = False
    response = client.get(path, HTTP_X_REQUEST_ID="trace-me-123")
    body = assert_error(response, 500)
    assert body == {"message": errors.INTERNAL_ERROR}
    assert "hunter2" not in response.content.decode()
    assert response["X-Request-Id"] == "trace-me-123"
    # The error is logged once with the request id, so support can find it.
    records = [r for r in caplog.records if r.levelname == "ERROR"]
    assert records and all(getattr(r, "request_id", None) == "trace-me-123" for r in records)


@override_settings(ROOT_URLCONF="tests.api.urls_failing")
def test_database_unavailable_is_503_without_details(client):
    response = client.get("/test/database-down")
    assert assert_error(response, 503) == {"message": errors.DATABASE_UNAVAILABLE}
    assert "db.internal" not in response.content.decode()


def test_request_id_is_echoed_or_generated(client):
    assert client.get("/healthz", HTTP_X_REQUEST_ID="abc-123")["X-Request-Id"] == "abc-123"
    generated = client.get("/healthz")["X-Request-Id"]
    assert len(generated) == 32
    # An id that is unsafe to echo into headers and logs is replaced.
    assert client.get("/nope", HTTP_X_REQUEST_ID="x" * 500)["X-Request-Id"] != "x" * 500


def test_health_endpoints(client):
    assert client.get("/healthz").json() == {"status": "ok"}
    assert client.get("/readyz").json() == {"status": "ok"}
