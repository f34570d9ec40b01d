"""Admin console for operators: organizations, chatbots and API keys."""

from __future__ import annotations

import uuid

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html

from accounts.models import ApiKey, Chatbot, Organization, Scope
from accounts.origins import allowed_origins_clean
from accounts.services import api_key_issue, api_key_revoke
from accounts.usage_report import HIGHLIGHT_SHARE, usage_csv, usage_report, with_month_messages


# Organizations and chatbots cannot be deleted here: their chats, catalog imports and keys are
# kept (those admins refuse deletion), so the delete page could only ever refuse. Chatbots are
# deactivated and keys revoked instead.
class ChatbotInline(admin.TabularInline):
    model = Chatbot
    extra = 0
    can_delete = False
    fields = ["name", "is_active", "greeting", "max_products", "engine"]
    show_change_link = True


class OrganizationForm(forms.ModelForm):
    class Meta:
        model = Organization
        fields = ["name", "monthly_quota", "allowed_origins"]

    def clean_allowed_origins(self) -> list[str]:
        return allowed_origins_clean(self.cleaned_data.get("allowed_origins"))


@admin.register(Organization)
class OrganizationAdmin(admin.ModelAdmin):
    form = OrganizationForm

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return False  # see ChatbotInline

    list_display = ["name", "quota_display", "month_usage", "usage_link", "id", "created_at"]
    search_fields = ["name", "=id"]
    readonly_fields = ["id", "created_at"]
    fields = ["id", "name", "monthly_quota", "allowed_origins", "created_at"]
    inlines = [ChatbotInline]

    @admin.display(description="Monthly quota", ordering="monthly_quota")
    def quota_display(self, obj: Organization) -> str:
        return "unlimited" if obj.monthly_quota is None else f"{obj.monthly_quota:,}"

    def get_queryset(self, request: HttpRequest):
        return with_month_messages(super().get_queryset(request))

    @admin.display(description="Used this month", ordering="month_messages")
    def month_usage(self, obj: Organization) -> str:
        used = obj.month_messages  # type: ignore[attr-defined]
        if obj.monthly_quota is None:
            return f"{used:,}"
        share = 1.0 if obj.monthly_quota == 0 else used / obj.monthly_quota
        text = f"{used:,} ({share:.0%})"
        if share >= HIGHLIGHT_SHARE:
            return format_html(
                '<strong class="usage-high" style="color:#ba2121">{} ⚠</strong>', text
            )
        return text

    @admin.display(description="Usage")
    def usage_link(self, obj: Organization) -> str:
        return format_html(
            '<a href="{}">Usage</a>', reverse("admin:accounts_organization_usage", args=[obj.pk])
        )

    def get_urls(self):
        own = [
            path(
                "<path:object_id>/usage/",
                self.admin_site.admin_view(self.usage_view),
                name="accounts_organization_usage",
            ),
            path(
                "<path:object_id>/usage.csv",
                self.admin_site.admin_view(self.usage_csv_view),
                name="accounts_organization_usage_csv",
            ),
        ]
        return own + super().get_urls()

    def _organization_or_404(self, request: HttpRequest, object_id: str) -> Organization:
        if not self.has_view_permission(request):
            raise PermissionDenied
        organization = self.get_object(request, object_id)
        if organization is None:
            raise Http404
        return organization

    def usage_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        organization = self._organization_or_404(request, object_id)
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "original": organization,
            "title": f"Usage of {organization.name}",
            **usage_report(organization=organization),
        }
        return TemplateResponse(request, "admin/accounts/organization/usage.html", context)

    def usage_csv_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        organization = self._organization_or_404(request, object_id)
        response = HttpResponse(usage_csv(organization=organization), content_type="text/csv")
        response["Content-Disposition"] = f'attachment; filename="usage-{organization.pk}.csv"'
        return response


@admin.register(Chatbot)
class ChatbotAdmin(admin.ModelAdmin):
    list_display = ["name", "organization", "is_active", "engine", "id", "created_at"]
    list_filter = ["is_active", "organization"]
    search_fields = ["name", "=id", "organization__name"]
    list_select_related = ["organization"]

    def get_readonly_fields(self, request: HttpRequest, obj: Chatbot | None = None) -> list[str]:
        # Not on the add page: it would show the id and time of an instance never saved.
        return ["id", "created_at"] if obj is not None else []

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return False  # see ChatbotInline


# The add form's one-time token -> the key it issued, in the operator's session: a resubmitted
# form (a reload of the page that showed the key) must not issue a second key.
ISSUED_BY_TOKEN = "apikey_issued_by_token"
MAX_REMEMBERED_TOKENS = 50


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


@admin.register(ApiKey)
class ApiKeyAdmin(admin.ModelAdmin):
    """Keys are shown in full once, on the page that answers their creation, never again."""

    form = ApiKeyForm

    list_display = [
        "prefix",
        "organization",
        "environment",
        "scope",
        "name",
        "created_at",
        "last_used_at",
        "expires_at",
        "revoked",
    ]
    list_filter = [
        "environment",
        "scope",
        ("revoked_at", admin.EmptyFieldListFilter),
        "organization",
    ]
    search_fields = ["prefix", "name", "organization__name"]
    list_select_related = ["organization"]
    actions = ["revoke_selected"]

    def get_fields(self, request: HttpRequest, obj: ApiKey | None = None) -> list[str]:
        if obj is None:
            return ["organization", "environment", "scope", "name", "expires_at", "issue_token"]
        return [
            "prefix",
            "organization",
            "environment",
            "scope",
            "name",
            "expires_at",
            "created_at",
            "last_used_at",
            "revoked_at",
        ]

    def get_readonly_fields(self, request: HttpRequest, obj: ApiKey | None = None) -> list[str]:
        if obj is None:
            return []
        return [
            "prefix",
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

    @admin.display(boolean=True, description="Revoked", ordering="revoked_at")
    def revoked(self, obj: ApiKey) -> bool:
        return obj.is_revoked

    def save_model(self, request: HttpRequest, obj: ApiKey, form, change: bool) -> None:
        if change:
            super().save_model(request, obj, form, change)
            return
        issued = api_key_issue(
            organization=obj.organization,
            environment=obj.environment,
            name=obj.name,
            expires_at=obj.expires_at,
            scope=obj.scope,
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

    @admin.action(description="Revoke selected API keys", permissions=["change"])
    def revoke_selected(self, request: HttpRequest, queryset) -> None:
        count = 0
        for api_key in queryset.filter(revoked_at__isnull=True):
            api_key_revoke(prefix=api_key.prefix)
            count += 1
        self.message_user(request, f"Revoked {count} API key(s).", messages.SUCCESS)
