"""Reads behind the public PDP endpoints (the set itself is read by serving.py)."""

from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass
from typing import Any

import orjson

from accounts.models import Organization
from assistant_api.errors import NotFoundError
from assistant_api.ids import uuid_from_text
from knowledge.models import Product
from knowledge.products.pages import family_product_find

ORGANIZATION_NOT_FOUND = "Organization not found"
QUESTION_SET_NOT_FOUND = "No question set found for this URL"


@dataclass(frozen=True)
class FoundQuestionSet:
    """A stored set as the endpoints return it, this request counted."""

    id: uuid.UUID
    requests: int  # including this request
    allowed_origins: list[str]
    # The PdpQuestionsSet body without `requests` (docs/api.md#pdpquestionsset), in field order.
    fields: dict[str, Any]
    # Weak: the body also carries `requests`, which changes on every request; the ETag names
    # the set's content, so a client revalidating gets 304 until the set is edited.
    etag: str

    @classmethod
    def build(
        cls, *, id: uuid.UUID, requests: int, allowed_origins: list[str], fields: dict[str, Any]
    ) -> FoundQuestionSet:
        digest = hashlib.blake2b(
            orjson.dumps(fields, option=orjson.OPT_UTC_Z), digest_size=16
        ).hexdigest()
        return cls(
            id=id,
            requests=requests,
            allowed_origins=allowed_origins,
            fields=fields,
            etag=f'W/"{digest}"',
        )

    def body(self) -> dict[str, Any]:
        return {
            "id": self.fields["id"],
            "organizationId": self.fields["organizationId"],
            "productTitle": self.fields["productTitle"],
            "url": self.fields["url"],
            "requests": self.requests,
            "createdAt": self.fields["createdAt"],
            "questions": self.fields["questions"],
        }


def parse_organization_id(value: str) -> uuid.UUID:
    """The organization id of a path; a malformed one is a 404 like an unknown one
    (docs/api.md#identifiers)."""
    parsed = uuid_from_text(value)
    if parsed is None:
        raise NotFoundError(ORGANIZATION_NOT_FOUND)
    return parsed


def organization_get_public(*, organization_id: uuid.UUID) -> Organization:
    organization = (
        Organization.objects.filter(pk=organization_id).only("id", "allowed_origins").first()
    )
    if organization is None:
        raise NotFoundError(ORGANIZATION_NOT_FOUND)
    return organization


def organization_allowed_origins(*, organization_id: uuid.UUID) -> list[str] | None:
    """The organization's allowed origins ([] for any), or None when it does not exist."""
    row = Organization.objects.filter(pk=organization_id).values_list("allowed_origins").first()
    return None if row is None else list(row[0] or [])


def product_for_url(*, organization_id: uuid.UUID, url: str) -> Product | None:
    """The catalog product whose (canonical) page is `url`, the first by item id if several;
    on a product family's page, the variant that stands for it (knowledge/products/pages.py)."""
    return Product.objects.filter(organization_id=organization_id, url=url).order_by(
        "item_id"
    ).first() or family_product_find(organization_id=organization_id, url=url)
