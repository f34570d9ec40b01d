"""Routes of the public PDP endpoints, mounted under /v1/knowledge/."""

from django.urls import path

from knowledge.pdp.views import PdpQuestionSetViewSet

urlpatterns = [
    path(
        "pdp-questions/<str:organizationId>/public",
        PdpQuestionSetViewSet.as_view({"get": "public"}),
        name="pdp-questions-public",
    ),
    path(
        "pdp-questions/public/get-questions",
        PdpQuestionSetViewSet.as_view({"post": "get_questions"}),
        name="pdp-questions-body-form",
    ),
]
