"""What every catalog write does so shoppers see the change at once, whoever wrote it.

Prices and stock are read live by every reply and search. What workers keep is: the catalog's
words (the assistant's vocabulary, renewed when the organization's CatalogVersion changes) and
the PDP question sets, whose generated questions depend on the product's sale, availability and
stock in stores (they are generated again here, and workers see the new `updated_at`). Writers
pass only the URLs whose questions may change, so a price or quantity update is cheap.
"""

from __future__ import annotations

import uuid
from collections.abc import Collection

from accounts.models import Organization
from knowledge.models import CatalogVersion
from knowledge.pdp.services import question_sets_follow_catalog


def catalog_changed(*, organization: Organization, words: bool, urls: Collection[str]) -> None:
    """Called in the writing transaction: `words` when products were added or removed or
    their words (brand, category, attributes) changed; `urls` of the products changed."""
    if words:
        catalog_version_move(organization=organization)
    if urls:
        question_sets_follow_catalog(organization=organization, urls=urls)


def catalog_version_move(*, organization: Organization) -> None:
    """A new stamp (one upsert): each worker reads the catalog's words again on next use."""
    CatalogVersion.objects.bulk_create(
        [CatalogVersion(organization=organization, stamp=uuid.uuid4())],
        update_conflicts=True,
        unique_fields=["organization"],
        update_fields=["stamp"],
    )
