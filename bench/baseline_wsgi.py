"""WSGI entry of the benchmark: the production application, plus the baseline without middleware.

`/bench/baseline` goes to a Django handler built with no middleware (the stack's own limit,
issue 9); every other path goes to the production application, unchanged, in the same worker
processes, so the baseline and the endpoints share one server configuration and one run.
"""

import os

os.environ["DJANGO_SETTINGS_MODULE"] = "bench.overall.settings"

from django.core.handlers.wsgi import WSGIHandler
from django.core.wsgi import get_wsgi_application
from django.test.utils import override_settings

BASELINE_PATH = "/bench/baseline"

api = get_wsgi_application()
with override_settings(MIDDLEWARE=[]):
    baseline = WSGIHandler()


def application(environ, start_response):
    handler = baseline if environ.get("PATH_INFO") == BASELINE_PATH else api
    return handler(environ, start_response)
