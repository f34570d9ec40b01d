"""Floors: bare views doing part of the work every implementation of an endpoint must do, to
show how far its target is reachable.

A ratio to the baseline says how much more than a bare Django view an endpoint costs; it does
not say how much of that any implementation must spend. A floor is a view with no middleware,
no authentication and no validation that does only work the API cannot do without, each
request's writes in one statement:

- `floor_count`: counts the request in Redis, as every rate-limited request must
  (docs/api.md#rate-limits: limits hold across workers), through the production counter
  (assistant_api/throttling.py).
- `floor_chat`: that count, plus storing the chat's row. Left out: the active chatbot check,
  the greeting and the day's usage count.
- `floor_message`: that count, plus one statement storing the user's message, ranking the
  catalog by full-text search and storing the reply with its five best products. Left out: the
  chat's ownership check, the quota, the history the assistant reads, the events, and a product
  page question's look-up by URL (here every message searches).

Since a floor leaves work out, it is faster than any real endpoint can be: an endpoint whose
target lies above its floor's ratio cannot meet it on this machine, unless requests share
statements. Served by the no-middleware handler of bench/baseline_wsgi.py, like the baseline.
"""

from __future__ import annotations

import re
import uuid

import orjson
from django.db import connection
from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST

from assistant_api.throttling import public_rate_limit

_WORD = re.compile(r"[a-z]{3,}")

_CHAT_SQL = """
INSERT INTO chats_chat (id, organization_id, chatbot_id, user_id, created_at)
VALUES (%s, %s, %s, %s, %s)
"""

# Parts of one statement see each other's rows only through RETURNING; the reply needs none.
_MESSAGE_SQL = """
WITH question AS (
    INSERT INTO chats_message (uuid, chat_id, type, content, current_url, store_code, created_at)
    VALUES (%(question_id)s, %(chat_id)s, 'user', %(message)s, %(current_url)s, '', %(now)s)
), found AS (
    SELECT id, title, price, currency, url, image_url,
        ts_rank(search_vector, websearch_to_tsquery('catalog_english', %(words)s)) AS rank
    FROM knowledge_product
    WHERE organization_id = %(organization_id)s
        AND search_vector @@ websearch_to_tsquery('catalog_english', %(words)s)
    ORDER BY rank DESC, id
    LIMIT 5
), reply AS (
    INSERT INTO chats_message
        (uuid, chat_id, type, content, products, current_url, store_code, created_at)
    SELECT %(reply_id)s, %(chat_id)s, 'answer', %(content)s, coalesce(jsonb_agg(jsonb_build_object(
        'id', id::text, 'title', title, 'price', price::text || ' ' || currency, 'url', url,
        'imageUrl', image_url) ORDER BY rank DESC, id), '[]'), '', '', %(now)s
    FROM found
    RETURNING products
)
SELECT products FROM reply
"""


@require_GET
def floor_count(request: HttpRequest) -> HttpResponse:
    public_rate_limit(request)
    return _json({"counted": True})


@require_POST
def floor_chat(request: HttpRequest) -> HttpResponse:
    body = orjson.loads(request.body)
    public_rate_limit(request)
    chat = {
        "id": uuid.uuid4(),
        "organizationId": body["organizationId"],
        "chatbotId": body["chatbotId"],
        "userId": uuid.uuid4(),
        "createdAt": timezone.now(),
    }
    with connection.cursor() as cursor:
        cursor.execute(_CHAT_SQL, list(chat.values()))
    return _json(chat, status=201)


@require_POST
def floor_message(request: HttpRequest) -> HttpResponse:
    body = orjson.loads(request.body)
    public_rate_limit(request)
    words = " or ".join(_WORD.findall(body["message"].lower()))
    reply_id, content = uuid.uuid4(), f"Here is what I found for {words}."
    with connection.cursor() as cursor:
        cursor.execute(
            _MESSAGE_SQL,
            {
                "question_id": uuid.uuid4(),
                "chat_id": body["chatId"],
                "message": body["message"],
                "current_url": body["currentUrl"],
                "now": timezone.now(),
                "words": words,
                "organization_id": body["organizationId"],
                "reply_id": reply_id,
                "content": content,
            },
        )
        (products,) = cursor.fetchone()
    return _json({"id": reply_id, "content": content, "products": products}, status=201)


def _json(body: dict, *, status: int = 200) -> HttpResponse:
    return HttpResponse(orjson.dumps(body), status=status, content_type="application/json")
