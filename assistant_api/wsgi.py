"""WSGI entry point for gunicorn."""

import os

from django.core.wsgi import get_wsgi_application

from assistant_api.chunked_body import ChunkedBodyMiddleware
from assistant_api.head_responses import HeadWithoutBody

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "assistant_api.settings")

application = HeadWithoutBody(ChunkedBodyMiddleware(get_wsgi_application()))
