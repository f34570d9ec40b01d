"""A URL conf for tests that adds views failing on purpose, to prove the 500/503 shape."""

from django.db import OperationalError
from django.urls import path
from rest_framework.decorators import api_view, authentication_classes, permission_classes

from assistant_api.urls import urlpatterns as real_urlpatterns


@api_view(["GET"])
@authentication_classes([])
@permission_classes([])
def explode(request):
    raise RuntimeError("secret detail: password=hunter2 at /srv/app.py")


@api_view(["GET"])
@authentication_classes([])
@permission_classes([])
def database_down(request):
    raise OperationalError('connection to server at "db.internal" failed')


def plain_explode(request):
    raise KeyError("plain view failure")


urlpatterns = [
    path("test/explode", explode),
    path("test/database-down", database_down),
    path("test/plain-explode", plain_explode),
    *real_urlpatterns,
]
