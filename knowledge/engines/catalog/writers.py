"""The writing step: one writer per reply kind (`WRITERS`), each turning the decision into a
draft: the reply's text, the products it recommends and its suggestions.

Searches, products and comparisons are written in replies_search.py and replies_product.py;
the short answers (small talk, questions back to the shopper) here.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import partial

from django.utils.translation import gettext

from knowledge.engines.catalog import dialogue as dl
from knowledge.engines.catalog import lexicon as lx
from knowledge.engines.catalog import phrasing as ph
from knowledge.engines.catalog import suggestions as sg
from knowledge.engines.catalog.decision import Decision, ReplyKind
from knowledge.engines.catalog.draft import Draft, Item
from knowledge.engines.catalog.references import from_snapshots
from knowledge.engines.catalog.replies_limits import not_in_feed_reply
from knowledge.engines.catalog.replies_pairing import goes_with_reply
from knowledge.engines.catalog.replies_product import (
    availability_sentences,
    compare_reply,
    product_reply,
    topic_sentences,
)
from knowledge.engines.catalog.replies_search import (
    gift_reply,
    more_reply,
    nothing_beyond,
    search_reply,
    similar_reply,
)
from knowledge.engines.catalog.tools import check_availability, item_ids_with_variants
from knowledge.engines.catalog.turn import Turn

Writer = Callable[[Turn, Decision], Draft]


def smalltalk(turn: Turn, decision: Decision) -> Draft:
    """A greeting, thanks, goodbye or "who are you?" answered, and what the assistant can do."""
    kind = turn.reading.smalltalk
    texts = _smalltalk_texts(turn)
    text = texts.get(kind, texts["greeting"])
    if kind == "thanks" and lx.HOW_ARE_YOU.search(turn.reading.normalized):
        # "thanks! how is your day going?": both answered.
        text = gettext(
            "You're welcome, and I'm doing well, thanks for asking! Is there anything else "
            "I can help you find?"
        )
    return Draft(text=text, suggestions=sg.smalltalk_suggestions(turn.vocabulary, turn.page))


def _smalltalk_texts(turn: Turn) -> dict[str, str]:
    page = turn.page
    about = (
        " "
        + gettext("I see you're looking at the %(title)s: ask me anything about it.")
        % {"title": page.title}
        if page
        else ""
    )
    return {
        "greeting": gettext(
            "Hello! I can help you find products, compare them and check prices and stock."
        )
        + (about or " " + gettext("What are you looking for today?")),
        "thanks": gettext("You're welcome! Is there anything else I can help you find?"),
        "goodbye": gettext(
            "Thanks for stopping by, and have a great day! I'm here whenever you need help."
        ),
        "acknowledge": gettext("Great! Is there anything else I can help you find?"),
        "how_are_you": gettext(
            "I'm doing well, thanks for asking! What can I help you find today?"
        ),
        "who_are_you": (
            gettext(
                "I'm the shop's assistant: I can search our catalog, compare products, and "
                "tell you prices, sizes, colours and what's in stock in your store."
            )
            if turn.store
            else gettext(
                "I'm the shop's assistant: I can search our catalog, compare products, and "
                "tell you prices, sizes, colours and what's in stock."
            )
        )
        + (about or " " + gettext("What are you looking for?")),
    }


def out_of_scope(turn: Turn, decision: Decision) -> Draft:
    return Draft(
        text=gettext(
            "Sorry, I can't help with that: I'm the shop's assistant, so I can only help "
            "with our products, their prices and availability. What can I find for you?"
        ),
        suggestions=sg.smalltalk_suggestions(turn.vocabulary, turn.page),
    )


def shop_policy(turn: Turn, decision: Decision) -> Draft:
    return Draft(
        text=gettext(
            "I can't see delivery, returns or payment details from here: the shop's "
            "help pages or customer service will know. I can help you with our "
            "products, their prices and what's in stock."
        ),
        suggestions=sg.smalltalk_suggestions(turn.vocabulary, turn.page),
    )


def not_in_feed(turn: Turn, decision: Decision) -> Draft:
    return not_in_feed_reply(turn.reading, turn.state, turn.vocabulary, turn.page)


def gift(turn: Turn, decision: Decision) -> Draft:
    return gift_reply(turn.context, turn.tools, turn.reading.constraints)


def compare(turn: Turn, decision: Decision) -> Draft:
    return compare_reply(turn.context, turn.tools, list(decision.products))


def compare_what(turn: Turn, decision: Decision) -> Draft:
    """Compare, but with what: the other product, or products to compare, asked for."""
    if decision.products:
        text = gettext(
            "I can compare the %(name)s with another product: which one? "
            "Tell me its name, or ask me to search for alternatives."
        ) % {"name": decision.products[0].title}
        return Draft(
            text=text,
            suggestions=sg.finish(
                [gettext("Show me something similar"), gettext("Tell me more about it")],
                sg.browse_suggestions(turn.vocabulary),
            ),
        )
    return Draft(
        text=gettext(
            "Which two products would you like me to compare? Search for a few first, "
            "then ask me to compare them."
        ),
        suggestions=sg.browse_suggestions(turn.vocabulary),
    )


def similar(turn: Turn, decision: Decision) -> Draft:
    asks = turn.reading.asks
    return similar_reply(
        turn.context,
        turn.tools,
        decision.products[0],
        turn.reading.constraints,
        cheaper="cheaper" in asks,
        pricier="pricier" in asks,
    )


def similar_to_what(turn: Turn, decision: Decision) -> Draft:
    return _clarified(turn, gettext("Similar to which product?"))


def goes_with(turn: Turn, decision: Decision) -> Draft:
    return goes_with_reply(turn.context, turn.tools, decision.products[0])


def goes_with_what(turn: Turn, decision: Decision) -> Draft:
    return _clarified(turn, gettext("To go with which product?"))


def product(turn: Turn, decision: Decision) -> Draft:
    """The products' answer (price, stock, sizes, details...), after the decision's note."""
    draft = product_reply(
        turn.context, turn.tools, list(decision.products), turn.reading, store=turn.asked_store
    )
    draft.text = decision.note + draft.text
    return draft


def which_one(turn: Turn, decision: Decision) -> Draft:
    """ "What brand is it?" with several products in view: which one, with the choices."""
    names = [str(s.get("designation")) for s in turn.state.shown[:4]]
    templates = [
        gettext("the first (%(name)s)"),
        gettext("the second (%(name)s)"),
        gettext("the third (%(name)s)"),
        gettext("the fourth (%(name)s)"),
    ]
    choices = [template % {"name": name} for template, name in zip(templates, names, strict=False)]
    return Draft(
        text=gettext("Which one do you mean: %(choices)s?") % {"choices": ph.join(choices, "or")},
        suggestions=sg.finish(
            _pointed_questions(turn, len(names))[:3], sg.browse_suggestions(turn.vocabulary)
        ),
    )


def _pointed_questions(turn: Turn, count: int) -> list[str]:
    """The same question, pointed at one product: "What brand is the first one?"; in another
    language, the choice alone ("Le premier"), which reads as that product."""
    ordinals = ["first", "second", "third", "fourth"]
    text = turn.reading.text.strip().rstrip("?")
    return [
        re.sub(
            r"\b(this one|that one|it|this|that)\b",
            f"the {ordinal} one",
            text,
            count=1,
            flags=re.I,
        )
        + "?"
        if turn.language == "en"
        else choice
        for ordinal, choice in zip(
            ordinals[:count],
            [
                gettext("The first one"),
                gettext("The second one"),
                gettext("The third one"),
                gettext("The fourth one"),
            ],
            strict=False,
        )
    ]


def clarify(turn: Turn, decision: Decision) -> Draft:
    return _clarified(turn, gettext("Which product do you mean?"))


def _clarified(turn: Turn, question: str) -> Draft:
    return Draft(
        text=question
        + " "
        + gettext(
            "Open its page, or tell me its name or what you're looking for, and I'll "
            "check it for you."
        ),
        suggestions=sg.browse_suggestions(turn.vocabulary),
    )


def brand_others(turn: Turn, decision: Decision) -> Draft:
    """ "What other Apple products do you have?" on an Apple page: the others, or none."""
    page = decision.products[0]
    exclude = item_ids_with_variants(turn.organization, [page])
    constraints, continues = dl.next_search(turn.reading, dl.ConversationState())
    draft = search_reply(
        turn.context,
        turn.tools,
        constraints,
        state=turn.state,
        continues=continues,
        exclude=exclude,
        relax=False,
    )
    if draft.items:
        return draft
    return Draft(
        text=gettext(
            "The %(name)s is the only %(brand)s product we have right now. "
            "I can show you similar products from other brands."
        )
        % {"name": page.title, "brand": page.brand},
        items=[Item(product=page, reasons=[gettext("The product on this page")])],
        suggestions=sg.finish(
            [gettext("Show me something similar"), gettext("Tell me more about it")],
            sg.browse_suggestions(turn.vocabulary),
        ),
    )


def more(turn: Turn, decision: Decision) -> Draft:
    return more_reply(turn.context, turn.tools, turn.state)


def search(turn: Turn, decision: Decision) -> Draft:
    """The search the conversation makes of the message, then what it asks of the first
    product found: its stock in a store named, a detail asked about."""
    u, state = turn.reading, turn.state
    constraints, continues = dl.next_search(u, state)
    # "something more expensive": other products, not another variant of those shown.
    priced = u.asks & {"cheaper", "pricier"} if continues else set()
    shown = from_snapshots(turn, state.shown) if priced else []
    draft = search_reply(
        turn.context,
        turn.tools,
        constraints,
        state=state,
        continues=continues,
        exclude=item_ids_with_variants(turn.organization, shown) if shown else (),
        # "Cheaper?" of coats: cheaper coats, or none; never dearer ones, nor dresses.
        keep=("price", "category") if priced else (),
    )
    if priced and shown and not draft.items:
        cheaper = "cheaper" in priced
        base = (min if cheaper else max)(shown, key=lambda p: p.current_price)
        return nothing_beyond(turn.context, base, constraints, cheaper=cheaper)
    return _with_topic(turn, _with_store_stock(turn, draft))


def _with_store_stock(turn: Turn, draft: Draft) -> Draft:
    """A search that names a store ("the rain jacket in Munich?"): the first product's
    stock there follows the products found."""
    store = turn.asked_store
    if not turn.reading.store_code or store is None or not draft.items:
        return draft
    product = draft.items[0].product
    _tool_result, rows = turn.tools.run(
        "check_availability",
        {"gtin": product.gtin or product.item_id, "store": store.code},
        partial(check_availability, turn.context, product=product, store=store),
        lambda result: result[0],
    )
    sentences = availability_sentences(product, rows, store)
    draft.text = _before_question(draft.text, " ".join(sentences))
    return draft


def _with_topic(turn: Turn, draft: Draft) -> Draft:
    """A search that asks about a detail ("what warranty does the laptop have?"): what
    the first product's data says about it follows the products found."""
    if not turn.reading.topic or not draft.items:
        return draft
    product = draft.items[0].product
    sentences = topic_sentences(product, turn.reading.topic, [product])
    draft.text = _before_question(draft.text, " ".join(sentences))
    return draft


def _before_question(text: str, line: str) -> str:
    """`text` with `line` added before its closing question ("Would you like more details
    about it?"), else at its end."""
    lines = text.split("\n")
    at = len(lines) - 1 if len(lines) > 1 and lines[-1].endswith("?") else len(lines)
    lines.insert(at, line)
    return "\n".join(lines)


def not_understood(turn: Turn, decision: Decision) -> Draft:
    return Draft(
        text=gettext(
            "I'm not sure I understood. I can search our catalog (for example by "
            "category, brand or budget), compare products and check prices and stock. "
            "What are you looking for?"
        ),
        suggestions=sg.browse_suggestions(turn.vocabulary),
    )


WRITERS: dict[ReplyKind, Writer] = {
    ReplyKind.SMALLTALK: smalltalk,
    ReplyKind.OUT_OF_SCOPE: out_of_scope,
    ReplyKind.SHOP_POLICY: shop_policy,
    ReplyKind.NOT_IN_FEED: not_in_feed,
    ReplyKind.GIFT: gift,
    ReplyKind.COMPARE: compare,
    ReplyKind.COMPARE_WHAT: compare_what,
    ReplyKind.SIMILAR: similar,
    ReplyKind.SIMILAR_TO_WHAT: similar_to_what,
    ReplyKind.GOES_WITH: goes_with,
    ReplyKind.GOES_WITH_WHAT: goes_with_what,
    ReplyKind.PRODUCT: product,
    ReplyKind.WHICH_ONE: which_one,
    ReplyKind.CLARIFY: clarify,
    ReplyKind.BRAND_OTHERS: brand_others,
    ReplyKind.MORE: more,
    ReplyKind.SEARCH: search,
    ReplyKind.NOT_UNDERSTOOD: not_understood,
}
