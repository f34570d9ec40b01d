"""Catalog search in the catalog's language (Organization.language): stemming of that language
on PostgreSQL (its text search configuration) and on SQLite (Snowball stems as prefixes), and a
change of language re-indexes the catalog."""

from __future__ import annotations

import pytest

from knowledge.search import product_search
from tests.factories import OrganizationFactory
from tests.knowledge.catalog_files import ROOT, run_import

pytestmark = pytest.mark.django_db
GROCERY = ROOT / "eval" / "catalogs" / "epicerie-products.tsv"


def _grocery(language: str):
    organization = OrganizationFactory(name=f"Épicerie {language}", language=language)
    summary, failed = run_import(str(organization.id), str(GROCERY))
    assert not failed, summary
    return organization


def test_a_french_catalog_matches_a_singular_to_its_plural_by_french_stems():
    organization = _grocery("fr")

    found = product_search(organization=organization, query="pruneau")

    # Matched as it was said, not replaced by a catalog spelling: French stems agree.
    assert found.terms == ["pruneau"]
    assert {p.title for p in found.products} >= {"Pruneaux secs", "Far breton aux pruneaux"}


def test_the_catalog_language_drops_its_own_stop_words():
    organization = _grocery("fr")

    found = product_search(organization=organization, query="des pruneaux pour le dessert")

    assert "des" not in found.terms and "pour" not in found.terms and "le" not in found.terms


def test_changing_the_catalog_language_searches_with_the_new_one():
    organization = _grocery("fr")
    assert product_search(organization=organization, query="pruneau").terms == ["pruneau"]

    organization.language = "en"
    organization.save(update_fields=["language"])

    # English stems "pruneau" and "pruneaux" apart: the word is corrected to the catalog's.
    terms = product_search(organization=organization, query="pruneau").terms
    assert "pruneau" not in terms and "pruneaux" in terms
