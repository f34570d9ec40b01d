"""WSGI entry point for gunicorn."""

import os

from django.core.wsgi import get_wsgi_application

from assistant_api.head_responses import HeadWithoutBody
from assistant_api.request_body import RequestBodyMiddleware

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "assistant_api.settings")

application = HeadWithoutBody(RequestBodyMiddleware(get_wsgi_application()))
