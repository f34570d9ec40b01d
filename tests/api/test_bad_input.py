"""Bad input on every endpoint: each a clear 4xx in the documented shape.

Wrong JSON types in every body field, NUL characters, overlong values, huge paging numbers,
malformed ids, and text that looks like markup or SQL (stored and returned verbatim, shown
escaped in the admin). Through Django's test client; tests/api/test_bad_input_server.py sends
what only a real HTTP server sees (body sizes, chunked bodies, raw header bytes).
"""

from __future__ import annotations

import pytest
from django.conf import settings

from chats.models import IdempotencyRecord, Message
from tests.factories import ChatFactory
from tests.server import ROOT

pytestmark = pytest.mark.django_db

# An error body names the problem, never the machinery (docs/api.md#errors).
INTERNALS = (
    "Traceback",
    'File "',
    "site-packages",
    str(ROOT),  # the checkout's path, as a traceback or file name would show it
    "psycopg",
    "sqlite",
    "SELECT ",
    "INSERT ",
    "django.",
    "sk_stag_",
    "sk_prod_",
)
URL = "https://shop.example/p/1"
WRONG_TYPES = [0, 1.5, True, [], {}, ["x"], {"a": 1}]
HOSTILE_TEXT = "<script>alert('x')</script>'; DROP TABLE chats_message; --"


def assert_clean_error(response, status: int) -> dict:
    assert response.status_code == status, response.content[:300]
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert isinstance(body["message"], str) and body["message"]
    assert set(body) <= {"message", "errors"}
    text = response.content.decode()
    assert not [word for word in INTERNALS if word in text], text
    assert settings.SECRET_KEY not in text
    return body


@pytest.fixture
def chat(tenant):
    return ChatFactory(chatbot=tenant.chatbot)


def body_endpoints(tenant, chat) -> dict[str, tuple[str, dict, object]]:
    """Every body-taking operation: (path, a valid body, client)."""
    return {
        "create chat": ("/v1/chats", {"chatbotId": str(tenant.chatbot.id)}, tenant.client),
        "add message": (
            f"/v1/chats/{chat.id}/messages",
            {"message": "hello", "currentUrl": URL},
            tenant.client,
        ),
        "pdp body form": (
            "/v1/knowledge/pdp-questions/public/get-questions",
            {"url": URL, "organizationId": str(tenant.organization.id)},
            tenant.client,
        ),
    }


def test_wrong_json_type_in_every_field_is_422_naming_the_field(tenant, chat):
    for name, (path, valid, client) in body_endpoints(tenant, chat).items():
        fields = [*valid, "userId"] if name == "create chat" else list(valid)
        for field in fields:
            for wrong in WRONG_TYPES:
                response = client.post(path, {**valid, field: wrong}, format="json")
                body = assert_clean_error(response, 422)
                assert field in body["errors"], (name, field, wrong, body)
    assert not Message.objects.filter(chat=chat).exists()


def test_a_required_field_given_as_null_is_reported_as_missing(tenant, chat):
    # docs/api.md#json-bodies: a field given as JSON null counts as absent.
    for name, (path, valid, client) in body_endpoints(tenant, chat).items():
        for field in valid:
            response = client.post(path, {**valid, field: None}, format="json")
            body = assert_clean_error(response, 422)
            assert body["errors"] == {field: ["This field is required."]}, (name, body)


@pytest.mark.parametrize("document", [[], ["a"], "text", 7, None, True])
def test_body_that_is_not_an_object_is_422(tenant, chat, document):
    for path, _valid, client in body_endpoints(tenant, chat).values():
        response = client.post(path, data=document, format="json")
        assert_clean_error(response, 422)


def test_nul_characters_are_refused_everywhere(tenant, chat):
    org = tenant.organization.id
    client = tenant.client
    cases = [
        client.post("/v1/chats", {"chatbotId": "\x00"}, format="json"),
        client.post(
            "/v1/chats", {"chatbotId": str(tenant.chatbot.id), "userId": "\x00"}, format="json"
        ),
        client.post(
            f"/v1/chats/{chat.id}/messages", {"message": "a\x00b", "currentUrl": URL}, format="json"
        ),
        client.post(
            f"/v1/chats/{chat.id}/messages",
            {"message": "hi", "currentUrl": URL + "\x00"},
            format="json",
        ),
        client.post(
            f"/v1/chats/{chat.id}/messages?store=a%00b",
            {"message": "hi", "currentUrl": URL},
            format="json",
        ),
        client.get(f"/v1/chats/{chat.id}/messages?page=1%00"),
        client.get(f"/v1/chats/{chat.id}/messages/events?lastEventId=1%00"),
        client.get(f"/v1/knowledge/pdp-questions/{org}/public?url=https://shop.example/%00"),
        client.post(
            "/v1/knowledge/pdp-questions/public/get-questions",
            {"url": URL + "\x00", "organizationId": str(org)},
            format="json",
        ),
    ]
    for response in cases:
        assert_clean_error(response, 422)
    for path in (
        f"/v1/chats/{chat.id}%00",
        "/v1/chats/%00/messages",
        f"/v1/knowledge/pdp-questions/%00/public?url={URL}",
    ):
        assert_clean_error(client.get(path), 404)
    assert not Message.objects.filter(chat=chat).exists()


def test_nul_or_control_characters_in_the_idempotency_key_are_422(tenant, chat):
    # Gunicorn refuses these bytes in any header (see the server test); a proxy or another
    # server in front might not, so the API refuses them itself.
    for key in ("a\x00b", "a\x01b", "a\x7fb"):
        response = tenant.client.post(
            f"/v1/chats/{chat.id}/messages",
            {"message": "hi", "currentUrl": URL},
            format="json",
            HTTP_IDEMPOTENCY_KEY=key,
        )
        assert "Idempotency-Key" in assert_clean_error(response, 422)["errors"]
    assert not IdempotencyRecord.objects.exists()


def test_overlong_values_are_422(tenant, chat):
    client = tenant.client
    org = tenant.organization.id
    long = "x" * 10_000
    responses = [
        client.post("/v1/chats", {"chatbotId": long}, format="json"),
        client.post(
            f"/v1/chats/{chat.id}/messages",
            {"message": "m" * 4001, "currentUrl": URL},
            format="json",
        ),
        client.post(
            f"/v1/chats/{chat.id}/messages",
            {"message": "hi", "currentUrl": "https://shop.example/" + "p" * 2048},
            format="json",
        ),
        client.post(
            f"/v1/chats/{chat.id}/messages?store={long}",
            {"message": "hi", "currentUrl": URL},
            format="json",
        ),
        client.post(
            f"/v1/chats/{chat.id}/messages",
            {"message": "hi", "currentUrl": URL},
            format="json",
            HTTP_IDEMPOTENCY_KEY="k" * 10_000,
        ),
        client.get(f"/v1/chats/{chat.id}/messages?page={'9' * 5000}"),
        client.get(f"/v1/chats/{chat.id}/messages/events?lastEventId={'9' * 5000}"),
        client.get(f"/v1/knowledge/pdp-questions/{org}/public?url=https://shop.example/{long}"),
        client.post(
            "/v1/knowledge/pdp-questions/public/get-questions",
            {"url": f"https://shop.example/{long}", "organizationId": str(org)},
            format="json",
        ),
    ]
    for response in responses:
        assert_clean_error(response, 422)
    assert_clean_error(client.get(f"/v1/chats/{long}"), 404)
    assert not Message.objects.filter(chat=chat).exists()


@pytest.mark.parametrize(
    "query",
    [
        "page=0",
        "page=-1",
        f"page={2**31}",
        f"page={2**63}",
        f"page={10**40}",
        "page=1e3",
        "page=0x10",
        "page=",
        f"size={2**63}",
        "size=101",
        "size=0",
        "size=-5",
        f"page=1&size={10**40}",
        # int() reads these; the API's integers are plain digits
        "page=1_0",
        "page=1.0",
        "size=%2B5",
        "size=%205",
        "size=5%20",
        "size=%EF%BC%95",  # a full-width 5
        "page=%D9%A1",  # an Arabic-Indic 1
    ],
)
def test_huge_or_malformed_paging_numbers_are_422(tenant, chat, query):
    body = assert_clean_error(tenant.client.get(f"/v1/chats/{chat.id}/messages?{query}"), 422)
    assert set(body["errors"]) <= {"page", "size"}


def test_largest_page_number_is_an_empty_page(tenant, chat):
    response = tenant.client.get(f"/v1/chats/{chat.id}/messages?page={2**31 - 1}&size=100")
    assert response.status_code == 200
    assert response.json()["items"] == []


def test_leading_zeros_are_still_the_number(tenant, chat):
    response = tenant.client.get(f"/v1/chats/{chat.id}/messages?page=0001&size=007")
    assert response.status_code == 200
    assert (response.json()["currentPage"], response.json()["size"]) == (1, 7)


@pytest.mark.parametrize(
    "chat_id",
    [
        "not-a-uuid",
        "1",
        "' OR '1'='1",
        "..%2F..%2Fetc%2Fpasswd",
        "%E2%80%AE",
        "00000000-0000-0000-0000-000000000000",
        "{8d8ac610-566d-4ef0-9c22-186b2a5ed793}",
        "8d8ac610566d4ef09c22186b2a5ed793",
    ],
)
def test_malformed_ids_in_paths_are_404(tenant, chat_id):
    client = tenant.client
    for path in (
        f"/v1/chats/{chat_id}",
        f"/v1/chats/{chat_id}/messages",
        f"/v1/chats/{chat_id}/messages/events",
        f"/v1/knowledge/pdp-questions/{chat_id}/public?url={URL}",
    ):
        assert_clean_error(client.get(path), 404)
    response = client.post(
        f"/v1/chats/{chat_id}/messages", {"message": "hi", "currentUrl": URL}, format="json"
    )
    assert_clean_error(response, 404)


@pytest.mark.parametrize(
    "spelling",
    ["{{{}}}", "urn:uuid:{}", "{}%0A", "%20{}"],
)
def test_other_spellings_of_a_real_chat_id_are_404(tenant, chat, spelling):
    chat_id = spelling.format(chat.id)
    hex_only = chat.id.hex
    for path in (
        f"/v1/chats/{chat_id}",
        f"/v1/chats/{chat_id}/messages",
        f"/v1/chats/{hex_only}",
        f"/v1/chats/{hex_only}/messages/events",
        f"/v1/knowledge/pdp-questions/{spelling.format(tenant.organization.id)}/public?url={URL}",
    ):
        assert_clean_error(tenant.client.get(path), 404)
    assert tenant.client.get(f"/v1/chats/{chat.id}").status_code == 200


@pytest.mark.parametrize(
    "value", ["not-a-uuid", "1", "' OR 1=1 --", "8d8ac610566d4ef09c22186b2a5ed793"]
)
def test_malformed_ids_in_bodies_are_422(tenant, value):
    client = tenant.client
    for path, body in (
        ("/v1/chats", {"chatbotId": value}),
        ("/v1/chats", {"chatbotId": str(tenant.chatbot.id), "userId": value}),
        ("/v1/knowledge/pdp-questions/public/get-questions", {"url": URL, "organizationId": value}),
    ):
        assert_clean_error(client.post(path, body, format="json"), 422)


def test_markup_and_sql_are_stored_and_returned_verbatim_and_escaped_in_the_admin(
    tenant, superuser_client
):
    # Given a chat whose shopper writes markup and SQL
    chat_id = tenant.client.post(
        "/v1/chats", {"chatbotId": str(tenant.chatbot.id)}, format="json"
    ).json()["id"]
    sent = tenant.client.post(
        f"/v1/chats/{chat_id}/messages",
        {"message": HOSTILE_TEXT, "currentUrl": URL + "?q=<b>x</b>"},
        format="json",
    )
    assert sent.status_code == 201

    # Then the API gives the text back exactly as written, and nothing was dropped
    history = tenant.client.get(f"/v1/chats/{chat_id}/messages").json()["items"]
    assert [m["content"] for m in history if m["type"] == "user"] == [HOSTILE_TEXT]
    assert Message.objects.filter(chat_id=chat_id).count() == 2

    # And support's transcript in the admin shows it as text, never as markup
    chat_pk = Message.objects.get(chat_id=chat_id, type="user").chat_id
    page = superuser_client.get(f"/admin/chats/chat/{chat_pk}/change/").content.decode()
    assert "<script>alert(" not in page
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;&#x27;; DROP TABLE" in page
    assert "<b>x</b>" not in page
