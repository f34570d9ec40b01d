"""Admin console for support staff: chat histories as readable transcripts (read-only)."""

from __future__ import annotations

from django.contrib import admin
from django.db.models import Count, QuerySet
from django.http import HttpRequest
from django.template.loader import render_to_string
from django.utils.safestring import SafeString

from chats import admin_transcript
from chats.admin_search import SEARCH_HELP, DateRangeFilter, RepliesFilter, chats_matching
from chats.models import Chat


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


@admin.register(Chat)
class ChatAdmin(ReadOnlyAdmin):
    list_display = ["id", "organization", "chatbot", "user_id", "created_at", "message_count"]
    list_filter = ["organization", "chatbot", DateRangeFilter, RepliesFilter]
    date_hierarchy = "created_at"
    list_select_related = ["organization", "chatbot"]
    search_fields = ["id"]  # shows the search box; get_search_results does the searching
    search_help_text = SEARCH_HELP
    # Two short lines of facts, then the conversation: the page is read top to bottom.
    fields = (
        ("id", "created_at"),
        ("organization", "chatbot", "user_id"),
        "transcript",
        "activity",
    )
    readonly_fields = (
        "id",
        "created_at",
        "organization",
        "chatbot",
        "user_id",
        "transcript",
        "activity",
    )

    def get_queryset(self, request: HttpRequest) -> QuerySet[Chat]:
        return super().get_queryset(request).annotate(message_count=Count("messages"))

    def get_search_results(self, request: HttpRequest, queryset: QuerySet[Chat], search_term: str):
        return chats_matching(queryset, search_term), False

    @admin.display(description="Messages", ordering="message_count")
    def message_count(self, obj: Chat) -> int:
        return obj.message_count  # type: ignore[attr-defined]

    @admin.display(description="Conversation")
    def transcript(self, obj: Chat) -> SafeString:
        context = {"messages": admin_transcript.transcript(obj)}
        return SafeString(render_to_string("admin/chats/transcript.html", context))

    @admin.display(description="Assistant activity")
    def activity(self, obj: Chat) -> SafeString:
        context = {"rows": admin_transcript.activity(obj)}
        return SafeString(render_to_string("admin/chats/activity.html", context))
