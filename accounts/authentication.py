"""API key authentication for operations 1-5 (docs/api.md#authentication): one key lookup
per request.

The lookup goes through accounts/key_cache.py: at most one query per key and worker every
`API_KEY_CACHE_SECONDS`, and never a revoked key accepted for more than a second.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db.models import Q
from django.http import HttpRequest
from django.utils import timezone
from rest_framework import exceptions
from rest_framework.authentication import BaseAuthentication
from rest_framework.request import Request

from accounts import keys
from accounts.client_tokens import TOKEN_NOT_VALID_HERE, TokenForbiddenError, is_client_token
from accounts.failed_auth import failed_auth_count, failed_auth_refuse_blocked
from accounts.key_cache import api_key_lookup, api_key_remember_use
from accounts.models import ApiKey, Organization

# The `WWW-Authenticate` of a 401: makes DRF answer 401, not 403, when the key is missing.
AUTHENTICATE = 'Bearer realm="api"'
MISSING_KEY = "Missing API key: send it in the x-api-key header"
INVALID_KEY = "Invalid API key"
REVOKED_KEY = "API key revoked"
EXPIRED_KEY = "API key expired"
WRONG_ENVIRONMENT = (
    "This API key belongs to the {key_env} environment; this is the {env} environment"
)
LAST_USED_RESOLUTION = timedelta(minutes=1)
# Compared with a key whose prefix matches no key, so that answer costs what a wrong secret
# for a real prefix costs: the time taken does not tell whether a prefix exists.
UNKNOWN_KEY_HASH = keys.hash_key("sk_stag_00000000_" + "0" * 43)


@dataclass(frozen=True)
class ApiClient:
    """Who is calling: `request.user` for API requests."""

    api_key: ApiKey
    organization: Organization

    is_authenticated = True


def request_organization(request: Request) -> Organization:
    """The organization of the authenticated API key of this request."""
    client = request.user
    assert isinstance(client, ApiClient), "view must require ApiKeyAuthentication"
    return client.organization


def key_from_headers(request: Request | HttpRequest) -> str | None:
    # From META, not request.headers: building that mapping of every header cost more than
    # the cached key lookup itself, and nothing else on an API request needs it.
    key = request.META.get("HTTP_X_API_KEY")
    if key:
        return key.strip()
    scheme, _, token = request.META.get("HTTP_AUTHORIZATION", "").partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        return token.strip()
    return None


def request_api_key(request: HttpRequest) -> ApiKey:
    """The request's active API key (with its organization), for plain Django views (the
    event stream). Raises DRF's NotAuthenticated / AuthenticationFailed, answered as 401.
    """
    key = key_from_headers(request)
    if key is None:
        raise exceptions.NotAuthenticated(MISSING_KEY)
    return authenticate_request_key(request, key)


def authenticate_request_key(request: Request | HttpRequest, key: str) -> ApiKey:
    """`authenticate_key`, with the limit of refused keys per client address
    (accounts/failed_auth.py): TooManyRequestsError before the lookup when over it.

    A key matching no key is answered no sooner than `FAILED_AUTH_MIN_SECONDS` after its
    lookup began: a prefix in use is in the worker's cache while one never seen costs a
    query, and without the floor that difference would tell which prefixes exist.
    """
    failed_auth_refuse_blocked(request)
    started = time.monotonic()
    try:
        return authenticate_key(key)
    except exceptions.AuthenticationFailed as exc:
        if exc.detail == INVALID_KEY:
            try:
                failed_auth_count(request)
            finally:
                wait_until(started + settings.FAILED_AUTH_MIN_SECONDS)
        raise


def wait_until(moment: float) -> None:
    """Sleeps until `moment` (a `time.monotonic()` value); in the gevent workers `time.sleep`
    yields to the worker's other requests, so a refused key holds no worker."""
    left = moment - time.monotonic()
    if left > 0:
        time.sleep(left)


def authenticate_key(key: str) -> ApiKey:
    """The active key for `key`, or AuthenticationFailed with the reason."""
    if is_client_token(key):
        # A chat's client token where only an API key will do (chats/token_auth.py).
        raise TokenForbiddenError(TOKEN_NOT_VALID_HERE)
    prefix = keys.prefix_of(key)
    if prefix is None:
        raise exceptions.AuthenticationFailed(INVALID_KEY)
    api_key = api_key_lookup(prefix=prefix)
    if api_key is None:
        keys.key_matches(key, UNKNOWN_KEY_HASH)
        raise exceptions.AuthenticationFailed(INVALID_KEY)
    if not keys.key_matches(key, api_key.hashed_key):
        raise exceptions.AuthenticationFailed(INVALID_KEY)
    if api_key.is_revoked:
        raise exceptions.AuthenticationFailed(REVOKED_KEY)
    now = timezone.now()
    if api_key.is_expired(now):
        raise exceptions.AuthenticationFailed(EXPIRED_KEY)
    if api_key.environment != settings.ASSISTANT_ENVIRONMENT:
        raise exceptions.AuthenticationFailed(
            WRONG_ENVIRONMENT.format(
                key_env=api_key.environment, env=settings.ASSISTANT_ENVIRONMENT
            )
        )
    touch_last_used(api_key, now)
    return api_key


def touch_last_used(api_key: ApiKey, now) -> None:
    """Records use at most once a minute per key, with one conditional UPDATE."""
    if api_key.last_used_at is not None and now - api_key.last_used_at < LAST_USED_RESOLUTION:
        return
    # The condition keeps concurrent workers from writing the same minute twice.
    stale = now - LAST_USED_RESOLUTION
    ApiKey.objects.filter(
        Q(last_used_at__isnull=True) | Q(last_used_at__lt=stale), pk=api_key.pk
    ).update(last_used_at=now)
    api_key.last_used_at = now
    api_key_remember_use(prefix=api_key.prefix, last_used_at=now)


class ApiKeyAuthentication(BaseAuthentication):
    def authenticate(self, request: Request) -> tuple[ApiClient, ApiKey] | None:
        # The Django request: DRF's proxies each attribute it lacks, a little slower.
        key = key_from_headers(request._request)
        if key is None:
            return None
        api_key = authenticate_request_key(request._request, key)
        return ApiClient(api_key=api_key, organization=api_key.organization), api_key

    def authenticate_header(self, request: Request) -> str:
        return AUTHENTICATE
