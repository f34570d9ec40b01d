"""Admin console for support staff: chat histories as readable transcripts (read-only)."""

from __future__ import annotations

from django.contrib import admin, messages
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.db.models import Count, QuerySet
from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string
from django.template.response import TemplateResponse
from django.utils.safestring import SafeString

from accounts.models import Organization
from chats import admin_transcript
from chats.admin_search import SEARCH_HELP, DateRangeFilter, RepliesFilter, chats_matching
from chats.erasure import Removed, user_erase
from chats.models import Chat


class ReadOnlyAdmin(admin.ModelAdmin):
    """Histories are what happened: no admin page adds, edits or deletes them one by one."""

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

    actions = ["erase_users"]

    def has_erase_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("chats.delete_chat")

    @admin.action(description="Erase the shoppers of the selected chats", permissions=["erase"])
    def erase_users(self, request: HttpRequest, queryset: QuerySet[Chat]) -> HttpResponse | None:
        """Every chat of each selected chat's shopper goes, not just the selected ones."""
        shoppers = sorted(
            set(queryset.values_list("organization_id", "organization__name", "user_id")),
            key=lambda row: (row[1], str(row[2])),
        )
        if request.POST.get("post") != "yes":
            context = {
                **self.admin_site.each_context(request),
                "opts": self.opts,
                "title": "Erase these shoppers' data?",
                "shoppers": [
                    {"organization": name, "user_id": user_id, "chats": count}
                    for (_, name, user_id), count in zip(
                        shoppers, _chat_counts(shoppers), strict=True
                    )
                ],
                "selected": queryset.values_list("pk", flat=True),
                "action_checkbox_name": ACTION_CHECKBOX_NAME,
            }
            return TemplateResponse(request, "admin/chats/chat/erase_confirm.html", context)
        total = Removed()
        for organization_id, _, user_id in shoppers:
            organization = Organization.objects.get(pk=organization_id)
            total.add(user_erase(organization=organization, user_id=str(user_id)))
        self.message_user(
            request,
            f"Erased {len(shoppers)} shopper(s): {total.chats} chats, {total.messages} "
            f"messages, {total.events} events, {total.feedback} feedback removed.",
            messages.SUCCESS,
        )
        return None

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


def _chat_counts(shoppers: list[tuple]) -> list[int]:
    return [
        Chat.objects.filter(organization_id=organization_id, user_id=user_id).count()
        for organization_id, _, user_id in shoppers
    ]
