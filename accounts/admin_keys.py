"""Admin pages of API keys: issued from the add form and shown once, revoked after a
confirmation, never edited back to life and never deleted (their prefix stays on record)."""

from __future__ import annotations

import uuid

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.core.exceptions import PermissionDenied
from django.db.models import Q, QuerySet
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html

from accounts.models import ApiKey, Scope
from accounts.services import api_key_issue, api_key_revoke

# The add form's one-time token -> the key it issued, in the operator's session: a resubmitted
# form (a reload of the page that showed the key) must not issue a second key.
ISSUED_BY_TOKEN = "apikey_issued_by_token"
MAX_REMEMBERED_TOKENS = 50

ACTIVE, REVOKED, EXPIRED = "active", "revoked", "expired"
STATUS_LABELS = {ACTIVE: "Active", REVOKED: "Revoked", EXPIRED: "Expired"}


def api_key_status(api_key: ApiKey) -> str:
    if api_key.is_revoked:
        return REVOKED
    return EXPIRED if api_key.is_expired() else ACTIVE


class ApiKeyForm(forms.ModelForm):
    issue_token = forms.CharField(
        widget=forms.HiddenInput, initial=lambda: uuid.uuid4().hex, required=False
    )

    scope = forms.ChoiceField(
        choices=Scope.choices,
        initial=Scope.CHAT,
        required=False,
        help_text="Chat: the chat operations. Catalog: the catalog API (product and stock updates).",
    )

    class Meta:
        model = ApiKey
        fields = ["organization", "environment", "scope", "name", "expires_at"]

    def clean_scope(self) -> str:
        return self.cleaned_data.get("scope") or Scope.CHAT

    def clean_expires_at(self):
        expires_at = self.cleaned_data.get("expires_at")
        if self.instance._state.adding and expires_at is not None and expires_at <= timezone.now():
            raise forms.ValidationError("A new key must expire in the future (or never).")
        return expires_at


class StatusFilter(admin.SimpleListFilter):
    title = "status"
    parameter_name = "status"

    def lookups(self, request: HttpRequest, model_admin):
        return list(STATUS_LABELS.items())

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        now = timezone.now()
        expired = Q(expires_at__isnull=False, expires_at__lte=now)
        if self.value() == ACTIVE:
            return queryset.filter(revoked_at__isnull=True).exclude(expired)
        if self.value() == REVOKED:
            return queryset.filter(revoked_at__isnull=False)
        if self.value() == EXPIRED:
            return queryset.filter(expired, revoked_at__isnull=True)
        return queryset


@admin.register(ApiKey)
class ApiKeyAdmin(admin.ModelAdmin):
    """Keys are shown in full once, on the page that answers their creation, never again."""

    form = ApiKeyForm

    # Status first: at 1366 px the columns after the name are the ones scrolled out of view.
    list_display = [
        "prefix",
        "status",
        "organization",
        "environment",
        "scope",
        "name",
        "last_used_at",
        "expires_at",
        "created_at",
    ]
    list_filter = [StatusFilter, "environment", "scope", "organization"]
    search_fields = ["prefix", "name", "organization__name"]
    list_select_related = ["organization"]
    actions = ["revoke_selected"]

    def get_fields(self, request: HttpRequest, obj: ApiKey | None = None) -> tuple[str, ...]:
        if obj is None:
            return ("organization", "environment", "scope", "name", "expires_at", "issue_token")
        return (
            "prefix",
            "status",
            "organization",
            "environment",
            "scope",
            "name",
            "expires_at",
            "created_at",
            "last_used_at",
            "revoked_at",
        )

    def get_readonly_fields(self, request: HttpRequest, obj: ApiKey | None = None) -> list[str]:
        if obj is None:
            return []
        return [
            "prefix",
            "status",
            "organization",
            "environment",
            "scope",
            "created_at",
            "last_used_at",
            "revoked_at",
        ]

    def has_change_permission(self, request: HttpRequest, obj: ApiKey | None = None) -> bool:
        # A revoked key is final: it cannot be edited back to life.
        if obj is not None and obj.is_revoked:
            return False
        return super().has_change_permission(request, obj)

    def has_delete_permission(self, request: HttpRequest, obj: ApiKey | None = None) -> bool:
        return False  # revoked instead: the record of who had which prefix stays

    def get_actions(self, request: HttpRequest):
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)
        return actions

    @admin.display(description="Status", ordering="revoked_at")
    def status(self, obj: ApiKey) -> str:
        state = api_key_status(obj)
        return format_html('<span class="key-status key-{}">{}</span>', state, STATUS_LABELS[state])

    def get_urls(self):
        own = [
            path(
                "<path:object_id>/revoke/",
                self.admin_site.admin_view(self.revoke_view),
                name="accounts_apikey_revoke",
            )
        ]
        return own + super().get_urls()

    def change_view(self, request: HttpRequest, object_id: str, form_url="", extra_context=None):
        api_key = self.get_object(request, object_id)
        can_revoke = (
            api_key is not None
            and not api_key.is_revoked
            and self.has_change_permission(request, api_key)
        )
        extra = {"revoke_url": reverse("admin:accounts_apikey_revoke", args=[object_id])}
        return super().change_view(
            request, object_id, form_url, {**(extra_context or {}), **(extra if can_revoke else {})}
        )

    def revoke_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        """The confirmation page of one key's revocation (its change page links here)."""
        api_key = self.get_object(request, object_id)
        if api_key is None:
            raise Http404
        if not self.has_change_permission(request, api_key):
            raise PermissionDenied
        queryset = ApiKey.objects.filter(pk=api_key.pk)
        if request.method == "POST" and request.POST.get("post") == "yes":
            self._revoke(request, queryset)
            return HttpResponseRedirect(reverse("admin:accounts_apikey_changelist"))
        return self._confirm_revoke(request, queryset, single=True)

    @admin.action(description="Revoke selected API keys", permissions=["change"])
    def revoke_selected(self, request: HttpRequest, queryset) -> HttpResponse | None:
        if request.POST.get("post") != "yes":
            return self._confirm_revoke(request, queryset, single=False)
        self._revoke(request, queryset)
        return None

    def _revoke(self, request: HttpRequest, queryset) -> None:
        count = 0
        for api_key in queryset.filter(revoked_at__isnull=True):
            api_key_revoke(prefix=api_key.prefix)
            count += 1
        self.message_user(request, f"Revoked {count} API key(s).", messages.SUCCESS)

    def _confirm_revoke(self, request: HttpRequest, queryset, *, single: bool) -> HttpResponse:
        keys = list(queryset.select_related("organization"))
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": "Revoke API key?" if single else "Revoke API keys?",
            "keys": keys,
            "active": [key for key in keys if not key.is_revoked],
            "single": single,
            "action_checkbox_name": ACTION_CHECKBOX_NAME,
        }
        return TemplateResponse(request, "admin/accounts/apikey/revoke_confirm.html", context)

    def save_model(self, request: HttpRequest, obj: ApiKey, form, change: bool) -> None:
        if change:
            super().save_model(request, obj, form, change)
            return
        issued = api_key_issue(
            organization=obj.organization,
            environment=obj.environment,
            scope=obj.scope,
            name=obj.name,
            expires_at=obj.expires_at,
        )
        obj.pk = issued.api_key.pk
        obj.prefix = issued.api_key.prefix
        request._issued_key = issued.key  # type: ignore[attr-defined]
        token = form.cleaned_data.get("issue_token")
        if token:
            issued_by_token = request.session.get(ISSUED_BY_TOKEN, {})
            issued_by_token[token] = str(obj.pk)
            remembered = list(issued_by_token.items())[-MAX_REMEMBERED_TOKENS:]
            request.session[ISSUED_BY_TOKEN] = dict(remembered)

    def add_view(self, request: HttpRequest, form_url: str = "", extra_context=None):
        if request.method == "POST":
            token = request.POST.get("issue_token")
            issued_pk = request.session.get(ISSUED_BY_TOKEN, {}).get(token) if token else None
            if issued_pk is not None:
                return self._already_issued(request, issued_pk)
        return super().add_view(request, form_url, extra_context)

    def _already_issued(self, request: HttpRequest, issued_pk: str) -> HttpResponse:
        """The answer to the same add form sent again: the key it issued, not a second one."""
        api_key = ApiKey.objects.filter(pk=issued_pk).select_related("organization").first()
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "api_key": api_key,
            "title": "API key already issued",
        }
        return TemplateResponse(request, "admin/accounts/apikey/already_issued.html", context)

    def response_add(
        self, request: HttpRequest, obj: ApiKey, post_url_continue=None
    ) -> HttpResponse:
        # Rendered directly (no redirect, no session message) so the key is never stored.
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "api_key": obj,
            "full_key": request._issued_key,  # type: ignore[attr-defined]
            "title": "API key created",
        }
        response = TemplateResponse(request, "admin/accounts/apikey/created.html", context)
        response["Cache-Control"] = "no-store"
        return response
