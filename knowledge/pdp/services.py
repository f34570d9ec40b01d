"""Writes behind the PDP question sets: counting requests, generating and regenerating sets."""

from __future__ import annotations

from collections.abc import Sequence

from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from accounts.models import Organization
from knowledge.models import PdpQuestion, PdpQuestionSet
from knowledge.pdp.generation import questions_generate
from knowledge.pdp.selectors import FoundQuestionSet, product_for_url, question_set_find


def question_set_count_request(*, found: FoundQuestionSet) -> int:
    """Counts one request of the set (contract §6) and returns the count it now has.

    A single `UPDATE ... SET requests = requests + 1` is atomic in the database, so parallel
    requests never lose a count. The returned value is the count as this request saw it.
    """
    PdpQuestionSet.objects.filter(pk=found.id).update(requests=F("requests") + 1)
    return found.requests + 1


def question_set_create(
    *, organization: Organization, url: str, product_title: str | None, questions: Sequence[str]
) -> PdpQuestionSet:
    """Stores a set with its questions ranked 1..n; IntegrityError if the URL already has one."""
    with transaction.atomic():
        question_set = PdpQuestionSet.objects.create(
            organization=organization, url=url, product_title=product_title
        )
        PdpQuestion.objects.bulk_create(
            PdpQuestion(question_set=question_set, text=text, rank=rank)
            for rank, text in enumerate(questions, start=1)
        )
    return question_set


def question_set_get_or_generate(
    *, organization: Organization, url: str
) -> FoundQuestionSet | None:
    """The set stored for `url`, else one generated from the catalog product at `url`.

    None when there is neither a set nor a product. Two first requests for the same URL at
    the same moment store one set: the unique (organization, url) constraint refuses the
    second insert, and that request returns the winner's set.
    """
    found = question_set_find(organization_id=organization.pk, url=url)
    if found is not None:
        return found
    product = product_for_url(organization_id=organization.pk, url=url)
    if product is None:
        return None
    questions = questions_generate(product)  # reads only: outside the write transaction
    try:
        question_set_create(
            organization=organization, url=url, product_title=product.title, questions=questions
        )
    except IntegrityError:
        found = question_set_find(organization_id=organization.pk, url=url)
        if found is None:
            raise
        return found
    return question_set_find(organization_id=organization.pk, url=url)


def question_set_regenerate(*, question_set: PdpQuestionSet) -> bool:
    """Replaces the set's questions with freshly generated ones (the admin's action).

    False, and nothing changed, when the catalog no longer has a product at the set's URL.
    """
    product = product_for_url(organization_id=question_set.organization_id, url=question_set.url)
    if product is None:
        return False
    questions = questions_generate(product)
    with transaction.atomic():
        question_set.questions.all().delete()
        PdpQuestion.objects.bulk_create(
            PdpQuestion(question_set=question_set, text=text, rank=rank)
            for rank, text in enumerate(questions, start=1)
        )
        question_set.product_title = product.title
        question_set.updated_at = timezone.now()
        question_set.save(update_fields=["product_title", "updated_at"])
    return True


def question_set_renumber(*, question_set: PdpQuestionSet) -> None:
    """Ranks 1..n without gaps, keeping the operator's order (after an admin edit)."""
    questions = list(question_set.questions.order_by("rank", "id"))
    changed = []
    for rank, question in enumerate(questions, start=1):
        if question.rank != rank:
            question.rank = rank
            changed.append(question)
    with transaction.atomic():
        if changed:
            PdpQuestion.objects.bulk_update(changed, ["rank"])
        PdpQuestionSet.objects.filter(pk=question_set.pk).update(updated_at=timezone.now())
