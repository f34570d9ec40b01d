"""Admin console for support staff: chat histories as readable transcripts (read-only)."""

from __future__ import annotations

import json
import uuid

from django.contrib import admin
from django.db.models import Count, Q, QuerySet
from django.http import HttpRequest
from django.template.loader import render_to_string
from django.utils.safestring import SafeString

from chats.models import Chat, Event, EventStatus, Message


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
    list_filter = ["organization", "chatbot", "created_at"]
    date_hierarchy = "created_at"
    list_select_related = ["organization", "chatbot"]
    search_fields = ["id", "user_id"]
    search_help_text = "Search by chat id or user id (the whole UUID)."
    fields = ("id", "organization", "chatbot", "user_id", "created_at", "transcript", "activity")
    readonly_fields = fields

    def get_queryset(self, request: HttpRequest) -> QuerySet[Chat]:
        return super().get_queryset(request).annotate(message_count=Count("messages"))

    def get_search_results(self, request: HttpRequest, queryset: QuerySet[Chat], search_term: str):
        # Ids are UUIDs: match them exactly (a partial match would scan every row).
        term = search_term.strip()
        if not term:
            return queryset, False
        try:
            value = uuid.UUID(term)
        except ValueError:
            return queryset.none(), False
        return queryset.filter(id=value) | queryset.filter(user_id=value), False

    @admin.display(description="Messages", ordering="message_count")
    def message_count(self, obj: Chat) -> int:
        return obj.message_count  # type: ignore[attr-defined]

    @admin.display(description="Conversation")
    def transcript(self, obj: Chat) -> SafeString:
        messages = Message.objects.filter(chat=obj).order_by("seq")
        return SafeString(render_to_string("admin/chats/transcript.html", {"messages": messages}))

    @admin.display(description="Assistant activity")
    def activity(self, obj: Chat) -> SafeString:
        """The tools the assistant ran and every failure, newest last: why a reply said what it
        said, or why it failed. Typing and text chunks are left out (the reply has the text)."""
        finished_tool = Q(status=EventStatus.COMPLETED) & ~Q(tool_name="")
        events = Event.objects.filter(
            finished_tool | Q(status=EventStatus.FAILED), chat=obj
        ).order_by("-seq")[:ACTIVITY_EVENTS]
        rows = [
            {
                "event": event,
                "args": _compact_json(event.tool_args),
                "response": _compact_json(event.tool_response),
            }
            for event in reversed(events)
        ]
        return SafeString(render_to_string("admin/chats/activity.html", {"rows": rows}))


ACTIVITY_EVENTS = 200  # the most recent; a long chat has many replies
RESPONSE_CHARS = 400  # a search's response lists products in full: the start tells enough


def _compact_json(value) -> str:
    if value is None:
        return ""
    text = json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
    return text if len(text) <= RESPONSE_CHARS else text[:RESPONSE_CHARS] + " …"
