"""What a locked-out admin sign-in gets (django-axes; settings `AXES_*`).

Like every error of the service (docs/api.md#errors), a JSON body and, being a 429, `Retry-After`:
the whole lockout, since each attempt while locked out starts it again.
"""

from __future__ import annotations

from axes.helpers import get_client_username
from django.conf import settings
from django.http import HttpRequest, HttpResponse

from assistant_api.middleware import json_error

LOCKED_OUT = (
    "Too many failed sign-ins for {username} from this address: signing in is locked for "
    "{minutes} minutes. An operator can lift the lock in the admin (Axes, Access attempts) "
    "or with `manage.py axes_reset_username`."
)


def locked_out_response(
    request: HttpRequest, original_response: HttpResponse | None, credentials: dict | None
) -> HttpResponse:
    seconds = int(settings.AXES_COOLOFF_TIME.total_seconds())
    username = get_client_username(request, credentials) or "this username"
    response = json_error(429, LOCKED_OUT.format(username=username, minutes=seconds // 60))
    response["Retry-After"] = str(seconds)
    return response
