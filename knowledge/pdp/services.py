"""Writes behind the PDP question sets: generating, regenerating and renumbering sets."""

from __future__ import annotations

import uuid
from collections.abc import Collection, Iterator, Sequence

from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.models import Organization
from knowledge.models import PdpQuestion, PdpQuestionSet, Product
from knowledge.pdp.generation import questions_generate
from knowledge.pdp.selectors import FoundQuestionSet, product_for_url
from knowledge.pdp.serving import question_set_serve, served_sets


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

    This request is counted. None when there is neither a set nor a product. Two first
    requests for the same URL at the same moment store one set: the unique (organization,
    url) constraint refuses the second insert, and that request returns the winner's set.
    """
    found = question_set_serve(organization_id=organization.pk, url=url)
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
        found = question_set_serve(organization_id=organization.pk, url=url)
        if found is None:
            raise
        return found
    return question_set_serve(organization_id=organization.pk, url=url)


def question_set_regenerate(*, question_set: PdpQuestionSet) -> bool:
    """Replaces the set's questions with freshly generated ones (the admin's action); from
    then on the set follows the catalog's changes again.

    False, and nothing changed, when the catalog no longer has a product at the set's URL.
    """
    product = product_for_url(organization_id=question_set.organization_id, url=question_set.url)
    if product is None:
        return False
    _questions_replace(question_set, product.title, questions_generate(product))
    return True


# URLs looked up per query: a whole catalog's import changes more URLs than PostgreSQL takes
# parameters in one statement (65,535).
FOLLOW_URLS_PER_QUERY = 1000


def question_sets_follow_catalog(*, organization: Organization, urls: Collection[str]) -> None:
    """After the products at `urls` changed: their generated sets and those of their variants
    (which ask about the group's sizes in stock), not those an operator edited, are generated
    again, and written when the questions or title differ."""
    products = Product.objects.filter(organization=organization)
    pages = set(urls)
    groups: set[str] = set()
    for chunk in _chunks(sorted(pages)):
        found = products.filter(url__in=chunk).exclude(item_group_id="")
        groups.update(found.values_list("item_group_id", flat=True))
    for chunk in _chunks(sorted(groups)):
        pages.update(products.filter(item_group_id__in=chunk).values_list("url", flat=True))
    # A family's page (the variants' page without their parameters) has a set of its own.
    pages.update([url.split("?", 1)[0] for url in pages if "?" in url])
    for chunk in _chunks(sorted(pages)):
        question_sets = PdpQuestionSet.objects.filter(
            organization=organization, url__in=chunk, generated=True
        ).prefetch_related("questions")
        for question_set in question_sets:
            _question_set_follow(organization, question_set)


def _chunks(values: list[str]) -> Iterator[list[str]]:
    for start in range(0, len(values), FOLLOW_URLS_PER_QUERY):
        yield values[start : start + FOLLOW_URLS_PER_QUERY]


def _question_set_follow(organization: Organization, question_set: PdpQuestionSet) -> None:
    product = product_for_url(organization_id=organization.pk, url=question_set.url)
    if product is None:
        return
    questions = questions_generate(product)
    current = [question.text for question in question_set.questions.all()]
    if questions != current or product.title != question_set.product_title:
        _questions_replace(question_set, product.title, questions)


def _questions_replace(question_set: PdpQuestionSet, title: str, questions: list[str]) -> None:
    with transaction.atomic():
        question_set.questions.all().delete()
        PdpQuestion.objects.bulk_create(
            PdpQuestion(question_set=question_set, text=text, rank=rank)
            for rank, text in enumerate(questions, start=1)
        )
        question_set.product_title = title
        question_set.generated = True
        question_set.updated_at = timezone.now()
        question_set.save(update_fields=["product_title", "generated", "updated_at"])
    served_sets.evict(question_set.id)  # this process at once; others by updated_at


def question_set_renumber(
    *, question_set: PdpQuestionSet, moved: Collection[uuid.UUID] = ()
) -> None:
    """Ranks 1..n without gaps in the operator's order (after an admin edit).

    On a tie the questions just given that rank (`moved`: added or re-ranked) come first:
    typing 1 puts a question on top.
    """
    questions = sorted(
        question_set.questions.all(),
        key=lambda question: (question.rank, question.pk not in moved, str(question.pk)),
    )
    changed = []
    for rank, question in enumerate(questions, start=1):
        if question.rank != rank:
            question.rank = rank
            changed.append(question)
    with transaction.atomic():
        if changed:
            PdpQuestion.objects.bulk_update(changed, ["rank"])
        # An operator's edit: the set keeps it, no longer following the catalog.
        PdpQuestionSet.objects.filter(pk=question_set.pk).update(
            updated_at=timezone.now(), generated=False
        )
    served_sets.evict(question_set.id)
