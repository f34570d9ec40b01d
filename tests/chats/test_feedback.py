"""Answer feedback: PUT and DELETE .../messages/{messageId}/feedback, and `feedback` on each
reply of the history (docs/api.md "Answer feedback")."""

from __future__ import annotations

import uuid

import pytest
from rest_framework.test import APIClient

from chats.feedback import MESSAGE_NOT_FOUND, NOT_AN_ANSWER
from chats.models import Feedback
from chats.serializers import REASON_WITH_UP
from tests.factories import ChatFactory, MessageFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def chat(tenant):
    return ChatFactory(chatbot=tenant.chatbot)


@pytest.fixture
def answer(chat):
    MessageFactory(chat=chat, type="user", content="Trail shoes?")
    return MessageFactory(chat=chat, type="answer", content="Here are two.")


def url(chat, message) -> str:
    message_id = message if isinstance(message, str) else message.uuid
    return f"/v1/chats/{chat.id}/messages/{message_id}/feedback"


def history_items(tenant, chat) -> list[dict]:
    response = tenant.client.get(f"/v1/chats/{chat.id}/messages")
    assert response.status_code == 200
    return response.json()["items"]


def test_a_down_rating_with_reason_and_comment_is_stored_and_answered(tenant, chat, answer):
    body = {"rating": "down", "reason": "wrong_products", "comment": "I asked for trail shoes"}

    response = tenant.client.put(url(chat, answer), body, format="json")

    assert response.status_code == 200
    stored = response.json()
    assert {k: stored[k] for k in ("messageId", "rating", "reason", "comment")} == {
        "messageId": str(answer.uuid),
        "rating": "down",
        "reason": "wrong_products",
        "comment": "I asked for trail shoes",
    }
    assert stored["updatedAt"].endswith("Z")
    assert Feedback.objects.get(message=answer).chat_id == chat.id


# Committed, so that with REDIS_URL the history cache hears of the change (on commit).
@pytest.mark.django_db(transaction=True)
def test_sending_again_replaces_it_and_history_shows_it_on_the_reply(tenant, chat, answer):
    # Given a first rating, and the history read (so a cache holds the page)
    tenant.client.put(url(chat, answer), {"rating": "down", "reason": "other"}, format="json")
    assert history_items(tenant, chat)[1]["feedback"]["rating"] == "down"

    # When the shopper changes their mind
    response = tenant.client.put(url(chat, answer), {"rating": "up"}, format="json")

    # Then one feedback, the new one, in the answer and in the history at once
    assert response.json()["rating"] == "up" and response.json()["reason"] is None
    assert Feedback.objects.count() == 1
    user, reply = history_items(tenant, chat)
    assert "feedback" not in user  # only replies carry it
    assert reply["feedback"] == {**response.json()}


# Committed, so that with REDIS_URL the history cache hears of the change (on commit).
@pytest.mark.django_db(transaction=True)
def test_delete_removes_it_and_history_shows_null(tenant, chat, answer):
    tenant.client.put(url(chat, answer), {"rating": "up"}, format="json")
    assert history_items(tenant, chat)[1]["feedback"] is not None

    response = tenant.client.delete(url(chat, answer))

    assert response.status_code == 204 and response.content == b""
    assert not Feedback.objects.exists()
    assert history_items(tenant, chat)[1]["feedback"] is None
    # A retried DELETE answers the same.
    assert tenant.client.delete(url(chat, answer)).status_code == 204


def test_replies_without_feedback_have_null_in_the_history(tenant, chat, answer):
    assert history_items(tenant, chat)[1]["feedback"] is None


@pytest.mark.parametrize("message_type", ["user", "assistant"])
def test_only_answers_take_feedback(tenant, chat, message_type):
    message = MessageFactory(chat=chat, type=message_type)

    for response in (
        tenant.client.put(url(chat, message), {"rating": "up"}, format="json"),
        tenant.client.delete(url(chat, message)),
    ):
        assert response.status_code == 422
        assert response.json() == {
            "message": NOT_AN_ANSWER,
            "errors": {"messageId": [NOT_AN_ANSWER]},
        }
    assert not Feedback.objects.exists()


def test_unknown_chat_or_message_is_404(tenant, other_tenant, chat, answer):
    foreign_chat = ChatFactory(chatbot=other_tenant.chatbot)
    foreign_answer = MessageFactory(chat=foreign_chat, type="answer")
    cases = [
        (f"/v1/chats/{uuid.uuid4()}/messages/{answer.uuid}/feedback", "Chat not found"),
        (f"/v1/chats/not-a-uuid/messages/{answer.uuid}/feedback", "Chat not found"),
        (url(foreign_chat, foreign_answer), "Chat not found"),  # another organization's
        (url(chat, str(uuid.uuid4())), MESSAGE_NOT_FOUND),
        (url(chat, "42"), MESSAGE_NOT_FOUND),
        (url(chat, foreign_answer), MESSAGE_NOT_FOUND),  # a message of another chat
    ]
    for path, message in cases:
        for response in (
            tenant.client.put(path, {"rating": "up"}, format="json"),
            tenant.client.delete(path),
        ):
            assert response.status_code == 404, path
            assert response.json() == {"message": message}
    assert not Feedback.objects.exists()


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "rating"),
        ({"rating": "sideways"}, "rating"),
        ({"rating": 1}, "rating"),
        ({"rating": "down", "reason": "too_expensive"}, "reason"),
        ({"rating": "down", "comment": "x" * 1001}, "comment"),
        ({"rating": "down", "comment": 5}, "comment"),
        ({"rating": "up", "reason": "other"}, "reason"),
    ],
)
def test_bad_bodies_are_422_naming_the_field_and_store_nothing(tenant, chat, answer, body, field):
    response = tenant.client.put(url(chat, answer), body, format="json")

    assert response.status_code == 422
    assert field in response.json()["errors"]
    assert not Feedback.objects.exists()


def test_a_reason_with_up_says_why(tenant, chat, answer):
    response = tenant.client.put(
        url(chat, answer), {"rating": "up", "reason": "other"}, format="json"
    )
    assert response.json()["errors"] == {"reason": [REASON_WITH_UP]}


def test_a_comment_of_exactly_1000_characters_is_kept(tenant, chat, answer):
    comment = "é" * 1000
    response = tenant.client.put(
        url(chat, answer), {"rating": "down", "comment": comment}, format="json"
    )
    assert response.status_code == 200 and response.json()["comment"] == comment


def test_without_a_key_is_401(anonymous, chat, answer):
    assert anonymous.put(url(chat, answer), {"rating": "up"}, format="json").status_code == 401
    assert anonymous.delete(url(chat, answer)).status_code == 401


def test_history_with_feedback_costs_no_extra_query(tenant, chat, django_assert_num_queries):
    answers = [MessageFactory(chat=chat, type="answer") for _ in range(30)]
    for reply in answers[::2]:
        tenant.client.put(url(chat, reply), {"rating": "down", "reason": "other"}, format="json")
    tenant.client.get(f"/v1/chats/{chat.id}/messages")

    with django_assert_num_queries(3):  # key, chat, page with its total and feedback (a join)
        items = tenant.client.get(f"/v1/chats/{chat.id}/messages", {"size": 30}).json()["items"]

    rated = [item for item in items if item["feedback"] is not None]
    assert [item["id"] for item in rated] == [str(reply.uuid) for reply in answers[::2]]


def test_the_chats_client_token_rates_its_replies_and_no_others(tenant, chat, answer):
    # Given a browser holding a client token of this chat (minted with the shop's API key)
    token = tenant.client.post(f"/v1/chats/{chat.id}/client-tokens", format="json").json()["token"]
    browser = APIClient()
    browser.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    other_chat = ChatFactory(chatbot=tenant.chatbot)
    other_answer = MessageFactory(chat=other_chat, type="answer", content="Others.")

    # When it rates a reply of its chat, then removes the rating, then tries another chat's
    rated = browser.put(url(chat, answer), {"rating": "up"}, format="json")
    removed = browser.delete(url(chat, answer))
    elsewhere = browser.put(url(other_chat, other_answer), {"rating": "up"}, format="json")

    # Then its own chat's feedback works and the other chat's is refused
    assert rated.status_code == 200, rated.content
    assert rated.json()["rating"] == "up"
    assert removed.status_code == 204
    assert elsewhere.status_code == 403
    assert elsewhere.json() == {"message": "This token is not valid for this request"}
    assert not Feedback.objects.filter(message=other_answer).exists()
