"""Organizations, their chatbots and API keys."""

from __future__ import annotations

import uuid

from django.db import models
from django.utils import timezone

# The languages the assistant serves (knowledge/language), as catalogs and storefronts choose them.
LANGUAGES = [
    ("en", "English"),
    ("fr", "French"),
    ("de", "German"),
    ("es", "Spanish"),
    ("it", "Italian"),
]


class Organization(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    name = models.CharField(max_length=200, unique=True)
    monthly_quota = models.PositiveIntegerField(
        null=True, blank=True, help_text="Messages per calendar month (UTC). Empty means unlimited."
    )
    allowed_origins = models.JSONField(
        default=list,
        blank=True,
        help_text=(
            'Origins allowed to call the public PDP endpoints, e.g. ["https://shop.example"]. '
            "Empty allows any origin."
        ),
    )
    retention_days = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text=(
            "Chats started more than this many days ago are deleted by purge_expired (daily). "
            "Empty keeps them forever."
        ),
    )
    language = models.CharField(
        max_length=2,
        choices=LANGUAGES,
        default="en",
        help_text=(
            "The language of the catalog's titles and descriptions: its words are searched "
            "with this language's stemming and stop words, and the assistant replies in it when "
            "a message is too short to tell the shopper's language."
        ),
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Chatbot(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    organization = models.ForeignKey(
        Organization, on_delete=models.CASCADE, related_name="chatbots"
    )
    name = models.CharField(max_length=200)
    greeting = models.TextField(blank=True, help_text="First message of every new chat, if set.")
    is_active = models.BooleanField(default=True)
    max_products = models.PositiveSmallIntegerField(
        default=4, help_text="Most products recommended in one reply."
    )
    engine = models.CharField(
        max_length=20,
        blank=True,
        choices=[
            ("", "Deployment default (ASSISTANT_ENGINE)"),
            ("catalog", "Catalog"),
            ("openai", "OpenAI-compatible model"),
        ],
        help_text="Assistant engine for this chatbot; empty uses the deployment's ASSISTANT_ENGINE.",
    )
    system_prompt = models.TextField(
        blank=True, help_text="Instructions for a language-model engine; empty uses the default."
    )
    language = models.CharField(
        max_length=2,
        blank=True,
        choices=[("", "The organization's"), *LANGUAGES],
        help_text=(
            "The shoppers' language where this chatbot is shown (a storefront in German): the "
            'assistant replies in it when a message is too short to tell ("ok", "Tablets") '
            "and the chat has no language yet. Empty uses the organization's language."
        ),
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        ordering = ["organization__name", "name"]

    def __str__(self) -> str:
        return self.name


class Environment(models.TextChoices):
    STAGING = "staging", "Staging"
    PRODUCTION = "production", "Production"


class Scope(models.TextChoices):
    """What a key may do: chat (the chat operations) or catalog (the catalog API)."""

    CHAT = "chat", "Chat"
    CATALOG = "catalog", "Catalog"


class ApiKey(models.Model):
    """An issued key; only its public prefix and a SHA-512 hash of the whole key are kept."""

    organization = models.ForeignKey(
        Organization, on_delete=models.CASCADE, related_name="api_keys"
    )
    name = models.CharField(max_length=200, blank=True)
    environment = models.CharField(
        max_length=12, choices=Environment.choices, default=Environment.STAGING
    )
    scope = models.CharField(
        max_length=10,
        choices=Scope.choices,
        default=Scope.CHAT,
        help_text="Chat: the chat operations. Catalog: the catalog API (product and stock updates).",
    )
    prefix = models.CharField(max_length=32, unique=True, editable=False)
    hashed_key = models.CharField(max_length=128, editable=False)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    expires_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True, editable=False)
    last_used_at = models.DateTimeField(null=True, blank=True, editable=False)

    class Meta:
        ordering = ["-created_at"]
        verbose_name = "API key"

    def __str__(self) -> str:
        return f"{self.prefix}… ({self.name})" if self.name else f"{self.prefix}…"

    @property
    def is_revoked(self) -> bool:
        return self.revoked_at is not None

    def is_expired(self, now=None) -> bool:
        return self.expires_at is not None and self.expires_at <= (now or timezone.now())


class DailyUsage(models.Model):
    """What an organization used on one UTC day, per chatbot (chatbot null: not chat-bound)."""

    # Indexed by the unique constraints and usage_org_day (organization first).
    organization = models.ForeignKey(
        Organization, on_delete=models.CASCADE, related_name="daily_usage", db_index=False
    )
    chatbot = models.ForeignKey(
        Chatbot, on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    day = models.DateField()
    messages = models.PositiveIntegerField(default=0)
    chats = models.PositiveIntegerField(default=0)
    pdp_requests = models.PositiveIntegerField(default=0)

    class Meta:
        verbose_name_plural = "daily usage"
        constraints = [
            models.UniqueConstraint(
                fields=["organization", "chatbot", "day"], name="usage_org_bot_day_unique"
            ),
            # NULL chatbots are distinct in a plain unique constraint.
            models.UniqueConstraint(
                fields=["organization", "day"],
                condition=models.Q(chatbot__isnull=True),
                name="usage_org_day_unbound_unique",
            ),
        ]
        indexes = [models.Index(fields=["organization", "day"], name="usage_org_day")]

    def __str__(self) -> str:
        return f"{self.organization_id} {self.day}"
