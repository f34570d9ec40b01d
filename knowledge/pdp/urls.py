"""Routes of the public PDP endpoints, with their full paths (see chats/urls.py)."""

from django.urls import path

from knowledge.pdp.views import PdpQuestionSetViewSet

urlpatterns = [
    path(
        "v1/knowledge/pdp-questions/<str:organizationId>/public",
        PdpQuestionSetViewSet.as_view({"get": "public"}),
        name="pdp-questions-public",
    ),
    path(
        "v1/knowledge/pdp-questions/public/get-questions",
        PdpQuestionSetViewSet.as_view({"post": "get_questions"}),
        name="pdp-questions-body-form",
    ),
]
