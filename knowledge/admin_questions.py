"""Admin pages of the PDP question sets: edit, reorder and delete questions; regenerate sets.

What an operator saves is what the public endpoints return (docs/api.md#pdp-question-sets).
After each save
the ranks are renumbered 1..n in the order the operator gave, so "move up" is just typing a
smaller rank, and the ETag changes with the content so browsers revalidate.
"""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.db.models import Count, QuerySet
from django.http import HttpRequest
from django.template.response import TemplateResponse

from knowledge.canonical import InvalidUrlError, canonicalize_url
from knowledge.models import PdpQuestion, PdpQuestionSet
from knowledge.pdp.serializers import INVALID_URL
from knowledge.pdp.services import question_set_regenerate, question_set_renumber

DUPLICATE_QUESTION = "This question is already in the set."


class PdpQuestionFormSet(forms.BaseInlineFormSet):
    def clean(self) -> None:
        super().clean()
        seen: set[str] = set()
        for form in self.forms:
            if not hasattr(form, "cleaned_data") or not form.cleaned_data:
                continue
            if form.cleaned_data.get("DELETE"):
                continue
            text = " ".join(str(form.cleaned_data.get("text") or "").split()).lower()
            if not text:
                continue
            if text in seen:
                form.add_error("text", DUPLICATE_QUESTION)
            seen.add(text)


# A question added without a rank goes last: save_related renumbers 1..n right after.
LAST_RANK = 32767  # the largest PositiveSmallIntegerField


class PdpQuestionForm(forms.ModelForm):
    class Meta:
        model = PdpQuestion
        fields = ("rank", "text")

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["rank"].required = False
        self.fields["rank"].help_text = "Empty: last."

    def clean_rank(self) -> int:
        rank = self.cleaned_data.get("rank")
        return LAST_RANK if rank is None else rank


class PdpQuestionInline(admin.TabularInline):
    model = PdpQuestion
    form = PdpQuestionForm
    formset = PdpQuestionFormSet
    fields = ("rank", "text")
    ordering = ("rank", "id")
    extra = 1


class PdpQuestionSetForm(forms.ModelForm):
    # A plain text field: Django's URLField would prepend "http://" before we can refuse it.
    url = forms.CharField(label="Canonical URL", max_length=2048)

    class Meta:
        model = PdpQuestionSet
        fields = ("organization", "url", "product_title")

    def clean_url(self) -> str:
        # Stored canonical, as the endpoints look it up (docs/api.md#url-canonical-form).
        try:
            return canonicalize_url(self.cleaned_data["url"])
        except InvalidUrlError as exc:
            raise forms.ValidationError(INVALID_URL) from exc


@admin.register(PdpQuestionSet)
class PdpQuestionSetAdmin(admin.ModelAdmin):
    form = PdpQuestionSetForm
    inlines = [PdpQuestionInline]
    list_display = (
        "url",
        "product_title",
        "organization",
        "question_count",
        "requests",
        "updated_at",
    )
    list_filter = ("organization",)
    list_select_related = ("organization",)
    search_fields = ("url", "product_title")
    readonly_fields = ("id", "requests", "created_at", "updated_at")
    fields = ("id", "organization", "url", "product_title", "requests", "created_at", "updated_at")
    ordering = ("-updated_at",)
    actions = ["regenerate"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[PdpQuestionSet]:
        return super().get_queryset(request).annotate(question_count=Count("questions"))

    @admin.display(description="questions", ordering="question_count")
    def question_count(self, question_set: PdpQuestionSet) -> int:
        return question_set.question_count  # type: ignore[attr-defined]

    def save_related(self, request, form, formsets, change) -> None:
        super().save_related(request, form, formsets, change)
        moved = {
            question.pk
            for formset in formsets
            for question in [
                *formset.new_objects,
                *(obj for obj, fields in formset.changed_objects if "rank" in fields),
            ]
        }
        question_set_renumber(question_set=form.instance, moved=moved)

    @admin.action(description="Regenerate questions from the catalog", permissions=["change"])
    def regenerate(
        self, request: HttpRequest, queryset: QuerySet[PdpQuestionSet]
    ) -> TemplateResponse | None:
        # Edits made here are replaced: asked first, as Django asks before deleting.
        if request.POST.get("confirmed") != "yes":
            context = {
                **self.admin_site.each_context(request),
                "opts": self.opts,
                "title": "Regenerate questions?",
                "question_sets": queryset,
            }
            return TemplateResponse(
                request, "admin/knowledge/pdpquestionset/regenerate_confirm.html", context
            )
        done = missing = 0
        for question_set in queryset:
            if question_set_regenerate(question_set=question_set):
                done += 1
            else:
                missing += 1
        if done:
            self.message_user(request, f"Regenerated {done} question set(s).", messages.SUCCESS)
        if missing:
            self.message_user(
                request,
                f"{missing} set(s) left as they were: no catalog product at their URL.",
                messages.WARNING,
            )
        return None
