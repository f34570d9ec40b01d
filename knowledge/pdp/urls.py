"""Routes of the public PDP endpoints, with their full paths (see chats/urls.py)."""

from django.urls import path

from assistant_api.openapi import documented_as
from knowledge.pdp.openapi import PdpQuestionSetDescription
from knowledge.pdp.views import PdpQuestionSetViewSet, question_set_public

urlpatterns = [
    path(
        "v1/knowledge/pdp-questions/<str:organizationId>/public",
        documented_as(PdpQuestionSetDescription, question_set_public),
        name="pdp-questions-public",
    ),
    path(
        "v1/knowledge/pdp-questions/public/get-questions",
        PdpQuestionSetViewSet.as_view({"post": "get_questions"}),
        name="pdp-questions-body-form",
    ),
]
