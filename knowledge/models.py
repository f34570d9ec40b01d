"""The catalog (products, stores, local inventory) and the PDP question sets."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.core.validators import MinValueValidator
from django.db import models
from django.utils import timezone

from accounts.models import Organization


class Availability(models.TextChoices):
    IN_STOCK = "in_stock", "In stock"
    OUT_OF_STOCK = "out_of_stock", "Out of stock"
    PREORDER = "preorder", "Preorder"
    BACKORDER = "backorder", "Backorder"


class Product(models.Model):
    organization = models.ForeignKey(
        Organization, on_delete=models.CASCADE, related_name="products"
    )
    item_id = models.CharField("feed item id", max_length=150)
    gtin = models.CharField(max_length=50, blank=True)
    brand = models.CharField(max_length=200, blank=True)
    title = models.CharField(max_length=500)
    description = models.TextField(blank=True)
    url = models.URLField("canonical URL", max_length=2048)
    image_url = models.URLField(max_length=2048, blank=True)
    price = models.DecimalField("regular price", max_digits=12, decimal_places=2)
    sale_price = models.DecimalField(max_digits=12, decimal_places=2, null=True, blank=True)
    currency = models.CharField(max_length=3)
    price_info = models.CharField(max_length=200, blank=True)
    product_type = models.CharField(max_length=500, blank=True)
    google_product_category = models.CharField(max_length=500, blank=True)
    availability = models.CharField(
        max_length=12, choices=Availability.choices, default=Availability.IN_STOCK
    )
    quantity = models.IntegerField(null=True, blank=True)
    item_group_id = models.CharField(max_length=150, blank=True)
    color = models.CharField(max_length=100, blank=True)
    size = models.CharField(max_length=100, blank=True)
    material = models.CharField(max_length=200, blank=True)
    gender = models.CharField(max_length=20, blank=True)
    age_group = models.CharField(max_length=20, blank=True)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["title"]
        constraints = [
            models.UniqueConstraint(
                fields=["organization", "item_id"], name="product_org_item_unique"
            )
        ]
        indexes = [
            models.Index(fields=["organization", "url"], name="product_org_url"),
            models.Index(fields=["organization", "item_group_id"], name="product_org_group"),
        ]

    def __str__(self) -> str:
        return self.title

    @property
    def current_price(self):
        """The price the shopper pays now: the sale price when there is one
        (docs/api.md#product)."""
        return self.sale_price if self.sale_price is not None else self.price

    @property
    def category(self) -> str:
        return self.product_type or self.google_product_category


class Store(models.Model):
    organization = models.ForeignKey(Organization, on_delete=models.CASCADE, related_name="stores")
    code = models.CharField(max_length=100)
    name = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["code"]
        constraints = [
            models.UniqueConstraint(fields=["organization", "code"], name="store_org_code_unique")
        ]

    def __str__(self) -> str:
        return self.name or self.code


class StoreInventory(models.Model):
    product = models.ForeignKey(Product, on_delete=models.CASCADE, related_name="inventory")
    store = models.ForeignKey(Store, on_delete=models.CASCADE, related_name="inventory")
    availability = models.CharField(max_length=12, choices=Availability.choices)
    quantity = models.IntegerField(null=True, blank=True)
    # Extra columns of the local inventory feed, in feed order: [{"key": ..., "value": ...}].
    location = models.JSONField(default=list, blank=True)

    class Meta:
        verbose_name_plural = "store inventory"
        constraints = [
            models.UniqueConstraint(
                fields=["product", "store"], name="inventory_product_store_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.product_id} @ {self.store_id}: {self.availability}"


# A store row a shopper can buy from now: the stores "Which stores have it in stock?" lists
# (knowledge/engines/catalog/replies_product.py), and whether a PDP asks it at all.
IN_STORE_STOCK = models.Q(availability=Availability.IN_STOCK, quantity__gt=0)


def in_store_stock(availability: str, quantity: int | None) -> bool:
    """IN_STORE_STOCK of one row's values."""
    return availability == Availability.IN_STOCK and (quantity or 0) > 0


class SearchTerm(models.Model):
    """A word of an organization's catalog (titles, brands, categories), for typo correction."""

    organization = models.ForeignKey(
        Organization, on_delete=models.CASCADE, related_name="search_terms"
    )
    term = models.CharField(max_length=40)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["organization", "term"], name="search_term_unique")
        ]

    def __str__(self) -> str:
        return self.term


class CatalogVersion(models.Model):
    """Changes whenever the words of an organization's catalog may have changed (a product
    added, removed, or its brand or category changed; any import): workers keep those words
    (knowledge/engines/catalog/vocabulary.py) until it changes."""

    organization = models.OneToOneField(
        Organization, on_delete=models.CASCADE, primary_key=True, related_name="+"
    )
    stamp = models.UUIDField(default=uuid.uuid4)

    def __str__(self) -> str:
        return str(self.stamp)


class ImportStatus(models.TextChoices):
    SUCCEEDED = "succeeded", "Succeeded"
    FAILED = "failed", "Failed"


class ImportRun(models.Model):
    """One catalog import (command line or admin form) and what it did: the import history."""

    organization = models.ForeignKey(
        Organization, on_delete=models.CASCADE, related_name="import_runs"
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        help_text="Who imported from the admin console; empty for the command line.",
    )
    source = models.CharField(max_length=10, default="cli")  # "cli", "admin" or "sync"
    feed_name = models.CharField("feed file", max_length=255, blank=True)
    inventory_name = models.CharField("inventory file", max_length=255, blank=True)
    stores_name = models.CharField("stores file", max_length=255, blank=True)
    full = models.BooleanField(default=False, help_text="Removed items missing from the feed.")
    strict = models.BooleanField(default=False)
    status = models.CharField(max_length=10, choices=ImportStatus.choices)
    created = models.PositiveIntegerField(default=0)
    updated = models.PositiveIntegerField(default=0)
    removed = models.PositiveIntegerField(default=0)
    error_count = models.PositiveIntegerField(default=0)
    warning_count = models.PositiveIntegerField(default=0)
    # The summary as printed by `import_catalog --json` (errors and warnings capped).
    summary = models.JSONField(default=dict, blank=True)
    started_at = models.DateTimeField(default=timezone.now, editable=False)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-started_at", "-id"]
        verbose_name = "catalog import"

    def __str__(self) -> str:
        return f"{self.feed_name or 'import'} ({self.started_at:%Y-%m-%d %H:%M})"


class FeedAuth(models.TextChoices):
    NONE = "", "None"
    BASIC = "basic", "HTTP basic auth (user name and password)"
    HEADER = "header", "A header carrying a secret"


class FeedSource(models.Model):
    """Where an organization's feeds are fetched from, and how often (`sync_catalogs`)."""

    organization = models.OneToOneField(
        Organization, on_delete=models.CASCADE, primary_key=True, related_name="feed_source"
    )
    products_url = models.URLField("product feed URL", max_length=2048)
    stores_url = models.URLField("stores feed URL", max_length=2048, blank=True)
    inventory_url = models.URLField("local inventory feed URL", max_length=2048, blank=True)
    auth = models.CharField(max_length=10, choices=FeedAuth.choices, blank=True)
    username = models.CharField(max_length=200, blank=True, help_text="For basic auth.")
    header_name = models.CharField(
        max_length=100, blank=True, help_text="For a header secret, e.g. X-Feed-Token."
    )
    # The password or header value, encrypted (knowledge/sources/credentials.py).
    secret_encrypted = models.TextField(blank=True, editable=False)
    every_minutes = models.PositiveIntegerField(
        default=60,
        validators=[MinValueValidator(1)],
        help_text="Fetch the feeds every this many minutes.",
    )
    full = models.BooleanField(
        default=True, help_text="Remove the organization's items missing from the product feed."
    )
    enabled = models.BooleanField(default=True)
    # The schedule when there is no Redis to keep it (knowledge/sources/schedule.py).
    next_fetch_at = models.DateTimeField(default=timezone.now)
    checked_at = models.DateTimeField(null=True, blank=True, editable=False)
    # Per feed ("products", "stores", "inventory"): the URL, ETag and Last-Modified of the
    # version last imported, sent back so an unchanged feed answers 304.
    cache_validators = models.JSONField(default=dict, blank=True, editable=False)

    class Meta:
        verbose_name = "catalog feed source"

    def __str__(self) -> str:
        return self.products_url


class PdpQuestionSet(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    organization = models.ForeignKey(
        Organization, on_delete=models.CASCADE, related_name="question_sets"
    )
    url = models.URLField("canonical URL", max_length=2048)
    product_title = models.CharField(max_length=500, null=True, blank=True)
    requests = models.PositiveBigIntegerField(default=0)
    generated = models.BooleanField(
        default=True,
        help_text=(
            "The questions are as generated from the catalog, and follow its changes; "
            "an operator's edit keeps them as edited."
        ),
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name = "PDP question set"
        constraints = [
            models.UniqueConstraint(
                fields=["organization", "url"], name="question_set_org_url_unique"
            )
        ]

    def __str__(self) -> str:
        return self.url


class PdpQuestion(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    question_set = models.ForeignKey(
        PdpQuestionSet, on_delete=models.CASCADE, related_name="questions"
    )
    text = models.CharField(max_length=300)
    rank = models.PositiveSmallIntegerField()

    class Meta:
        ordering = ["rank"]
        verbose_name = "PDP question"

    def __str__(self) -> str:
        return self.text
