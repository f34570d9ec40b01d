"""Production settings plus the bench-only baseline URL (never in the production URLconf)."""

from assistant_api.settings import *  # noqa: F403

ROOT_URLCONF = "bench.overall.urls"
