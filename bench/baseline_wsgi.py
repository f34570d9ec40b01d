"""WSGI entry of the benchmark: the production application, plus the baseline without middleware.

`/bench/baseline` (the stack's own limit) and the floors under `/bench/floor/`
(bench/overall/floors.py) go to a Django handler built with no middleware; every other path
goes to the production application, unchanged, in the same worker processes, so the baseline,
the floors and the endpoints share one server configuration and one run.
"""

import os

os.environ["DJANGO_SETTINGS_MODULE"] = "bench.overall.settings"

from django.core.handlers.wsgi import WSGIHandler
from django.test.utils import override_settings

from assistant_api.wsgi import application as api

BARE_PREFIX = "/bench/"  # the baseline and the floors

with override_settings(MIDDLEWARE=[]):
    baseline = WSGIHandler()


def application(environ, start_response):
    handler = baseline if environ.get("PATH_INFO", "").startswith(BARE_PREFIX) else api
    return handler(environ, start_response)
