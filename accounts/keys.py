"""API key text, hashing and checking (docs/api.md#authentication).

A key reads `sk_stag_<prefix>_<secret>`: the environment marker and prefix are public and
stored for lookup; the secret has 256 bits of entropy, so a fast unsalted SHA-512 of the whole
key is enough (a password hasher would cost ~100 ms a request for no gain).
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass

from django.utils.crypto import constant_time_compare

ENVIRONMENT_MARKERS = {"staging": "sk_stag_", "production": "sk_prod_"}
MARKER_ENVIRONMENTS = {marker: env for env, marker in ENVIRONMENT_MARKERS.items()}
PREFIX_RANDOM_LENGTH = 8


@dataclass(frozen=True)
class GeneratedKey:
    key: str
    prefix: str
    hashed_key: str


def hash_key(key: str) -> str:
    return hashlib.sha512(key.encode()).hexdigest()


def generate_key(environment: str) -> GeneratedKey:
    marker = ENVIRONMENT_MARKERS[environment]
    prefix = marker + secrets.token_hex(PREFIX_RANDOM_LENGTH // 2)
    key = f"{prefix}_{secrets.token_urlsafe(32)}"
    return GeneratedKey(key=key, prefix=prefix, hashed_key=hash_key(key))


def prefix_of(key: str) -> str | None:
    """The public prefix (`sk_stag_1a2b3c4d`) of a well-formed key, else None."""
    prefix_length = len("sk_stag_") + PREFIX_RANDOM_LENGTH
    if key[:8] not in MARKER_ENVIRONMENTS or len(key) <= prefix_length + 1:
        return None
    if key[prefix_length] != "_":
        return None
    return key[:prefix_length]


def environment_of(prefix: str) -> str:
    return MARKER_ENVIRONMENTS[prefix[:8]]


def key_matches(key: str, hashed_key: str) -> bool:
    return constant_time_compare(hash_key(key), hashed_key)
