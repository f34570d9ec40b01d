"""Production settings plus the PDP benchmark's baseline view (never in the production URLconf)."""

from assistant_api.settings import *  # noqa: F403

ROOT_URLCONF = "bench.pdp_urls"
