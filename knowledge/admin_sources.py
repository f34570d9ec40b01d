"""Admin pages of the feed sources: each organization's feed URLs, credentials and schedule.

The password or header secret is write-only: the form never shows it (only whether one is
set), a blank field keeps the stored one, and it is stored encrypted. "Fetch now" runs the
same sync as `sync_catalogs` for the selected sources; the last and next fetch shown are the
schedule's (knowledge/sources/schedule.py).
"""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.http import HttpRequest
from django.utils import formats, timezone

from knowledge.models import FeedAuth, FeedSource
from knowledge.sources.credentials import secret_encrypt
from knowledge.sources.schedule import source_schedule
from knowledge.sources.sync import FAILED, catalog_sources_sync

SECRET_HELP = (
    "The basic auth password or the header's value. Never shown again: leave blank to keep "
    "the stored one."
)


class FeedSourceForm(forms.ModelForm):
    secret = forms.CharField(
        required=False,
        strip=False,
        widget=forms.PasswordInput(render_value=False, attrs={"autocomplete": "new-password"}),
        help_text=SECRET_HELP,
    )
    clear_secret = forms.BooleanField(required=False, help_text="Remove the stored secret.")

    class Meta:
        model = FeedSource
        fields = [
            "organization",
            "products_url",
            "stores_url",
            "inventory_url",
            "auth",
            "username",
            "header_name",
            "every_minutes",
            "full",
            "enabled",
        ]

    def clean(self):
        data = super().clean() or self.cleaned_data
        has_secret = bool(data.get("secret")) or (
            bool(self.instance.secret_encrypted) and not data.get("clear_secret")
        )
        if data.get("auth") == FeedAuth.HEADER and not data.get("header_name"):
            self.add_error("header_name", "A header secret needs the header's name.")
        if data.get("auth") == FeedAuth.BASIC and not data.get("username"):
            self.add_error("username", "Basic auth needs a user name.")
        if data.get("auth") and not has_secret:
            self.add_error("secret", "This authentication needs a secret.")
        return data

    def save(self, commit: bool = True) -> FeedSource:
        source = super().save(commit=False)
        if self.cleaned_data.get("clear_secret") or not self.cleaned_data.get("auth"):
            source.secret_encrypted = ""
        if self.cleaned_data.get("secret"):
            source.secret_encrypted = secret_encrypt(self.cleaned_data["secret"])
        if commit:
            source.save()
        return source


@admin.register(FeedSource)
class FeedSourceAdmin(admin.ModelAdmin):
    form = FeedSourceForm
    list_display = [
        "organization",
        "products_url",
        "every_minutes",
        "enabled",
        "last_fetch",
        "next_fetch",
    ]
    list_filter = ["enabled"]
    list_select_related = ["organization"]
    search_fields = ["organization__name", "products_url"]
    readonly_fields = ["secret_state", "last_fetch", "next_fetch"]
    fieldsets = [
        (None, {"fields": ["organization", "products_url", "stores_url", "inventory_url"]}),
        (
            "Authentication",
            {
                "fields": [
                    "auth",
                    "username",
                    "header_name",
                    "secret_state",
                    "secret",
                    "clear_secret",
                ]
            },
        ),
        (
            "Schedule",
            {"fields": ["every_minutes", "full", "enabled", "last_fetch", "next_fetch"]},
        ),
    ]
    actions = ["fetch_now"]

    @admin.display(description="Stored secret")
    def secret_state(self, source: FeedSource) -> str:
        return "set (hidden)" if source.secret_encrypted else "none"

    @admin.display(description="Last fetch started")
    def last_fetch(self, source: FeedSource) -> str:
        state = source_schedule(source, now=timezone.now())
        if state.checked_at is None:
            return "-"
        shown = formats.localize(timezone.localtime(state.checked_at))
        return f"{shown} (running)" if state.running else shown

    @admin.display(description="Next fetch")
    def next_fetch(self, source: FeedSource) -> str:
        state = source_schedule(source, now=timezone.now())
        if state.next_fetch_at is None:
            return "due now"
        return formats.localize(timezone.localtime(state.next_fetch_at))

    @admin.action(description="Fetch the selected feeds now", permissions=["change"])
    def fetch_now(self, request: HttpRequest, queryset) -> None:
        outcomes = catalog_sources_sync(sources=queryset.select_related("organization"))
        for outcome in outcomes:
            level = messages.ERROR if outcome.status == FAILED else messages.SUCCESS
            self.message_user(
                request, f"{outcome.organization}: {outcome.status}. {outcome.message}", level
            )
