"""Daily figures of what shoppers asked and how the assistant answered, per chatbot.

Computed from the chats by `refresh_insights` (insights/rollup.py), so the insights page reads
a year as a few hundred rows; they hold counts and catalog words only, no shopper's id, and
stay when chats are erased or purged. A conversation counts on the day (UTC) it started.
"""

from __future__ import annotations

from django.db import models
from django.utils import timezone

from accounts.models import Chatbot, Organization


class InsightDay(models.Model):
    organization = models.ForeignKey(Organization, on_delete=models.CASCADE, db_index=False)
    chatbot = models.ForeignKey(Chatbot, on_delete=models.CASCADE, db_index=False)
    day = models.DateField()
    conversations = models.PositiveIntegerField(default=0)
    shopper_messages = models.PositiveIntegerField(default=0)
    replies = models.PositiveIntegerField(default=0)
    replies_with_products = models.PositiveIntegerField(default=0)
    failed_replies = models.PositiveIntegerField(default=0)
    searches = models.PositiveIntegerField(default=0)
    empty_searches = models.PositiveIntegerField(default=0)
    feedback_up = models.PositiveIntegerField(default=0)
    feedback_down = models.PositiveIntegerField(default=0)
    refreshed_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name = "insights"
        verbose_name_plural = "insights"
        constraints = [
            models.UniqueConstraint(
                fields=["organization", "day", "chatbot"], name="insight_day_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.chatbot_id} {self.day}"


class TermKind(models.TextChoices):
    CATEGORY = "category", "Category"
    BRAND = "brand", "Brand"
    PRICE_BAND = "price_band", "Price band"
    LANGUAGE = "language", "Language"
    EMPTY_SEARCH = "empty_search", "Search that found nothing"
    PRODUCT = "product", "Recommended product"


class InsightTerm(models.Model):
    """How often one thing came up on a day: a category searched for, a product recommended,
    a search that found nothing (`key` the shopper's words, `detail` the filters)."""

    organization = models.ForeignKey(Organization, on_delete=models.CASCADE, db_index=False)
    chatbot = models.ForeignKey(Chatbot, on_delete=models.CASCADE, db_index=False)
    day = models.DateField()
    kind = models.CharField(max_length=20, choices=TermKind.choices)
    key = models.CharField(max_length=300)
    detail = models.CharField(max_length=300, blank=True)
    count = models.PositiveIntegerField()

    class Meta:
        indexes = [
            # The page reads one kind of a period at a time; the rollup replaces whole days.
            models.Index(fields=["organization", "kind", "day"], name="insight_term_org_kind_day"),
            models.Index(fields=["day"], name="insight_term_day"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.key}: {self.count}"
