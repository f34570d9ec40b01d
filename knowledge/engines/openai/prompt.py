"""The messages sent to the model: system prompt, page context, trimmed conversation."""

from __future__ import annotations

import json
from typing import Any

from knowledge.engines.base import PastMessage, PastMessageType, ReplyRequest

DEFAULT_SYSTEM_PROMPT = """\
You are the shopping assistant of an online shop. Help the shopper find and choose products \
from the shop's catalog, and answer questions about the product on the page they are on.

Rules:
- Only talk about products returned by your tools. Never invent a product, a price, a \
discount, a size, a colour or a stock level: use the tools and quote their results.
- Use search_products to find products, get_product for details, compare_products to compare, \
check_availability for stock (in the shopper's store when one is given).
- Answer in the shopper's language, in a few friendly, concrete sentences. Name the products \
you recommend and say why they fit. Do not paste URLs or JSON into your sentences.
- For greetings, thanks or questions outside the shop, answer briefly and recommend nothing.
"""

# Always appended, even to an operator's own prompt: the engine depends on it.
ANSWER_FORMAT = """\
Format: after your answer, end with a fenced block exactly like this, and nothing after it:
```json
{"products": ["<gtin>", ...], "suggestions": ["<follow-up>", ...]}
```
"products": the GTINs of the products you recommend, best first, copied from tool results \
of this answer (call get_product again for a product from earlier in the conversation; an \
empty list when you recommend none). "suggestions": 2 to 4 short follow-up messages the \
shopper could send next, written as the shopper would write them, that this shop can answer.
"""

# Earlier products are named in the history so "the second one" can be resolved.
PRODUCTS_NOTE = "[Products shown, in order: {}]"


def system_prompt(request: ReplyRequest) -> str:
    prompt = request.chatbot.system_prompt.strip() or DEFAULT_SYSTEM_PROMPT
    return f"{prompt.strip()}\n\n{ANSWER_FORMAT}"


def context_prompt(request: ReplyRequest, page_context: dict[str, Any] | None) -> str:
    """The page the shopper is on and their store, as the tools see them."""
    lines = [f"The shopper is on this page: {request.current_url}"]
    if request.store is not None:
        lines.append(
            f"The shopper's store: {request.store.name or request.store.code} "
            f"(code {request.store.code}); give availability for that store."
        )
    if page_context:
        lines.append(
            "get_page_context for that page returned: "
            + json.dumps(page_context, ensure_ascii=False, default=str)
        )
    return "\n".join(lines)


def history_message(message: PastMessage) -> dict[str, str] | None:
    if message.type == PastMessageType.USER:
        return {"role": "user", "content": message.content}
    if message.type in (PastMessageType.ANSWER, PastMessageType.ASSISTANT):
        content = message.content
        if message.products:
            names = "; ".join(
                f"{index}. {p.get('gtin')} {p.get('brand', '')} {p.get('designation', '')}".strip()
                for index, p in enumerate(message.products, start=1)
                if isinstance(p, dict)
            )
            content = f"{content}\n{PRODUCTS_NOTE.format(names)}"
        return {"role": "assistant", "content": content}
    return None


def history_trim(messages: list[dict[str, str]], *, budget: int) -> list[dict[str, str]]:
    """The newest messages whose text fits in `budget` characters, oldest first.

    A conversation must not start with an assistant turn for some chat templates (vLLM,
    Ollama), so a leading assistant message left by the cut is dropped too.
    """
    kept: list[dict[str, str]] = []
    used = 0
    for message in reversed(messages):
        used += len(message["content"])
        if used > budget:
            break
        kept.append(message)
    kept.reverse()
    while kept and kept[0]["role"] != "user":
        kept.pop(0)
    return kept


def messages_build(
    request: ReplyRequest, *, page_context: dict[str, Any] | None, history_chars: int
) -> list[dict[str, Any]]:
    """The whole prompt of the first model round."""
    history = [m for m in map(history_message, request.history) if m is not None]
    return [
        # One system message: several are refused by some local models' chat templates.
        {
            "role": "system",
            "content": f"{system_prompt(request)}\n{context_prompt(request, page_context)}",
        },
        *history_trim(history, budget=history_chars),
        {"role": "user", "content": request.message},
    ]
