"""Routes of the public PDP endpoints, with their full paths (see chats/urls.py)."""

from django.urls import path

from assistant_api.plain_get import plain_get
from knowledge.pdp.views import PdpQuestionSetViewSet, public_set_plain

urlpatterns = [
    path(
        "v1/knowledge/pdp-questions/<str:organizationId>/public",
        plain_get(PdpQuestionSetViewSet.as_view({"get": "public"}), public_set_plain),
        name="pdp-questions-public",
    ),
    path(
        "v1/knowledge/pdp-questions/public/get-questions",
        PdpQuestionSetViewSet.as_view({"post": "get_questions"}),
        name="pdp-questions-body-form",
    ),
]
