"""Feed credentials encrypted at rest with Fernet, keyed from SECRET_KEY.

A key listed in SECRET_KEY_FALLBACKS still decrypts, so rotating SECRET_KEY the way Django
documents keeps stored credentials readable; once the old key is dropped they must be entered
again.
"""

from __future__ import annotations

import base64

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.conf import settings
from django.utils.crypto import salted_hmac

_SALT = "knowledge.sources.credentials"


class UnreadableSecret(Exception):
    """Stored under a SECRET_KEY this deployment no longer has."""


def _fernet() -> MultiFernet:
    keys = [settings.SECRET_KEY, *getattr(settings, "SECRET_KEY_FALLBACKS", [])]
    return MultiFernet(
        [
            Fernet(
                base64.urlsafe_b64encode(
                    salted_hmac(_SALT, "fernet", secret=key, algorithm="sha256").digest()
                )
            )
            for key in keys
        ]
    )


def secret_encrypt(secret: str) -> str:
    return _fernet().encrypt(secret.encode()).decode() if secret else ""


def secret_decrypt(token: str) -> str:
    if not token:
        return ""
    try:
        return _fernet().decrypt(token.encode()).decode()
    except InvalidToken as exc:
        raise UnreadableSecret(
            "the feed's credentials cannot be decrypted (SECRET_KEY changed): enter them again"
        ) from exc
