"""Admin import form (upload a feed, optional inventory and stores files) and import history.

"Add catalog import" is the form: running it records an ImportRun, whose read-only page then
shows the same summary as `import_catalog` (counts, bad rows with line numbers, warnings).
Operators may import (add) and read the history; Support sees neither.
"""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.html import format_html, format_html_join

from accounts.models import Organization
from knowledge.catalog.services import ImportFile, catalog_import
from knowledge.models import ImportRun, ImportStatus


class CatalogImportForm(forms.Form):
    organization = forms.ModelChoiceField(queryset=Organization.objects.all())
    feed = forms.FileField(help_text="Merchant Center product feed: tab-separated text or RSS XML.")
    inventory = forms.FileField(
        required=False,
        help_text="Local inventory feed (store_code, id, availability, quantity, …).",
    )
    stores = forms.FileField(required=False, help_text="Stores file (store_code, name).")
    full = forms.BooleanField(
        required=False, help_text="Remove the organization's items that are missing from the feed."
    )
    strict = forms.BooleanField(required=False, help_text="Import nothing if any row is bad.")


@admin.register(ImportRun)
class ImportRunAdmin(admin.ModelAdmin):
    list_display = [
        "started_at",
        "organization",
        "user",
        "source",
        "feed_name",
        "outcome",
        "created",
        "updated",
        "removed",
        "error_count",
        "warning_count",
    ]
    list_filter = ["status", "source", "organization"]
    search_fields = ["feed_name", "inventory_name", "stores_name", "user__username"]
    list_select_related = ["organization", "user"]
    fields = [
        "organization",
        "user",
        "source",
        ("feed_name", "inventory_name", "stores_name"),
        ("full", "strict"),
        "outcome",
        ("created", "updated", "removed"),
        "other_counts",
        ("started_at", "finished_at"),
        "problems",
    ]
    readonly_fields = [
        "organization",
        "user",
        "source",
        "feed_name",
        "inventory_name",
        "stores_name",
        "full",
        "strict",
        "outcome",
        "created",
        "updated",
        "removed",
        "other_counts",
        "started_at",
        "finished_at",
        "problems",
    ]

    def has_change_permission(self, request: HttpRequest, obj: ImportRun | None = None) -> bool:
        return False  # history is what happened: read-only

    def has_delete_permission(self, request: HttpRequest, obj: ImportRun | None = None) -> bool:
        return False

    @admin.display(description="outcome", ordering="status")
    def outcome(self, obj: ImportRun) -> str:
        return import_outcome(obj)

    @admin.display(description="stores and inventory")
    def other_counts(self, obj: ImportRun) -> str:
        inventory = obj.summary.get("inventory", {})
        stores = obj.summary.get("stores", {})
        return (
            f"Stores: {stores.get('created', 0)} created, {stores.get('updated', 0)} updated. "
            f"Inventory: {inventory.get('created', 0)} created, {inventory.get('updated', 0)}"
            f" updated, {inventory.get('removed', 0)} removed."
        )

    @admin.display(description="errors and warnings")
    def problems(self, obj: ImportRun) -> str:
        return problems_table(obj.summary)

    def add_view(
        self, request: HttpRequest, form_url: str = "", extra_context=None
    ) -> HttpResponse:
        if not self.has_add_permission(request):
            raise PermissionDenied
        form = CatalogImportForm(request.POST or None, request.FILES or None)
        if request.method == "POST" and form.is_valid():
            run = self._import(request, form.cleaned_data)
            level = _message_level(run)
            self.message_user(request, _message(run), level)
            return HttpResponseRedirect(reverse("admin:knowledge_importrun_change", args=[run.pk]))
        context = {
            **self.admin_site.each_context(request),
            "title": "Import a catalog",
            "form": form,
            "opts": self.model._meta,
            "has_view_permission": self.has_view_permission(request),
        }
        return TemplateResponse(request, "admin/knowledge/importrun/import_form.html", context)

    def _import(self, request: HttpRequest, data: dict) -> ImportRun:
        files = {
            name: ImportFile(upload.file, upload.name)
            for name in ("feed", "inventory", "stores")
            if (upload := data.get(name)) is not None
        }
        for file in files.values():
            file.stream.seek(0)
        _, run = catalog_import(
            organization=data["organization"],
            feed=files["feed"],
            inventory=files.get("inventory"),
            stores=files.get("stores"),
            full=data["full"],
            strict=data["strict"],
            user=request.user,  # type: ignore[arg-type]
            source="admin",
        )
        return run


def import_outcome(run: ImportRun) -> str:
    """What the import did in a few words: a run that skipped bad rows did not fully succeed."""
    if run.summary.get("aborted"):
        return "Aborted (strict): nothing changed"
    if run.status == ImportStatus.FAILED:
        return "Failed"
    if run.error_count:
        return f"Imported with {_count(run.error_count, 'rejected row')}"
    return "Succeeded"


def _message_level(run: ImportRun) -> int:
    if run.status != ImportStatus.SUCCEEDED:
        return messages.ERROR
    return messages.WARNING if run.error_count else messages.SUCCESS


def _message(run: ImportRun) -> str:
    summary = f"{run.created} created, {run.updated} updated, {run.removed} removed"
    if run.summary.get("aborted"):
        return f"Import aborted (strict): nothing was changed; {run.error_count} errors."
    if run.status == ImportStatus.FAILED:
        return f"A file could not be read and was not imported; {summary}."
    rejected = f" with {_count(run.error_count, 'rejected row')}" if run.error_count else ""
    warnings = f"; {_count(run.warning_count, 'warning')}" if run.warning_count else ""
    return f"Imported {run.feed_name}{rejected}: {summary}{warnings}."


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def problems_table(summary: dict) -> str:
    rows = [("Error", entry) for entry in summary.get("errors", [])] + [
        ("Warning", entry) for entry in summary.get("warnings", [])
    ]
    if not rows:
        return "None"
    body = format_html_join(
        "",
        "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
        (
            (
                kind,
                entry.get("file", ""),
                entry.get("line") or "",
                entry.get("id", ""),
                entry["message"],
            )
            for kind, entry in rows
        ),
    )
    more = ""
    shown_errors, shown_warnings = len(summary.get("errors", [])), len(summary.get("warnings", []))
    if (
        summary.get("errorCount", 0) > shown_errors
        or summary.get("warningCount", 0) > shown_warnings
    ):
        more = format_html(
            "<p>Showing the first {} errors of {} and {} warnings of {}.</p>",
            shown_errors,
            summary.get("errorCount", 0),
            shown_warnings,
            summary.get("warningCount", 0),
        )
    return format_html(
        '<table id="import-problems"><thead><tr><th>Kind</th><th>File</th><th>Line</th>'
        "<th>Id</th><th>Problem</th></tr></thead><tbody>{}</tbody></table>{}",
        body,
        more,
    )
