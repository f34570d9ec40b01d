"""The organization's catalog words (SearchTerm) that misspelt query words are corrected to."""

from __future__ import annotations

from collections.abc import Iterable

from accounts.models import Organization
from knowledge.models import Product, SearchTerm
from knowledge.search.text import words

MIN_TERM_LENGTH = 3  # shorter words are too ambiguous to correct towards
MAX_TERM_LENGTH = 40
BATCH_SIZE = 1000


def product_terms(
    *,
    title: str,
    brand: str = "",
    product_type: str = "",
    google_product_category: str = "",
    color: str = "",
    material: str = "",
) -> set[str]:
    """The correctable words of one product: names, brand and categories (not descriptions)."""
    text = " ".join((title, brand, product_type, google_product_category, color, material))
    return {
        word
        for word in words(text)
        if MIN_TERM_LENGTH <= len(word) <= MAX_TERM_LENGTH and not word.isdigit()
    }


def search_terms_add(*, organization: Organization, terms: Iterable[str]) -> None:
    """Adds words to the organization's vocabulary (existing ones are kept)."""
    batch: list[SearchTerm] = []
    for term in terms:
        batch.append(SearchTerm(organization=organization, term=term))
        if len(batch) >= BATCH_SIZE:
            SearchTerm.objects.bulk_create(batch, ignore_conflicts=True)
            batch = []
    if batch:
        SearchTerm.objects.bulk_create(batch, ignore_conflicts=True)


def search_terms_replace(*, organization: Organization, terms: Iterable[str]) -> None:
    """Makes `terms` the organization's whole vocabulary (after a full import)."""
    SearchTerm.objects.filter(organization=organization).delete()
    search_terms_add(organization=organization, terms=terms)


def search_terms_of_products(products: Iterable[Product]) -> set[str]:
    terms: set[str] = set()
    for product in products:
        terms |= product_terms(
            title=product.title,
            brand=product.brand,
            product_type=product.product_type,
            google_product_category=product.google_product_category,
            color=product.color,
            material=product.material,
        )
    return terms
