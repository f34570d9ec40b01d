"""System checks that refuse an unsafe production configuration."""

from __future__ import annotations

from django.conf import settings
from django.core.checks import CheckMessage, Error, Warning, register

from accounts.keys import ENVIRONMENT_MARKERS
from assistant_api.throttling import parse_rate


@register("assistant", deploy=False)
def check_environment(app_configs, **kwargs) -> list[CheckMessage]:
    problems: list[CheckMessage] = []
    if settings.ASSISTANT_ENVIRONMENT not in ENVIRONMENT_MARKERS:
        problems.append(
            Error(
                f"ASSISTANT_ENVIRONMENT must be one of {sorted(ENVIRONMENT_MARKERS)}",
                id="assistant.E001",
            )
        )
    if not settings.DEBUG and "insecure" in settings.SECRET_KEY:
        problems.append(
            Error("SECRET_KEY is the development key while DEBUG is off", id="assistant.E002")
        )
    if (
        not settings.DEBUG
        and "*" in settings.ALLOWED_HOSTS
        and settings.ASSISTANT_ENVIRONMENT == "production"
    ):
        problems.append(Error("ALLOWED_HOSTS must not be '*' in production", id="assistant.E003"))
    for name in ("RATE_LIMIT_PER_KEY", "RATE_LIMIT_PUBLIC"):
        try:
            parse_rate(getattr(settings, name))
        except ValueError as exc:
            problems.append(Error(f"{name}: {exc}", id="assistant.E005"))
    if settings.ASSISTANT_ENVIRONMENT == "production" and settings.DEMO_SHOP:
        # Its session endpoint mints a client token for anyone who asks.
        problems.append(Error("DEMO_SHOP must be off in production", id="assistant.E006"))
    if settings.ASSISTANT_ENVIRONMENT == "production" and settings.DEBUG:
        problems.append(Error("DEBUG must be off in production", id="assistant.E004"))
    if settings.ASSISTANT_ENVIRONMENT == "production" and not settings.DATABASES["default"][
        "ENGINE"
    ].endswith("postgresql"):
        problems.append(
            Warning("Production should run on PostgreSQL (set DATABASE_URL)", id="assistant.W001")
        )
    return problems
