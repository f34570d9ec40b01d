"""The insights pages of the console: an index of organizations, and per organization (and
chatbot) a period's figures, charts and tables, each table also as CSV."""

from __future__ import annotations

import datetime as dt

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import path

from accounts.models import Chatbot, Organization
from assistant_api.csv_export import csv_text
from chats.admin import ReadOnlyAdmin
from insights.models import InsightDay
from insights.report import insights_report, insights_table, period_from


@admin.register(InsightDay)
class InsightsAdmin(ReadOnlyAdmin):
    def get_urls(self):
        return [
            path(
                "organization/<uuid:organization_id>/",
                self.admin_site.admin_view(self.organization_view),
                name="insights_organization",
            ),
            path(
                "organization/<uuid:organization_id>/<slug:table>.csv",
                self.admin_site.admin_view(self.csv_view),
                name="insights_organization_csv",
            ),
            *super().get_urls(),
        ]

    def changelist_view(self, request: HttpRequest, extra_context=None) -> HttpResponse:
        """The index: each organization and its chatbots, linking to their insights."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        organizations = Organization.objects.order_by("name").prefetch_related("chatbots")
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": "Insights",
            "organizations": organizations,
        }
        return TemplateResponse(request, "admin/insights/index.html", context)

    def _organization(self, request: HttpRequest, organization_id) -> Organization:
        if not self.has_view_permission(request):
            raise PermissionDenied
        organization = Organization.objects.filter(pk=organization_id).first()
        if organization is None:
            raise Http404
        return organization

    def organization_view(self, request: HttpRequest, organization_id) -> HttpResponse:
        organization = self._organization(request, organization_id)
        period = period_from(request.GET, today=dt.datetime.now(dt.UTC).date())
        chatbots = list(Chatbot.objects.filter(organization=organization).order_by("name"))
        chatbot = next((c for c in chatbots if c.pk == period.chatbot_id), None)
        query = {"start": period.start.isoformat(), "end": period.end.isoformat()}
        if chatbot is not None:
            query["chatbot"] = str(chatbot.pk)
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": f"Insights: {organization.name}" + (f", {chatbot.name}" if chatbot else ""),
            "organization": organization,
            "chatbots": chatbots,
            "chatbot": chatbot,
            "period": period,
            "query": "&".join(f"{k}={v}" for k, v in query.items()),
            "presets": _presets(period.end),
            **insights_report(organization=organization, period=period),
        }
        return TemplateResponse(request, "admin/insights/organization.html", context)

    def csv_view(self, request: HttpRequest, organization_id, table: str) -> HttpResponse:
        organization = self._organization(request, organization_id)
        period = period_from(request.GET, today=dt.datetime.now(dt.UTC).date())
        found = insights_table(organization=organization, period=period, name=table)
        if found is None:
            raise Http404
        response = HttpResponse(csv_text(found.headers, found.rows), content_type="text/csv")
        name = f"insights-{table}-{period.start}-{period.end}.csv"
        response["Content-Disposition"] = f'attachment; filename="{name}"'
        return response


def _presets(end: dt.date) -> list[dict[str, str]]:
    return [
        {"label": label, "start": (end - dt.timedelta(days - 1)).isoformat()}
        for label, days in (("7 days", 7), ("30 days", 30), ("90 days", 90), ("a year", 365))
    ]
