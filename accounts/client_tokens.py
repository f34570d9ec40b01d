"""Client tokens: short-lived credentials for one chat, safe to hand to a browser.

A token is `ct_` and a value signed with `SECRET_KEY` (Django's signing, HMAC-SHA256) that
holds the chat id, the public prefix of the API key that minted it and its expiry. Nothing is
stored: the signature proves the service issued it, and every use looks the minting key up
again (accounts/key_cache.py, at most `API_KEY_CACHE_SECONDS` old), so revoking that key ends
its tokens within a second, and the token's requests count against that key's rate limit.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.core import signing
from django.utils import timezone

from accounts.key_cache import api_key_lookup
from accounts.models import ApiKey
from assistant_api.errors import ApplicationError

TOKEN_PREFIX = "ct_"
MIN_TTL_SECONDS = 60
MAX_TTL_SECONDS = 86400
_SALT = "accounts.client_tokens"

TOKEN_NOT_VALID_HERE = "This token is not valid for this request"
TOKEN_EXPIRED = "Token expired"
TOKEN_INVALID = "Invalid token"
TOKEN_KEY_REVOKED = "Token revoked: the API key that issued it was revoked"
TOKEN_KEY_EXPIRED = "Token revoked: the API key that issued it has expired"
TOKEN_OTHER_ENVIRONMENT = "This token belongs to another environment"
# What a 401 says about the scheme, as for API keys (accounts/authentication.py AUTHENTICATE).
_AUTHENTICATE = {"WWW-Authenticate": 'Bearer realm="api"'}


class TokenRefusedError(ApplicationError):
    """401: the token is not (or no longer) a credential."""

    status_code = 401

    def __init__(self, message: str) -> None:
        super().__init__(message, headers=dict(_AUTHENTICATE))


class TokenForbiddenError(ApplicationError):
    """403: a valid credential, but not for this chat, operation or origin."""

    status_code = 403


@dataclass(frozen=True)
class MintedToken:
    token: str
    chat_id: uuid.UUID
    expires_at: datetime


@dataclass(frozen=True)
class TokenClaims:
    chat_id: str
    key_prefix: str
    expires_at: datetime


def is_client_token(credential: str) -> bool:
    return credential.startswith(TOKEN_PREFIX)


def client_token_mint(*, api_key: ApiKey, chat_id: uuid.UUID, ttl_seconds: int) -> MintedToken:
    """A token for `chat_id` on behalf of `api_key`, valid for `ttl_seconds` from now."""
    # Whole seconds: the expiry the response shows is exactly the one the token holds.
    expires_at = timezone.now().replace(microsecond=0) + timedelta(seconds=ttl_seconds)
    claims = {"c": str(chat_id), "k": api_key.prefix, "e": int(expires_at.timestamp())}
    signed = signing.dumps(claims, salt=_SALT, compress=False)
    return MintedToken(token=TOKEN_PREFIX + signed, chat_id=chat_id, expires_at=expires_at)


def client_token_claims(token: str) -> TokenClaims:
    """What a token says, once its signature is checked; 401 for anything not ours."""
    try:
        claims = signing.loads(token.removeprefix(TOKEN_PREFIX), salt=_SALT)
        return TokenClaims(
            chat_id=str(claims["c"]),
            key_prefix=str(claims["k"]),
            expires_at=datetime.fromtimestamp(int(claims["e"]), tz=UTC),
        )
    except (signing.BadSignature, KeyError, TypeError, ValueError, OverflowError) as exc:
        raise TokenRefusedError(TOKEN_INVALID) from exc


def client_token_key(claims: TokenClaims) -> ApiKey:
    """The minting key of a token, while the token and that key are both in force."""
    api_key = api_key_lookup(prefix=claims.key_prefix)
    if api_key is None:  # the key was deleted
        raise TokenRefusedError(TOKEN_KEY_REVOKED)
    return api_key


def client_token_check(claims: TokenClaims, api_key: ApiKey) -> None:
    """401 when the token has expired, or its key is revoked, expired or of the other
    environment."""
    now = timezone.now()
    if claims.expires_at <= now:
        raise TokenRefusedError(TOKEN_EXPIRED)
    if api_key.is_revoked:
        raise TokenRefusedError(TOKEN_KEY_REVOKED)
    if api_key.is_expired(now):
        raise TokenRefusedError(TOKEN_KEY_EXPIRED)
    if api_key.environment != settings.ASSISTANT_ENVIRONMENT:
        raise TokenRefusedError(TOKEN_OTHER_ENVIRONMENT)
