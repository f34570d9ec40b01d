"""Operator actions on organizations, chatbots, keys and quotas (admin and CLI share them)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from django.utils import timezone

from accounts import keys
from accounts.key_cache import api_key_forget
from accounts.models import ApiKey, Chatbot, Environment, Organization, Scope
from assistant_api.errors import NotFoundError, ValidationFailedError
from assistant_api.ids import uuid_from_text

ORGANIZATION_NOT_FOUND = "Organization not found: {ref}"
KEY_NOT_FOUND = "API key not found: {prefix}"
ORGANIZATION_EXISTS = "An organization named {name!r} already exists"


@dataclass(frozen=True)
class IssuedKey:
    api_key: ApiKey
    key: str  # the full key: shown once, never stored


def organization_resolve(*, ref: str) -> Organization:
    """An organization by id or exact name."""
    parsed = uuid_from_text(ref)
    organization = (
        Organization.objects.filter(pk=parsed).first() if parsed is not None else None
    ) or Organization.objects.filter(name=ref).first()
    if organization is None:
        raise NotFoundError(ORGANIZATION_NOT_FOUND.format(ref=ref))
    return organization


def organization_create(*, name: str, monthly_quota: int | None = None) -> Organization:
    name = name.strip()
    if not name:
        raise ValidationFailedError("The organization name must not be empty")
    if Organization.objects.filter(name=name).exists():
        raise ValidationFailedError(ORGANIZATION_EXISTS.format(name=name))
    return Organization.objects.create(name=name, monthly_quota=monthly_quota)


def chatbot_create(
    *, organization: Organization, name: str, greeting: str = "", language: str = ""
) -> Chatbot:
    if not name.strip():
        raise ValidationFailedError("The chatbot name must not be empty")
    return Chatbot.objects.create(
        organization=organization, name=name.strip(), greeting=greeting, language=language
    )


def api_key_issue(
    *,
    organization: Organization,
    environment: str = Environment.STAGING,
    name: str = "",
    expires_at: datetime | None = None,
    scope: str = Scope.CHAT,
) -> IssuedKey:
    if environment not in Environment.values:
        raise ValidationFailedError(
            f"Unknown environment {environment!r}: use staging or production"
        )
    if scope not in Scope.values:
        raise ValidationFailedError(f"Unknown scope {scope!r}: use chat or catalog")
    generated = keys.generate_key(environment)
    api_key = ApiKey.objects.create(
        organization=organization,
        environment=environment,
        name=name,
        scope=scope,
        prefix=generated.prefix,
        hashed_key=generated.hashed_key,
        expires_at=expires_at,
    )
    return IssuedKey(api_key=api_key, key=generated.key)


@transaction.atomic
def api_key_revoke(*, prefix: str) -> ApiKey:
    """Revokes a key for good; revoking twice keeps the first revocation time."""
    api_key = ApiKey.objects.select_for_update().filter(prefix=prefix.strip()).first()
    if api_key is None:
        raise NotFoundError(KEY_NOT_FOUND.format(prefix=prefix))
    if api_key.revoked_at is None:
        api_key.revoked_at = timezone.now()
        api_key.save(update_fields=["revoked_at"])
    # This process forgets the key now and again at commit (a request in between may have
    # read the row still unrevoked); other workers within API_KEY_CACHE_SECONDS
    # (docs/api.md#authentication).
    api_key_forget(prefix=api_key.prefix)
    transaction.on_commit(lambda: api_key_forget(prefix=api_key.prefix))
    return api_key


def quota_set(*, organization: Organization, monthly_quota: int | None) -> Organization:
    if monthly_quota is not None and monthly_quota < 0:
        raise ValidationFailedError("The quota must be a number >= 0 or 'unlimited'")
    organization.monthly_quota = monthly_quota
    organization.save(update_fields=["monthly_quota"])
    return organization
