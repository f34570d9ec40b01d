"""Replies to what no catalog can answer (ratings, reviews, sales figures): say so, and offer
what the catalog can do with the products in view."""

from __future__ import annotations

from django.utils.translation import gettext

from knowledge.engines.catalog import suggestions as sg
from knowledge.engines.catalog.dialogue import ConversationState
from knowledge.engines.catalog.draft import Draft
from knowledge.engines.catalog.understanding import Understanding
from knowledge.engines.catalog.vocabulary import Vocabulary
from knowledge.models import Product


def _missing(fact: str) -> str:
    if fact == "sales figures":
        return gettext("Our catalog doesn't hold sales figures, so I can't tell which sells best.")
    return gettext(
        "Our catalog doesn't hold ratings or reviews, so I can't tell how customers rate them."
    )


def not_in_feed_reply(
    u: Understanding, state: ConversationState, vocabulary: Vocabulary, page: Product | None
) -> Draft:
    """A fact the catalog lacks (`u.not_in_feed`), and an offer for the products in view."""
    if len(state.shown) >= 2:
        offer = gettext("I can compare them on price, features and stock instead.")
        candidates = [
            gettext("Compare the first two"),
            gettext("Which of these are on sale?"),
            gettext("Tell me more about the first one"),
        ]
    elif page is not None or state.focus is not None or state.shown:
        offer = gettext("I can tell you about its features, price and stock instead.")
        candidates = [
            gettext("Tell me more about it"),
            gettext("Is it in stock?"),
            gettext("Show me something similar"),
        ]
    else:
        offer = gettext(
            "I can search our products by category, brand or budget, compare them and check "
            "prices and stock."
        )
        candidates = []
    return Draft(
        text=f"{_missing(u.not_in_feed)} {offer}",
        suggestions=sg.finish(candidates, sg.browse_suggestions(vocabulary)),
    )
