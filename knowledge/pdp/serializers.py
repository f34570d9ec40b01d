"""Request validation and the documented response shape of the public PDP endpoints
(docs/api.md#pdp-question-sets)."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from assistant_api.fields import StrictUUIDField
from knowledge.canonical import InvalidUrlError, canonicalize_url

INVALID_URL = "Must be an absolute http or https URL of at most 2048 characters."


@extend_schema_field(OpenApiTypes.URI)
class CanonicalUrlField(serializers.CharField):
    """A page URL, validated and turned into its canonical form (docs/api.md#url-canonical-form)."""

    default_error_messages = {"invalid_url": INVALID_URL}

    def to_internal_value(self, data) -> str:
        if not isinstance(data, str):
            self.fail("invalid_url")
        try:
            return canonicalize_url(data)
        except InvalidUrlError:
            self.fail("invalid_url")


class PdpQuestionsInput(serializers.Serializer):
    url = CanonicalUrlField(help_text="The product page URL; canonicalized before matching.")
    organizationId = StrictUUIDField()


class PdpQuestionSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    text = serializers.CharField()
    rank = serializers.IntegerField(min_value=1, help_text="1 is the highest priority.")


# Documents the body only: the views build it directly (selectors.FoundQuestionSet.body), and
# the tests check those bodies against this schema.
class PdpQuestionsSetSerializer(serializers.Serializer):
    """The suggested questions of one product page, ordered by rank."""

    id = serializers.UUIDField()
    organizationId = serializers.UUIDField()
    productTitle = serializers.CharField(allow_null=True, required=False)
    url = serializers.URLField(help_text="The canonical URL the set belongs to.")
    requests = serializers.IntegerField(
        required=False, help_text="How many times the set has been returned."
    )
    createdAt = serializers.DateTimeField()
    questions = PdpQuestionSerializer(many=True, help_text="Ordered by rank.")
