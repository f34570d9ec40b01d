"""Admin console for operators: organizations, chatbots and API keys."""

from __future__ import annotations

from django import forms
from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html

from accounts import admin_keys  # noqa: F401  (registers the API keys' pages)
from accounts.models import Chatbot, Organization
from accounts.origins import allowed_origins_clean
from accounts.usage_report import HIGHLIGHT_SHARE, usage_csv, usage_report, with_month_messages


# Organizations and chatbots cannot be deleted here: their chats, catalog imports and keys are
# kept (those admins refuse deletion), so the delete page could only ever refuse. Chatbots are
# deactivated and keys revoked instead.
class ChatbotInline(admin.TabularInline):
    model = Chatbot
    extra = 0
    can_delete = False
    # The short fields only: the greeting and prompt are long text, edited on the chatbot's
    # own page (the link), so the organization page fits the screen.
    fields = ["name", "is_active", "max_products", "engine", "language"]
    show_change_link = True


class OrganizationForm(forms.ModelForm):
    class Meta:
        model = Organization
        fields = ["name", "language", "monthly_quota", "retention_days", "allowed_origins"]

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
    fields = [
        "id",
        "name",
        "language",
        "monthly_quota",
        "retention_days",
        "allowed_origins",
        "created_at",
    ]
    inlines = [ChatbotInline]

    @admin.display(description="Monthly quota", ordering="monthly_quota")
    def quota_display(self, obj: Organization) -> str:
        return "unlimited" if obj.monthly_quota is None else f"{obj.monthly_quota:,}"

    def change_view(self, request: HttpRequest, object_id: str, form_url="", extra_context=None):
        links = organization_links(object_id)
        return super().change_view(
            request, object_id, form_url, {**(extra_context or {}), "organization_links": links}
        )

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


def organization_links(organization_id: str) -> list[dict[str, str]]:
    """The organization's other pages: its lists filtered to it, its usage and insights."""
    by_organization = f"?organization__id__exact={organization_id}"
    lists = [
        ("API keys", "admin:accounts_apikey_changelist"),
        ("Chatbots", "admin:accounts_chatbot_changelist"),
        ("Catalog", "admin:knowledge_product_changelist"),
        ("Catalog imports", "admin:knowledge_importrun_changelist"),
        ("Chats", "admin:chats_chat_changelist"),
    ]
    links = [{"label": label, "url": reverse(name) + by_organization} for label, name in lists]
    for label, name in (
        ("Usage", "admin:accounts_organization_usage"),
        ("Insights", "admin:insights_organization"),
    ):
        links.append({"label": label, "url": reverse(name, args=[organization_id])})
    return links
