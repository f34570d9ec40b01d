"""PDP questions written by the language model when the `openai` engine is configured.

The PDP generator calls `questions_from_model` first and uses its own catalog generator when
this returns None: the engine is not configured for the organization, the model failed, or its
answer did not pass validation (3 to 6 distinct questions, docs/api.md#generated-questions).
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any

from django.conf import settings

from accounts.models import Chatbot, Organization
from knowledge.engines.openai.config import client_build, config_load, request_timeout
from knowledge.engines.openai.failures import PROVIDER_EXCEPTIONS, failure_from_exception
from knowledge.models import Product

logger = logging.getLogger(__name__)

MIN_QUESTIONS = 3
MAX_QUESTIONS = 6
MAX_QUESTION_CHARS = 200  # PdpQuestion.text holds 300; longer ones read badly as buttons
MIN_QUESTION_CHARS = 8

PROMPT = """\
You write the questions shown as buttons on a product page of an online shop. Given the \
product's data, write 3 to 6 short questions a shopper on this page would really ask, most \
useful first, each about this product (its sizes, colours, materials, fit, compatibility, \
battery, ingredients, dimensions, warranty, price, stock: whatever fits its category), in the \
language of the product's title. No duplicates, no numbering. Answer with a JSON array of \
strings only, e.g. ["Does it come in size L?", "Is it waterproof?", "Is it in stock?"]."""


def model_configured_for(organization: Organization) -> bool:
    """The deployment's engine is `openai`, or one of the organization's chatbots uses it."""
    if settings.ASSISTANT_ENGINE == "openai":
        return True
    return Chatbot.objects.filter(
        organization=organization, is_active=True, engine="openai"
    ).exists()


def product_facts(product: Product) -> dict[str, Any]:
    facts: dict[str, Any] = {
        "title": product.title,
        "brand": product.brand,
        "category": product.category,
        "description": " ".join(product.description.split())[:800],
        "price": f"{product.current_price} {product.currency}",
    }
    for name in ("color", "size", "material", "gender", "age_group"):
        if value := getattr(product, name):
            facts[name] = value
    if product.item_group_id:
        variants = Product.objects.filter(
            organization_id=product.organization_id, item_group_id=product.item_group_id
        ).values_list("size", "color")[:100]
        facts["sizes"] = sorted({size for size, _ in variants if size})
        facts["colors"] = sorted({color for _, color in variants if color})
    return {key: value for key, value in facts.items() if value not in ("", [], None)}


def questions_from_model(*, product: Product) -> list[str] | None:
    """3 to 6 validated questions from the model, or None (then use the catalog generator)."""
    if not model_configured_for(product.organization):
        return None
    config = config_load()
    try:
        completion = client_build(config).chat.completions.create(
            model=config.model,
            messages=[
                {"role": "system", "content": PROMPT},
                {"role": "user", "content": json.dumps(product_facts(product), ensure_ascii=False)},
            ],
            timeout=request_timeout(config.timeout),
        )
        content = (completion.choices[0].message.content or "") if completion.choices else ""
    except PROVIDER_EXCEPTIONS as exc:
        failure = failure_from_exception(exc, timeout=config.timeout)
        logger.warning(
            "language model failed to write PDP questions: %s",
            failure.description,
            extra={"failure": failure.kind, "model": config.model},
        )
        return None
    questions = questions_validate(content)
    if questions is None:
        logger.warning("language model wrote unusable PDP questions", extra={"model": config.model})
    return questions


def questions_validate(content: str) -> list[str] | None:
    """The questions of the model's answer (a JSON array, possibly fenced or wrapped in an
    object), cleaned and deduplicated; None unless 3 to 6 remain."""
    # From the first "[" to the last "]": what a search for `\[.*\]` finds, without its
    # quadratic retries on an answer of many "[" and no "]".
    start, end = content.find("["), content.rfind("]")
    if start < 0 or end < start:
        return None
    try:
        items = json.loads(content[start : end + 1])
    except ValueError:
        return None
    if not isinstance(items, list):
        return None
    questions: list[str] = []
    seen: set[str] = set()
    for item in items:
        if not isinstance(item, str):
            continue
        text = re.sub(r"^\s*(?:\d+[.)]|[-*•])\s*", "", " ".join(item.split()))
        key = re.sub(r"\W+", " ", text.lower()).strip()
        if not MIN_QUESTION_CHARS <= len(text) <= MAX_QUESTION_CHARS or not key or key in seen:
            continue
        if not text.endswith("?"):
            text = text.rstrip(".!") + "?"
        seen.add(key)
        questions.append(text)
    questions = questions[:MAX_QUESTIONS]
    return questions if len(questions) >= MIN_QUESTIONS else None
