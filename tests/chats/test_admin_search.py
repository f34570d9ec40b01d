"""Support's transcript search: by user id, chatbot, date range, words of the conversation,
failed replies and down-rated replies, alone and together."""

from __future__ import annotations

import datetime as dt

import pytest

from chats.events import EventPublisher
from chats.models import Chat, Feedback
from tests.factories import ChatbotFactory, ChatFactory, MessageFactory

pytestmark = pytest.mark.django_db
CHATS = "/admin/chats/chat/"


def listed(client, **query) -> set[str]:
    response = client.get(CHATS, query)
    assert response.status_code == 200
    page = response.content.decode()
    return {str(chat.id) for chat in Chat.objects.all() if f"{chat.id}</a>" in page}


def day(n: int) -> dt.datetime:
    return dt.datetime(2026, 3, n, 12, 0, tzinfo=dt.UTC)


@pytest.fixture
def chats(tenant):
    other_bot = ChatbotFactory(organization=tenant.organization, name="Outlet bot")
    trail = ChatFactory(chatbot=tenant.chatbot, created_at=day(1))
    MessageFactory(chat=trail, type="user", content="Do you have TRAIL shoes?")
    MessageFactory(chat=trail, type="answer", content="Yes, two pairs of running shoes.")
    failed = ChatFactory(chatbot=tenant.chatbot, created_at=day(5))
    MessageFactory(chat=failed, type="user", content="Waterproof jacket please")
    EventPublisher(chat_id=failed.id).failed("The assistant could not complete the response")
    # A tool failing is not a failed reply.
    EventPublisher(chat_id=trail.id).tool_failed("get_product", {"gtin": "1"}, "no product")
    rated = ChatFactory(chatbot=other_bot, created_at=day(9))
    MessageFactory(chat=rated, type="user", content="Cheap trail running shoes")
    reply = MessageFactory(chat=rated, type="answer", content="Here is one.")
    Feedback.objects.create(message=reply, chat=rated, rating="down", reason="wrong_products")
    liked = ChatFactory(chatbot=other_bot, created_at=day(9))
    liked_reply = MessageFactory(chat=liked, type="answer", content="A mug.")
    Feedback.objects.create(message=liked_reply, chat=liked, rating="up")
    return {"trail": trail, "failed": failed, "rated": rated, "liked": liked, "bot": other_bot}


def ids(*chats) -> set[str]:
    return {str(chat.id) for chat in chats}


def test_search_by_words_of_the_conversation(support_client, chats):
    assert listed(support_client, q="trail") == ids(chats["trail"], chats["rated"])
    # Every word, each anywhere in the chat (question or reply), any case
    assert listed(support_client, q="trail pairs") == ids(chats["trail"])
    assert listed(support_client, q="100% nothing_like_this") == set()


def test_search_by_user_id_and_chat_id(support_client, chats):
    assert listed(support_client, q=str(chats["failed"].user_id)) == ids(chats["failed"])
    assert listed(support_client, q=str(chats["rated"].id)) == ids(chats["rated"])


def test_filter_by_chatbot(support_client, chats):
    query = {"chatbot__id__exact": chats["bot"].pk}
    assert listed(support_client, **query) == ids(chats["rated"], chats["liked"])


def test_filter_by_date_range_includes_both_days(support_client, chats):
    assert listed(support_client, started_from="2026-03-05", started_to="2026-03-09") == ids(
        chats["failed"], chats["rated"], chats["liked"]
    )
    assert listed(support_client, started_to="2026-03-04") == ids(chats["trail"])
    # A date that does not parse is ignored, not an error
    assert len(listed(support_client, started_from="March")) == 4


def test_filter_by_failed_and_by_rated_replies(support_client, chats):
    assert listed(support_client, replies="failed") == ids(chats["failed"])
    assert listed(support_client, replies="down") == ids(chats["rated"])
    assert listed(support_client, replies="up") == ids(chats["liked"])


def test_filters_and_words_combine(support_client, chats):
    assert listed(support_client, q="trail", replies="down") == ids(chats["rated"])
    assert listed(support_client, q="trail", started_to="2026-03-02") == ids(chats["trail"])
    page = support_client.get(
        CHATS, {"q": "trail", "started_to": "2026-03-02", "replies": "down"}
    ).content
    # The date form keeps the search and the other filters when applied again
    assert b'name="q" value="trail"' in page
    assert b'name="replies" value="down"' in page


def test_list_query_count_stays_flat(support_client, chats, django_assert_max_num_queries):
    for _ in range(20):
        chat = ChatFactory(chatbot=chats["bot"])
        MessageFactory(chat=chat, content="trail again")
    support_client.get(CHATS)
    with django_assert_max_num_queries(12):
        support_client.get(CHATS, {"q": "trail", "replies": "down", "started_from": "2026-01-01"})


@pytest.mark.parametrize("day", ["9999-12-31", "0001-01-01", "2026-02-30", "x" * 500])
def test_dates_out_of_range_are_ignored_not_an_error(support_client, chats, day):
    assert len(listed(support_client, started_from=day, started_to=day)) == 4


@pytest.mark.parametrize("term", ["trail\x00", "\x00", "%_%", "x" * 5000, "a b c d e f g h"])
def test_odd_search_terms_are_answered(support_client, chats, term):
    assert support_client.get(CHATS, {"q": term}).status_code == 200
