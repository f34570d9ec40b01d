"""The admin pages of the PDP question sets: edit, reorder, delete, regenerate; served as edited."""

from __future__ import annotations

import pytest

from knowledge.admin_questions import DUPLICATE_QUESTION
from knowledge.models import PdpQuestionSet
from knowledge.pdp.serializers import INVALID_URL
from knowledge.pdp.services import question_set_create
from tests.factories import OrganizationFactory, ProductFactory

pytestmark = pytest.mark.django_db

PAGE = "https://shop.example/products/desk-lamp"
CHANGELIST = "/admin/knowledge/pdpquestionset/"


@pytest.fixture
def organization():
    return OrganizationFactory(name="Lamp Shop")


@pytest.fixture
def question_set(organization) -> PdpQuestionSet:
    return question_set_create(
        organization=organization,
        url=PAGE,
        product_title="Desk Lamp",
        questions=["Is the Desk Lamp in stock?", "What bulb does it take?", "Is it dimmable?"],
    )


def change_form(question_set: PdpQuestionSet, rows: list[dict]) -> dict:
    """The change page's POST: the set's fields and one inline row per question."""
    questions = list(question_set.questions.order_by("rank"))
    data = {
        "organization": question_set.organization_id,
        "url": question_set.url,
        "product_title": question_set.product_title or "",
        "questions-TOTAL_FORMS": len(rows),
        "questions-INITIAL_FORMS": len(questions),
        "questions-MIN_NUM_FORMS": 0,
        "questions-MAX_NUM_FORMS": 1000,
    }
    for index, row in enumerate(rows):
        prefix = f"questions-{index}-"
        if index < len(questions):
            data[prefix + "id"] = questions[index].pk
        data[prefix + "question_set"] = question_set.pk
        data[prefix + "rank"] = row["rank"]
        data[prefix + "text"] = row["text"]
        if row.get("delete"):
            data[prefix + "DELETE"] = "on"
    return data


def public_get(client, question_set: PdpQuestionSet):
    return client.get(
        f"/v1/knowledge/pdp-questions/{question_set.organization_id}/public",
        {"url": question_set.url},
    )


def test_an_edited_set_is_served_as_edited(operator_client, anonymous, question_set):
    before = public_get(anonymous, question_set)
    assert [q["text"] for q in before.json()["questions"]] == [
        "Is the Desk Lamp in stock?",
        "What bulb does it take?",
        "Is it dimmable?",
    ]

    # Given an operator who rewrites one question, moves the last one first and deletes one
    response = operator_client.post(
        f"{CHANGELIST}{question_set.pk}/change/",
        change_form(
            question_set,
            [
                {"rank": 5, "text": "Is the Desk Lamp in stock today?"},
                {"rank": 2, "text": "What bulb does it take?", "delete": True},
                {"rank": 1, "text": "Is it dimmable?"},
            ],
        ),
    )
    assert response.status_code == 302, response.content.decode()[:2000]

    # then the public endpoint returns exactly that, ranked 1..n, with a new ETag
    after = public_get(anonymous, question_set)
    assert [(q["rank"], q["text"]) for q in after.json()["questions"]] == [
        (1, "Is it dimmable?"),
        (2, "Is the Desk Lamp in stock today?"),
    ]
    assert after["ETag"] != before["ETag"]
    not_modified = anonymous.get(
        f"/v1/knowledge/pdp-questions/{question_set.organization_id}/public",
        {"url": question_set.url},
        HTTP_IF_NONE_MATCH=before["ETag"],
    )
    assert not_modified.status_code == 200


def test_a_question_can_be_added_in_the_admin(operator_client, anonymous, question_set):
    rows = [{"rank": q.rank, "text": q.text} for q in question_set.questions.order_by("rank")]
    rows.append({"rank": 1, "text": "Does it come with a bulb?"})
    response = operator_client.post(
        f"{CHANGELIST}{question_set.pk}/change/", change_form(question_set, rows)
    )
    assert response.status_code == 302
    # A new question given rank 1 goes on top; the others keep their order below it.
    texts = [q["text"] for q in public_get(anonymous, question_set).json()["questions"]]
    assert texts == [
        "Does it come with a bulb?",
        "Is the Desk Lamp in stock?",
        "What bulb does it take?",
        "Is it dimmable?",
    ]


def test_a_question_added_without_a_rank_goes_last(operator_client, anonymous, question_set):
    rows = [{"rank": q.rank, "text": q.text} for q in question_set.questions.order_by("rank")]
    rows.append({"rank": "", "text": "Does it come with a bulb?"})
    response = operator_client.post(
        f"{CHANGELIST}{question_set.pk}/change/", change_form(question_set, rows)
    )
    assert response.status_code == 302
    questions = public_get(anonymous, question_set).json()["questions"]
    assert [(q["rank"], q["text"]) for q in questions][-1] == (4, "Does it come with a bulb?")


def test_duplicate_questions_are_refused(operator_client, question_set):
    response = operator_client.post(
        f"{CHANGELIST}{question_set.pk}/change/",
        change_form(
            question_set,
            [
                {"rank": 1, "text": "Is it dimmable?"},
                {"rank": 2, "text": "What bulb does it take?"},
                {"rank": 3, "text": "  is it   DIMMABLE? "},
            ],
        ),
    )
    assert response.status_code == 200
    assert DUPLICATE_QUESTION in response.content.decode()
    assert question_set.questions.filter(text="Is the Desk Lamp in stock?").exists()


def test_a_set_added_in_the_admin_is_stored_under_its_canonical_url(
    operator_client, anonymous, organization
):
    response = operator_client.post(
        f"{CHANGELIST}add/",
        {
            "organization": organization.pk,
            "url": "HTTPS://Shop.Example/products/floor-lamp/?utm_source=x#top",
            "product_title": "Floor Lamp",
            "questions-TOTAL_FORMS": 1,
            "questions-INITIAL_FORMS": 0,
            "questions-MIN_NUM_FORMS": 0,
            "questions-MAX_NUM_FORMS": 1000,
            "questions-0-rank": 1,
            "questions-0-text": "How tall is the Floor Lamp?",
        },
    )
    assert response.status_code == 302
    stored = PdpQuestionSet.objects.get(organization=organization)
    assert stored.url == "https://shop.example/products/floor-lamp"
    body = public_get(anonymous, stored).json()
    assert body["questions"][0]["text"] == "How tall is the Floor Lamp?"


def test_an_invalid_url_is_refused_in_the_admin(operator_client, organization):
    response = operator_client.post(
        f"{CHANGELIST}add/",
        {
            "organization": organization.pk,
            "url": "shop.example/no-scheme",
            "questions-TOTAL_FORMS": 0,
            "questions-INITIAL_FORMS": 0,
            "questions-MIN_NUM_FORMS": 0,
            "questions-MAX_NUM_FORMS": 1000,
        },
    )
    assert response.status_code == 200
    assert INVALID_URL in response.content.decode()
    assert not PdpQuestionSet.objects.exists()


def test_deleting_a_set_in_the_admin_makes_the_get_404(operator_client, anonymous, question_set):
    assert public_get(anonymous, question_set).status_code == 200
    response = operator_client.post(f"{CHANGELIST}{question_set.pk}/delete/", {"post": "yes"})
    assert response.status_code == 302
    assert public_get(anonymous, question_set).status_code == 404


def test_changelist_filters_by_organization_and_searches_by_url(operator_client, question_set):
    other = OrganizationFactory(name="Chair Shop")
    question_set_create(
        organization=other,
        url="https://chairs.example/products/stool",
        product_title="Stool",
        questions=["Q?"],
    )

    page = operator_client.get(CHANGELIST).content.decode()
    assert "https://shop.example/products/desk-lamp" in page
    assert "https://chairs.example/products/stool" in page

    filtered = operator_client.get(
        CHANGELIST, {"organization__id__exact": str(other.pk)}
    ).content.decode()
    assert "chairs.example/products/stool" in filtered
    assert "desk-lamp" not in filtered

    searched = operator_client.get(CHANGELIST, {"q": "desk-lamp"}).content.decode()
    assert "desk-lamp" in searched
    assert "chairs.example/products/stool" not in searched


def test_regenerate_action_rebuilds_questions_from_the_catalog(
    operator_client, anonymous, organization, question_set
):
    ProductFactory(
        organization=organization,
        url=PAGE,
        title="Desk Lamp Pro",
        product_type="Furniture > Lamps",
        material="Aluminium",
    )
    orphan = question_set_create(
        organization=organization,
        url="https://shop.example/products/gone",
        product_title="Gone",
        questions=["Still here?"],
    )
    before = public_get(anonymous, question_set)

    chosen = {"action": "regenerate", "_selected_action": [question_set.pk, orphan.pk]}
    # The action asks first: edits made in the admin would be lost
    asked = operator_client.post(CHANGELIST, chosen).content.decode()
    assert "Edits made here" in asked and "https://shop.example/products/gone" in asked
    assert public_get(anonymous, question_set).json()["questions"] == before.json()["questions"]

    response = operator_client.post(CHANGELIST, {**chosen, "confirmed": "yes"}, follow=True)

    page = response.content.decode()
    assert "Regenerated 1 question set(s)." in page
    assert "1 set(s) left as they were: no catalog product at their URL." in page
    body = public_get(anonymous, question_set).json()
    texts = [q["text"] for q in body["questions"]]
    assert body["productTitle"] == "Desk Lamp Pro"
    assert 3 <= len(texts) <= 6
    assert any("Desk Lamp Pro" in text for text in texts)
    assert texts != [q["text"] for q in before.json()["questions"]]
    assert [q.text for q in orphan.questions.all()] == ["Still here?"]


def test_support_staff_cannot_see_question_sets(support_client, question_set):
    assert support_client.get(CHANGELIST).status_code == 403
