"""PDP questions written by the model when the `openai` engine is configured,
through the public get-questions endpoint (docs/api.md#generated-questions), validated, with the
catalog generator
as fallback."""

from __future__ import annotations

import json
import logging
import time

import pytest
from rest_framework.test import APIClient

from tests.fake_openai import Step, error, text
from tests.knowledge.openai_helpers import PAGE, PROVIDER_KEY, provider, shop_build

pytestmark = pytest.mark.django_db

QUESTIONS = [
    "Does the Trail Runner 2 come in size 43?",
    "Is it good for muddy trails?",
    "How much does it weigh?",
    "Is it waterproof?",
]


@pytest.fixture
def fake_llm(settings):
    yield from provider(settings)


@pytest.fixture
def shop(tenant):
    return shop_build(tenant)


def get_questions(shop) -> list[str]:
    response = APIClient().post(
        "/v1/knowledge/pdp-questions/public/get-questions",
        {"url": PAGE, "organizationId": str(shop.tenant.organization.id)},
        format="json",
    )
    assert response.status_code == 200, response.content
    questions = response.json()["questions"]
    assert [q["rank"] for q in questions] == list(range(1, len(questions) + 1))
    return [q["text"] for q in questions]


def test_the_model_writes_the_questions(fake_llm, shop):
    fake_llm.add(text("```json\n", json.dumps(QUESTIONS), "\n```"))

    assert get_questions(shop) == QUESTIONS

    request = fake_llm.requests[0].body
    assert not request.get("stream")
    facts = json.loads(request["messages"][-1]["content"])
    assert facts["title"] == "Trail Runner 2" and facts["brand"] == "Peakline"


def test_model_questions_are_cleaned_deduplicated_and_capped_at_six(fake_llm, shop):
    answer = [
        "1. Does it run small",
        "Does it run small?",
        "  Is   it vegan?  ",
        "- What is the return policy?",
        42,
        "Ok?",  # too short to be a question
        "Is it washable?",
        "Does it have a warranty?",
        "Is it on sale?",
        "Is it in stock in Berlin?",
    ]
    fake_llm.add(text(json.dumps({"questions": answer})))

    assert get_questions(shop) == [
        "Does it run small?",
        "Is it vegan?",
        "What is the return policy?",
        "Is it washable?",
        "Does it have a warranty?",
        "Is it on sale?",
    ]


@pytest.mark.parametrize(
    "step",
    [
        text(json.dumps(["Is it blue?", "Is it blue?", "Is it big?"])),  # 2 distinct
        text("Here are some questions: what size? which colour?"),  # no JSON
        error(500),
        error(401, f"bad key {PROVIDER_KEY}"),
        Step(text=["[]"], stall_before=5),  # timeout
    ],
    ids=["too-few", "not-json", "http-500", "http-401", "timeout"],
)
def test_unusable_model_answers_fall_back_to_the_catalog_generator(
    step, fake_llm, shop, settings, caplog
):
    settings.OPENAI_TIMEOUT_SECONDS = 0.5
    fake_llm.add(step)
    caplog.set_level(logging.DEBUG)

    questions = get_questions(shop)

    assert 3 <= len(questions) <= 6
    assert len({q.lower() for q in questions}) == len(questions)
    assert len(fake_llm.requests) == 1
    assert PROVIDER_KEY not in caplog.text


def test_catalog_generator_when_the_openai_engine_is_not_configured(fake_llm, shop, settings):
    shop.tenant.chatbot.engine = ""
    shop.tenant.chatbot.save()
    settings.ASSISTANT_ENGINE = "catalog"

    questions = get_questions(shop)

    assert 3 <= len(questions) <= 6
    assert fake_llm.requests == []


def test_deployment_setting_alone_selects_the_model(fake_llm, shop, settings):
    shop.tenant.chatbot.engine = ""
    shop.tenant.chatbot.save()
    settings.ASSISTANT_ENGINE = "openai"
    fake_llm.add(text(json.dumps(QUESTIONS)))

    assert get_questions(shop) == QUESTIONS


def test_a_model_answer_of_brackets_falls_back_in_bounded_time(fake_llm, shop):
    # Given the model answers 200,000 "[" and no "]" (a search for `\[.*\]` retried from
    # each "[", some 6 s of quadratic work)
    fake_llm.add(text("[" * 200_000))

    # When the questions are asked for
    started = time.perf_counter()
    questions = get_questions(shop)

    # Then the catalog generator's come back, at once
    assert time.perf_counter() - started < 2
    assert 3 <= len(questions) <= 6
