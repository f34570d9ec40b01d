"""Operations 6 and 7 through the API (docs/api.md#pdp-question-sets): every status, caching,
counting, schema."""

from __future__ import annotations

import uuid

import pytest
from rest_framework.test import APIClient

from knowledge.models import PdpQuestionSet
from knowledge.pdp.selectors import ORGANIZATION_NOT_FOUND, QUESTION_SET_NOT_FOUND
from knowledge.pdp.serializers import INVALID_URL
from knowledge.pdp.services import question_set_create
from tests.factories import OrganizationFactory, ProductFactory
from tests.openapi_validation import SchemaChecker

pytestmark = pytest.mark.django_db

PAGE = "https://shop.example/products/trail-runner"
POST_PATH = "/v1/knowledge/pdp-questions/public/get-questions"


def get_path(organization_id) -> str:
    return f"/v1/knowledge/pdp-questions/{organization_id}/public"


@pytest.fixture
def organization():
    return OrganizationFactory()


@pytest.fixture
def stored(organization) -> PdpQuestionSet:
    return question_set_create(
        organization=organization,
        url=PAGE,
        product_title="Trail Runner",
        questions=["Which sizes are in stock?", "Is it waterproof?", "Is it on sale?"],
    )


@pytest.fixture
def checker(client) -> SchemaChecker:
    return SchemaChecker(client.get("/v1/openapi.json").json())


def post(client, **body):
    return client.post(POST_PATH, body, format="json")


# --- GET (operation 6) ----------------------------------------------------------------------


def test_get_returns_the_stored_set_for_the_canonical_url(anonymous, organization, stored):
    # Tracking parameters, fragment, host case, default port and trailing slash don't matter.
    url = "HTTPS://Shop.Example:443/products/trail-runner/?utm_source=news&gclid=1#reviews"
    response = anonymous.get(get_path(organization.id), {"url": url})

    assert response.status_code == 200
    body = response.json()
    assert body == {
        "id": str(stored.id),
        "organizationId": str(organization.id),
        "productTitle": "Trail Runner",
        "url": PAGE,
        "requests": 1,
        "createdAt": body["createdAt"],
        "questions": [
            {"id": body["questions"][0]["id"], "text": "Which sizes are in stock?", "rank": 1},
            {"id": body["questions"][1]["id"], "text": "Is it waterproof?", "rank": 2},
            {"id": body["questions"][2]["id"], "text": "Is it on sale?", "rank": 3},
        ],
    }
    assert body["createdAt"].endswith("Z")
    assert response["Cache-Control"] == "public, max-age=60"
    assert response["ETag"].startswith('W/"')


def test_get_counts_every_request(anonymous, organization, stored):
    for expected in (1, 2, 3):
        response = anonymous.get(get_path(organization.id), {"url": PAGE})
        assert response.json()["requests"] == expected
    stored.refresh_from_db()
    assert stored.requests == 3


def test_get_answers_304_to_a_matching_if_none_match_and_still_counts(
    anonymous, organization, stored
):
    first = anonymous.get(get_path(organization.id), {"url": PAGE})
    etag = first["ETag"]

    again = anonymous.get(get_path(organization.id), {"url": PAGE}, HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 304
    assert again.content == b""
    assert "Content-Type" not in again
    assert again["ETag"] == etag
    assert again["Cache-Control"] == "public, max-age=60"

    # A list with the tag, the strong spelling of it and `*` match too (weak comparison).
    for header in (f'"other", {etag}', etag.removeprefix("W/"), "*"):
        response = anonymous.get(
            get_path(organization.id), {"url": PAGE}, HTTP_IF_NONE_MATCH=header
        )
        assert response.status_code == 304
    stale = anonymous.get(get_path(organization.id), {"url": PAGE}, HTTP_IF_NONE_MATCH='W/"old"')
    assert stale.status_code == 200
    stored.refresh_from_db()
    assert stored.requests == 6


def test_etag_does_not_change_when_the_set_is_counted(anonymous, organization, stored):
    first = anonymous.get(get_path(organization.id), {"url": PAGE})
    second = anonymous.get(get_path(organization.id), {"url": PAGE})
    assert first.json()["requests"] != second.json()["requests"]
    assert first["ETag"] == second["ETag"]


def test_get_of_an_unknown_url_is_404_with_the_documented_message(anonymous, organization, stored):
    response = anonymous.get(get_path(organization.id), {"url": "https://shop.example/other"})
    assert response.status_code == 404
    assert response.json() == {"message": QUESTION_SET_NOT_FOUND}
    assert "ETag" not in response


def test_get_never_returns_another_organizations_set(anonymous, stored):
    other = OrganizationFactory()
    response = anonymous.get(get_path(other.id), {"url": PAGE})
    assert response.status_code == 404
    assert response.json() == {"message": QUESTION_SET_NOT_FOUND}


@pytest.mark.parametrize(
    "organization_id",
    [
        "00000000-0000-4000-8000-000000000000",  # well formed, unknown
        "not-a-uuid",
        "12345",
        "00000000000040008000000000000000",
    ],
)
def test_get_for_an_unknown_or_malformed_organization_is_404(anonymous, organization_id):
    response = anonymous.get(get_path(organization_id), {"url": PAGE})
    assert response.status_code == 404
    assert response.json() == {"message": ORGANIZATION_NOT_FOUND}
    # Even without a valid url: the organization is checked first.
    assert anonymous.get(get_path(organization_id)).status_code == 404


@pytest.mark.parametrize(
    ("query", "problem"),
    [
        ({}, "This field is required."),
        ({"url": ""}, "This field is required."),
        ({"url": "shop.example/products/x"}, INVALID_URL),
        ({"url": "/products/x"}, INVALID_URL),
        ({"url": "ftp://shop.example/x"}, INVALID_URL),
        ({"url": "javascript:alert(1)"}, INVALID_URL),
        ({"url": "https://shop.example/" + "x" * 3000}, INVALID_URL),
        ({"url": "https://shop example/x"}, INVALID_URL),
        ({"url": "https://shop.example:99999/x"}, INVALID_URL),
    ],
)
def test_get_with_a_missing_or_invalid_url_is_422(anonymous, organization, query, problem):
    response = anonymous.get(get_path(organization.id), query)
    assert response.status_code == 422
    assert response.json() == {"message": f"url: {problem}", "errors": {"url": [problem]}}


def test_get_only_counts_once_the_set_was_served(
    anonymous, organization, stored, django_assert_num_queries
):
    # The first request reads the set with its questions and origins (one SELECT) and counts
    # it; later ones only count it (one UPDATE ... RETURNING, which also tells whether the
    # set was edited meanwhile, and the day's usage UPDATE). Server workers buffer both.
    origin = {"HTTP_ORIGIN": "https://a.example"}
    anonymous.get(get_path(organization.id), {"url": PAGE}, **origin)  # creates the usage row
    with django_assert_num_queries(2):
        first = anonymous.get(get_path(organization.id), {"url": PAGE}, **origin)
    for _ in range(3):
        with django_assert_num_queries(2):
            response = anonymous.get(get_path(organization.id), {"url": PAGE}, **origin)
        assert response.json()["questions"] == first.json()["questions"]
        assert response["Access-Control-Allow-Origin"] == "*"


def test_a_set_whose_questions_were_all_deleted_is_returned_empty(anonymous, organization, stored):
    stored.questions.all().delete()
    response = anonymous.get(get_path(organization.id), {"url": PAGE})
    assert response.status_code == 200
    assert response.json()["questions"] == []


# --- POST (operation 7) ---------------------------------------------------------------------


def test_post_returns_the_stored_set_and_counts_it(anonymous, organization, stored):
    response = post(anonymous, url=PAGE + "?utm_medium=email", organizationId=str(organization.id))
    assert response.status_code == 200
    assert response.json()["id"] == str(stored.id)
    assert response.json()["requests"] == 1
    # The GET sees the same set and the next count.
    assert anonymous.get(get_path(organization.id), {"url": PAGE}).json()["requests"] == 2


def test_post_generates_stores_and_returns_a_set_for_a_catalog_product(anonymous, organization):
    product = ProductFactory(
        organization=organization,
        title="Trail Runner 2",
        url="https://shop.example/products/trail-runner-2",
        product_type="Shoes > Running",
        item_group_id="TR2",
        size="42",
        color="Blue",
    )
    ProductFactory(
        organization=organization,
        title="Trail Runner 2",
        url="https://shop.example/products/trail-runner-2?size=43",
        product_type="Shoes > Running",
        item_group_id="TR2",
        size="43",
        color="Red",
    )

    response = post(
        anonymous,
        url="https://SHOP.example/products/trail-runner-2/#top",
        organizationId=str(organization.id),
    )

    assert response.status_code == 200
    body = response.json()
    assert body["url"] == product.url
    assert body["productTitle"] == "Trail Runner 2"
    assert body["requests"] == 1
    texts = [question["text"] for question in body["questions"]]
    assert 3 <= len(texts) <= 6
    assert len(set(texts)) == len(texts)
    assert [question["rank"] for question in body["questions"]] == list(range(1, len(texts) + 1))
    assert any("Trail Runner 2" in text for text in texts)
    stored = PdpQuestionSet.objects.get(organization=organization, url=product.url)
    assert [q.text for q in stored.questions.order_by("rank")] == texts

    # Asking again returns the stored set, counted, not a new one.
    again = post(anonymous, url=product.url, organizationId=str(organization.id)).json()
    assert again["id"] == body["id"] and again["requests"] == 2
    assert PdpQuestionSet.objects.filter(organization=organization).count() == 1


def test_post_for_a_url_without_a_product_returns_null_and_stores_nothing(anonymous, organization):
    ProductFactory(organization=organization, url="https://shop.example/products/a")
    other = OrganizationFactory()
    ProductFactory(organization=other, url="https://shop.example/products/b")

    for url in ("https://shop.example/products/nothing", "https://shop.example/products/b"):
        response = post(anonymous, url=url, organizationId=str(organization.id))
        assert response.status_code == 200
        assert response.content == b"null"
        assert response["Content-Type"] == "application/json"
    assert not PdpQuestionSet.objects.exists()


def test_post_for_an_unknown_organization_is_404(anonymous):
    ProductFactory(url=PAGE)
    response = post(anonymous, url=PAGE, organizationId=str(uuid.uuid4()))
    assert response.status_code == 404
    assert response.json() == {"message": ORGANIZATION_NOT_FOUND}


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "url"),
        ({"organizationId": "ORG"}, "url"),
        ({"url": PAGE}, "organizationId"),
        ({"url": PAGE, "organizationId": None}, "organizationId"),
        ({"url": None, "organizationId": "00000000-0000-4000-8000-000000000000"}, "url"),
        ({"url": PAGE, "organizationId": "not-a-uuid"}, "organizationId"),
        ({"url": PAGE, "organizationId": 42}, "organizationId"),
        ({"url": "not a url", "organizationId": "00000000-0000-4000-8000-000000000000"}, "url"),
        ({"url": 42, "organizationId": "00000000-0000-4000-8000-000000000000"}, "url"),
        (
            {
                "url": ["https://a.example/"],
                "organizationId": "00000000-0000-4000-8000-000000000000",
            },
            "url",
        ),
    ],
)
def test_post_with_an_invalid_body_is_422(anonymous, body, field):
    response = post(anonymous, **body)
    assert response.status_code == 422
    assert field in response.json()["errors"]
    assert response.json()["message"].split(":")[0] in response.json()["errors"]


def test_post_with_a_body_that_is_not_an_object_is_422(anonymous):
    for body in (["x"], "x", 1):
        response = anonymous.post(POST_PATH, body, format="json")
        assert response.status_code == 422


def test_post_with_broken_json_is_400_and_another_media_type_415(anonymous):
    response = anonymous.post(POST_PATH, "{", content_type="application/json")
    assert response.status_code == 400
    response = anonymous.post(POST_PATH, "url=x", content_type="application/x-www-form-urlencoded")
    assert response.status_code == 415
    assert "message" in response.json()


def test_unknown_fields_are_ignored(anonymous, organization, stored):
    response = post(anonymous, url=PAGE, organizationId=str(organization.id), extra={"a": 1})
    assert response.status_code == 200


def test_wrong_methods_are_405_with_allow(anonymous, organization):
    response = anonymous.post(get_path(organization.id), {}, format="json")
    assert response.status_code == 405
    assert "GET" in response["Allow"]
    response = anonymous.get(POST_PATH)
    assert response.status_code == 405
    assert "POST" in response["Allow"]


# --- Public: a key sent is ignored ----------------------------------------------------------


@pytest.mark.parametrize(
    "headers",
    [
        {"HTTP_X_API_KEY": "sk_stag_not-a-real-key"},
        {"HTTP_AUTHORIZATION": "Bearer garbage"},
    ],
)
def test_a_key_sent_is_ignored(organization, stored, headers, tenant):
    client = APIClient()
    assert client.get(get_path(organization.id), {"url": PAGE}, **headers).status_code == 200
    response = client.post(
        POST_PATH, {"url": PAGE, "organizationId": str(organization.id)}, format="json", **headers
    )
    assert response.status_code == 200
    # A valid key of another organization gives no access to anything more either.
    response = tenant.client.get(get_path(tenant.organization.id), {"url": PAGE})
    assert response.status_code == 404


# --- OpenAPI --------------------------------------------------------------------------------


def test_both_operations_are_described_and_answers_match(anonymous, checker, organization, stored):
    get_op = checker.operation("GET", get_path(organization.id))
    post_op = checker.operation("POST", POST_PATH)
    assert get_op["summary"] == "Get PDP Question Set"
    assert post_op["summary"] == "PDP Question Set (body form)"
    assert get_op["security"] == [] and post_op["security"] == []  # public: no credentials
    parameters = {parameter["name"]: parameter for parameter in get_op["parameters"]}
    assert parameters["url"]["required"] and parameters["url"]["in"] == "query"
    assert parameters["organizationId"]["in"] == "path"
    schema = post_op["responses"]["200"]["content"]["application/json"]["schema"]
    assert schema["nullable"] is True

    cases = [
        ("GET", get_path(organization.id), anonymous.get(get_path(organization.id), {"url": PAGE})),
        (
            "GET",
            get_path(organization.id),
            anonymous.get(get_path(organization.id), {"url": PAGE + "x"}),
        ),
        ("GET", get_path(organization.id), anonymous.get(get_path(organization.id))),
        ("POST", POST_PATH, post(anonymous, url=PAGE, organizationId=str(organization.id))),
        ("POST", POST_PATH, post(anonymous, url=PAGE + "x", organizationId=str(organization.id))),
        ("POST", POST_PATH, post(anonymous, url=PAGE, organizationId=str(uuid.uuid4()))),
        ("POST", POST_PATH, post(anonymous, url="x")),
    ]
    assert [response.status_code for *_, response in cases] == [200, 404, 422, 200, 200, 404, 422]
    for method, path, response in cases:
        checker.validate(method, path, response.status_code, response.json())
    etag = cases[0][2]["ETag"]
    not_modified = anonymous.get(get_path(organization.id), {"url": PAGE}, HTTP_IF_NONE_MATCH=etag)
    checker.validate("GET", get_path(organization.id), not_modified.status_code, None)


def test_the_answer_is_json_whatever_the_client_accepts(anonymous, organization, stored):
    response = anonymous.get(get_path(organization.id), {"url": PAGE}, HTTP_ACCEPT="text/html")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert response.json()["id"] == str(stored.id)


def test_long_urls_with_tracking_parameters_find_the_set_every_time(
    anonymous, organization, stored
):
    # Over 512 characters: canonicalized every time, not remembered (knowledge/canonical.py).
    long_url = PAGE + "?" + "&".join(f"utm_{n}=campaign-{n:04d}" for n in range(40))
    assert len(long_url) > 512
    for _ in range(2):
        response = anonymous.get(get_path(organization.id), {"url": long_url})
        assert response.status_code == 200
        assert response.json()["id"] == str(stored.id)
