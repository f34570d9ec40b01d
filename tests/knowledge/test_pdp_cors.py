"""CORS on the public PDP endpoints only, any origin or the organization's list
(docs/api.md#cors)."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from knowledge.pdp.services import question_set_create
from tests.factories import OrganizationFactory

pytestmark = pytest.mark.django_db

PAGE = "https://shop.example/products/lamp"
POST_PATH = "/v1/knowledge/pdp-questions/public/get-questions"
ALLOW_ORIGIN = "Access-Control-Allow-Origin"


def get_path(organization) -> str:
    return f"/v1/knowledge/pdp-questions/{organization.id}/public"


def preflight(client: APIClient, path: str, origin: str, method: str):
    return client.options(
        path,
        HTTP_ORIGIN=origin,
        HTTP_ACCESS_CONTROL_REQUEST_METHOD=method,
        HTTP_ACCESS_CONTROL_REQUEST_HEADERS="content-type",
    )


@pytest.fixture
def open_shop():
    organization = OrganizationFactory()
    question_set_create(organization=organization, url=PAGE, product_title="Lamp", questions=["Q?"])
    return organization


@pytest.fixture
def listed_shop():
    organization = OrganizationFactory(
        allowed_origins=["https://shop.example", "HTTP://Other.Example:8080/"]
    )
    question_set_create(organization=organization, url=PAGE, product_title="Lamp", questions=["Q?"])
    return organization


def test_any_origin_gets_a_star_on_both_operations(anonymous, open_shop):
    origin = "https://anyone.example"
    response = anonymous.get(get_path(open_shop), {"url": PAGE}, HTTP_ORIGIN=origin)
    assert response.status_code == 200
    assert response[ALLOW_ORIGIN] == "*"
    assert "origin" in response["Vary"].lower()

    response = anonymous.post(
        POST_PATH,
        {"url": PAGE, "organizationId": str(open_shop.id)},
        format="json",
        HTTP_ORIGIN=origin,
    )
    assert response.status_code == 200
    assert response[ALLOW_ORIGIN] == "*"


def test_the_page_script_may_read_the_etag_to_revalidate(anonymous, open_shop):
    response = anonymous.get(get_path(open_shop), {"url": PAGE}, HTTP_ORIGIN="https://a.example")
    exposed = {
        name.strip().lower() for name in response["Access-Control-Expose-Headers"].split(",")
    }
    assert {"etag", "x-request-id", "retry-after"} <= exposed
    assert response["ETag"]


def test_errors_answer_cors_too_so_the_page_script_can_read_them(anonymous, open_shop):
    origin = "https://anyone.example"
    not_found = anonymous.get(get_path(open_shop), {"url": PAGE + "/x"}, HTTP_ORIGIN=origin)
    invalid = anonymous.post(POST_PATH, {"url": "x"}, format="json", HTTP_ORIGIN=origin)
    assert (not_found.status_code, invalid.status_code) == (404, 422)
    assert not_found[ALLOW_ORIGIN] == invalid[ALLOW_ORIGIN] == "*"


def test_a_body_too_large_answers_cors_too(anonymous, open_shop, listed_shop):
    # The size limit answers before any view; its 413 still reaches the page's script.
    body = b'{"pad": "' + b"a" * 70_000 + b'"}'
    origin = "https://anyone.example"
    post = anonymous.generic(
        "POST", POST_PATH, body, content_type="application/json", HTTP_ORIGIN=origin
    )
    get = anonymous.generic("GET", f"{get_path(open_shop)}?url={PAGE}", body, HTTP_ORIGIN=origin)
    listed = anonymous.generic(
        "GET", f"{get_path(listed_shop)}?url={PAGE}", body, HTTP_ORIGIN="https://shop.example"
    )
    unlisted = anonymous.generic(
        "GET", f"{get_path(listed_shop)}?url={PAGE}", body, HTTP_ORIGIN=origin
    )
    assert [r.status_code for r in (post, get, listed, unlisted)] == [413] * 4
    assert post[ALLOW_ORIGIN] == get[ALLOW_ORIGIN] == "*"
    assert listed[ALLOW_ORIGIN] == "https://shop.example"
    assert ALLOW_ORIGIN not in unlisted


@pytest.mark.parametrize("method", ["GET", "POST"])
def test_preflight_is_answered_for_any_origin(anonymous, open_shop, method):
    path = get_path(open_shop) if method == "GET" else POST_PATH
    response = preflight(anonymous, path, "https://anyone.example", method)
    assert response.status_code == 200
    assert response[ALLOW_ORIGIN] == "*"
    assert response["Access-Control-Allow-Methods"] == "GET, POST, OPTIONS"
    assert response["Access-Control-Allow-Headers"].lower() == "content-type"


@pytest.mark.parametrize(
    "origin", ["https://shop.example", "https://shop.example:443", "http://other.example:8080"]
)
def test_a_listed_origin_is_echoed(anonymous, listed_shop, origin):
    response = anonymous.get(get_path(listed_shop), {"url": PAGE}, HTTP_ORIGIN=origin)
    assert response[ALLOW_ORIGIN] == origin
    response = preflight(anonymous, get_path(listed_shop), origin, "GET")
    assert response[ALLOW_ORIGIN] == origin
    response = anonymous.post(
        POST_PATH,
        {"url": PAGE, "organizationId": str(listed_shop.id)},
        format="json",
        HTTP_ORIGIN=origin,
    )
    assert response[ALLOW_ORIGIN] == origin


@pytest.mark.parametrize(
    "origin",
    [
        "https://evil.example",
        "http://shop.example",  # another scheme is another origin
        "https://shop.example:8443",
        "https://sub.shop.example",
        "null",
    ],
)
def test_an_unlisted_origin_gets_no_cors(anonymous, listed_shop, origin):
    # The GET, its preflight, a 404 of the GET and the POST all refuse it.
    responses = [
        anonymous.get(get_path(listed_shop), {"url": PAGE}, HTTP_ORIGIN=origin),
        anonymous.get(get_path(listed_shop), {"url": PAGE + "/x"}, HTTP_ORIGIN=origin),
        preflight(anonymous, get_path(listed_shop), origin, "GET"),
        anonymous.post(
            POST_PATH,
            {"url": PAGE, "organizationId": str(listed_shop.id)},
            format="json",
            HTTP_ORIGIN=origin,
        ),
    ]
    assert [response.status_code for response in responses] == [200, 404, 200, 200]
    for response in responses:
        assert ALLOW_ORIGIN not in response
        assert "Access-Control-Allow-Methods" not in response


def test_a_post_preflight_carries_no_organization_so_it_is_answered(anonymous, listed_shop):
    # The browser then applies the POST response's own headers (refused above).
    response = preflight(anonymous, POST_PATH, "https://evil.example", "POST")
    assert response[ALLOW_ORIGIN] == "*"


@pytest.mark.parametrize(
    ("method", "path"),
    [
        # One chat's paths answer preflights for client tokens: tests/chats/test_chat_cors.py.
        ("POST", "/v1/chats"),
        ("GET", "/v1/usage"),
        ("GET", "/v1/openapi.json"),
        ("GET", "/healthz"),
        ("GET", "/admin/"),
        ("GET", "/v1/knowledge/pdp-questions/x/publicity"),
        ("POST", "/v1/knowledge/pdp-questions/public/get-questions/more"),
        ("GET", "/v1/nowhere"),
    ],
)
def test_no_other_path_answers_cors(anonymous, tenant, method, path):
    origin = "https://anyone.example"
    for client in (anonymous, tenant.client):
        response = preflight(client, path, origin, method)
        assert ALLOW_ORIGIN not in response, (path, response.status_code)
        assert "Access-Control-Allow-Methods" not in response
        response = client.generic(method, path, HTTP_ORIGIN=origin)
        assert ALLOW_ORIGIN not in response, (path, response.status_code)
