"""Floors: the least an endpoint must do, as bare views, to show how far a target is reachable.

A ratio to the baseline says how much more than a bare Django view an endpoint costs; it does
not say how much of that any implementation must spend. A floor is a view with no middleware,
no authentication and no validation that does only the work the contract cannot do without:

- `floor_count`: counts the request in Redis, as every rate-limited request must (contract §7:
  limits hold across workers), through the production counter (assistant_api/throttling.py).
- `floor_chat`: that count, plus storing the chat's row (one INSERT, committed).
- `floor_message`: that count, plus storing the user's message, one ranked full-text search of
  the catalog, and storing the reply with its products (three statements, each committed).

An endpoint whose target lies above its floor's ratio cannot meet it on this machine with any
code that sends one statement per write: only sharing statements between requests could.
Served by the no-middleware handler of bench/baseline_wsgi.py, like the baseline.
"""

from __future__ import annotations

import re
import uuid

import orjson
from django.db import connection
from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_POST

from assistant_api.throttling import public_rate_limit

_WORD = re.compile(r"[a-z]{3,}")

_SEARCH_SQL = """
SELECT id, title, price, currency, url, image_url
FROM knowledge_product
WHERE organization_id = %(organization_id)s AND search_vector @@ websearch_to_tsquery(
    'catalog_english', %(words)s)
ORDER BY ts_rank(search_vector, websearch_to_tsquery('catalog_english', %(words)s)) DESC, id
LIMIT 5
"""


@require_GET
def floor_count(request: HttpRequest) -> HttpResponse:
    public_rate_limit(request)
    return _json({"counted": True})


@csrf_exempt
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
        cursor.execute(
            "INSERT INTO chats_chat (id, organization_id, chatbot_id, user_id, created_at) "
            "VALUES (%s, %s, %s, %s, %s)",
            list(chat.values()),
        )
    return _json(chat, status=201)


@csrf_exempt
@require_POST
def floor_message(request: HttpRequest) -> HttpResponse:
    body = orjson.loads(request.body)
    public_rate_limit(request)
    now = timezone.now()
    words = " or ".join(_WORD.findall(body["message"].lower())) or "gift"
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO chats_message (uuid, chat_id, type, content, current_url, store_code, "
            "created_at) VALUES (%s, %s, 'user', %s, %s, '', %s)",
            [uuid.uuid4(), body["chatId"], body["message"], body["currentUrl"], now],
        )
        cursor.execute(_SEARCH_SQL, {"organization_id": body["organizationId"], "words": words})
        products = [
            {
                "id": str(row[0]),
                "title": row[1],
                "price": f"{row[2]} {row[3]}",
                "url": row[4],
                "imageUrl": row[5],
            }
            for row in cursor.fetchall()
        ]
        reply_id, content = uuid.uuid4(), f"Here is what I found for {words}."
        cursor.execute(
            "INSERT INTO chats_message (uuid, chat_id, type, content, products, current_url, "
            "store_code, created_at) VALUES (%s, %s, 'assistant', %s, %s::jsonb, '', '', %s)",
            [reply_id, body["chatId"], content, orjson.dumps(products).decode(), now],
        )
    return _json({"id": reply_id, "content": content, "products": products}, status=201)


def _json(body: dict, *, status: int = 200) -> HttpResponse:
    return HttpResponse(orjson.dumps(body), status=status, content_type="application/json")
