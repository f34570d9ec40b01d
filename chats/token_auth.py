"""Who may act on one chat: an API key, or a client token minted for that chat.

The operations a browser needs (read the chat, read and add messages, the event streams, the
AI SDK endpoints) take either. A token request is checked against the chat's organization's
allowed origins before anything else happens (docs/api.md, "Shop front-ends"); the origin it
was allowed from is remembered on the request for chats/cors.py to echo.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.http import HttpRequest
from rest_framework.authentication import BaseAuthentication
from rest_framework.request import Request

from accounts.authentication import AUTHENTICATE, ApiClient, request_api_key
from accounts.client_tokens import (
    TOKEN_NOT_VALID_HERE,
    TokenClaims,
    TokenForbiddenError,
    TokenRefusedError,
    client_token_check,
    client_token_claims,
    client_token_key,
    is_client_token,
)
from accounts.failed_auth import failed_auth_count, failed_auth_refuse_blocked
from accounts.models import ApiKey
from knowledge.pdp.cors import origin_allowed

ORIGIN_NOT_ALLOWED = "Origin not allowed"
# Where chats/cors.py finds the origin a token request was allowed from.
CORS_ORIGIN_ATTRIBUTE = "chat_cors_origin"


@dataclass(frozen=True)
class TokenClient(ApiClient):
    """A browser acting with a client token: its minting key, limited to one chat."""

    chat_id: str = ""


def request_client_token(request: HttpRequest, *, allow_query: bool = False) -> str | None:
    """The client token the request carries: `Authorization: Bearer ct_...`, or `?token=`
    where `allow_query` (the event streams: EventSource cannot set headers). None when the
    request carries an API key (`x-api-key` wins, as for keys) or nothing."""
    if request.META.get("HTTP_X_API_KEY"):
        return None
    scheme, _, credential = request.META.get("HTTP_AUTHORIZATION", "").partition(" ")
    credential = credential.strip()
    if scheme.lower() == "bearer" and is_client_token(credential):
        return credential
    if allow_query and not credential:
        token = request.GET.get("token", "").strip()
        if token:
            return token
    return None


def token_client(request: HttpRequest, token: str, *, chat_id: str | None) -> TokenClient:
    """The client a token stands for, when it may act on `chat_id` from the request's origin.

    Origin first: a page on an origin the organization does not allow learns nothing about
    the token (403 before anything is read or stored). Then expiry and the minting key (401),
    then the chat (403).
    """
    claims = _signed_claims(request, token)
    api_key = client_token_key(claims)
    organization = api_key.organization
    origin = request.META.get("HTTP_ORIGIN")
    if origin is not None:
        allowed = organization.allowed_origins or []
        if allowed and not origin_allowed(origin, allowed):
            raise TokenForbiddenError(ORIGIN_NOT_ALLOWED)
        setattr(request, CORS_ORIGIN_ATTRIBUTE, origin)
    client_token_check(claims, api_key)
    if chat_id is None or chat_id.strip().lower() != claims.chat_id:
        raise TokenForbiddenError(TOKEN_NOT_VALID_HERE)
    return TokenClient(api_key=api_key, organization=organization, chat_id=claims.chat_id)


def _signed_claims(request: HttpRequest, token: str) -> TokenClaims:
    """The token's claims; a token we did not sign (forged, cut short, made up) counts against
    the address's limit of refused credentials as an API key matching no key does
    (accounts/failed_auth.py). A genuine token that expired, or whose key was revoked, does
    not: like an expired key, it is a shopper's tab left open, not a guess."""
    failed_auth_refuse_blocked(request)
    try:
        return client_token_claims(token)
    except TokenRefusedError:
        failed_auth_count(request)
        raise


def request_chat_key(request: HttpRequest, chat_id: str, *, allow_query: bool = False) -> ApiKey:
    """For plain Django views on one chat: the API key the request acts with, its own or
    the one that minted its token for this chat."""
    token = request_client_token(request, allow_query=allow_query)
    if token is None:
        return request_api_key(request)
    return token_client(request, token, chat_id=chat_id).api_key


class ChatTokenAuthentication(BaseAuthentication):
    """DRF authentication of a chat's client token, for the viewsets of chat operations;
    listed before ApiKeyAuthentication, which handles every request without a token."""

    def authenticate(self, request: Request) -> tuple[TokenClient, ApiKey] | None:
        token = request_client_token(request._request)
        if token is None:
            return None
        kwargs: dict[str, Any] = (request.parser_context or {}).get("kwargs", {})
        client = token_client(request._request, token, chat_id=kwargs.get("chatId"))
        return client, client.api_key

    def authenticate_header(self, request: Request) -> str:
        return AUTHENTICATE
