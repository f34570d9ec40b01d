"""The built-in `catalog` engine: a deterministic shop assistant over the organization's catalog.

One reply: typing, then understanding the message against the conversation so far, the tool
calls a good shop assistant would make (each published as events), a reply written from what
the catalog returned, product snapshots and suggestions, and the text streamed in chunks.
"""

from __future__ import annotations

import re
from dataclasses import replace
from functools import partial
from typing import Any

from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext

from knowledge.engines.base import EventSink, Reply, ReplyRequest
from knowledge.engines.catalog import dialogue as dl
from knowledge.engines.catalog import lexicon as lx
from knowledge.engines.catalog import phrasing as ph
from knowledge.engines.catalog import suggestions as sg
from knowledge.engines.catalog.draft import Draft, Item
from knowledge.engines.catalog.lexicon import FILLER_WORDS
from knowledge.engines.catalog.replies_limits import not_in_feed_reply
from knowledge.engines.catalog.replies_product import (
    availability_sentences,
    compare_reply,
    product_reply,
    topic_sentences,
)
from knowledge.engines.catalog.replies_search import (
    gift_reply,
    more_reply,
    nearest_of_kind,
    search_reply,
    similar_reply,
)
from knowledge.engines.catalog.snapshots import inventory_for, product_snapshot
from knowledge.engines.catalog.streaming import ToolCalls, publish_text
from knowledge.engines.catalog.tools import (
    ToolContext,
    check_availability,
    get_page_context,
    item_ids_with_variants,
    page_product_find,
    product_summary,
    products_from_snapshots,
    tool_context_from,
)
from knowledge.engines.catalog.understanding import Understanding, singular, understand
from knowledge.language.detect import Detected, conversation_language
from knowledge.models import Product, Store
from knowledge.products.descriptions import amount_words
from knowledge.search import product_search
from knowledge.search.text import fold, words

_COMPARE_SPLIT = re.compile(r"\b(?:and|vs|versus|with|to|or|against)\b|,")
# Names looked up in one comparison: each is a catalog search, and four products are compared
# at most, so "compare a and b and c and ..." costs a few searches, not one per name.
_COMPARE_LOOKUPS = 4
_COMPARE_LEAD = re.compile(
    r"^.*?\b(?:compare|comparison of|difference between|differences between|better)\b"
)


# "compare it with a similar camera": the product and another of its kind.
_ANOTHER = re.compile(r"\b(similar|another|other|alternatives?|comparable|equivalent)\b")


# Questions whose words may be a product's name ("Light Shade", "Pixelon Fit").
_ASK_WORDS = {
    "colors": lx.COLOR_QUESTION,
    "sizes": lx.SIZE_QUESTION,
    "material": lx.MATERIAL_QUESTION,
}


def _before_question(text: str, line: str) -> str:
    """`text` with `line` added before its closing question ("Would you like more details
    about it?"), else at its end."""
    lines = text.split("\n")
    at = len(lines) - 1 if len(lines) > 1 and lines[-1].endswith("?") else len(lines)
    lines.insert(at, line)
    return "\n".join(lines)


def about_page(u: Understanding, page: Product) -> Understanding:
    """The message read as being about the page's product when it names it.

    "Which stores have the Red Lipstick in stock?" on the Red Lipstick's page: the name's
    words are not a search ("red" is not a colour wish here), they point at the product.
    """
    if asked := _asked_amount(u, page):
        return asked
    said = set(words(u.normalized))
    title = {w for w in words(page.title) if (len(w) > 1 or w.isdigit()) and w not in FILLER_WORDS}
    named = title & said
    if not title or len(named) < min(2, len(title)) or len(named) / len(title) < 0.5:
        return u
    title_stems = {singular(w) for w in title} | set(words(page.brand))
    c = u.constraints
    in_title = {w.lower() for w in (*c.colors, *c.materials)} & set(words(page.title))
    constraints = replace(
        c,
        terms=tuple(
            t
            for t in c.terms
            if singular(t) not in title_stems and t not in title and not set(words(t)) <= title
        ),
        # Its own brand, or a brand whose words are its name ("the Apple" on a fruit's page).
        brands=tuple(
            b for b in c.brands if b.lower() != page.brand.lower() and not set(words(b)) <= title
        ),
        # "Cat Food" reads as groceries, "Trainers" as footwear: the page's own category.
        category=(
            ""
            if c.category
            and (
                {singular(w) for w in words(c.category)} & title_stems
                or fold(c.category) in fold(page.category)
                or (c.label and singular(c.label) in title_stems)  # "Drink" read as beverages
            )
            else c.category
        ),
        colors=tuple(x for x in c.colors if x.lower() not in in_title),
        materials=tuple(x for x in c.materials if x.lower() not in in_title),
    )
    # "the Pixelon Fit Smartwatch": "fit" is its name here, not a question about fit.
    named_words = " ".join(words(page.title))
    topic = u.topic
    if topic and lx.TOPICS[topic][0].search(named_words):
        topic = ""
    # "the Light Shade": "shade" names it, it does not ask for its colours.
    asks = {
        ask for ask in u.asks if ask not in _ASK_WORDS or not _ASK_WORDS[ask].search(named_words)
    }
    return replace(
        u,
        constraints=constraints,
        topic=topic,
        asks=asks,
        pronoun=True,
        asked_color="" if u.asked_color.lower() in in_title else u.asked_color,
        name_words=tuple(w for w in u.name_words if w not in title),
    )


# A question for an amount ("how much protein?", "what's the weight of one?"), and questions
# about a page that are not about an amount of something its description gives.
_AMOUNT_QUESTION = re.compile(r"\b(how (much|many)|what|which)\b")
_OTHER_QUESTIONS = frozenset(
    {"availability", "colors", "sizes", "material", "brand", "category", "compare", "similar"}
)


def _asked_amount(u: Understanding, page: Product) -> Understanding | None:
    """ "How much protein is in it?" on a page whose description gives an amount of protein:
    a question about the page answered from its description, not a search nor its price."""
    if not _AMOUNT_QUESTION.search(u.normalized) or u.topic or u.asks & _OTHER_QUESTIONS:
        return None
    title = set(words(page.title))
    asked = [t for t in u.constraints.terms if not set(words(t)) & title and not t.isdigit()]
    amounts = amount_words(page, asked)
    if not amounts:
        return None
    constraints = replace(u.constraints, terms=tuple(amounts), category="", brands=())
    asks = (u.asks - {"price"}) | {"details"}
    return replace(u, constraints=constraints, asks=asks, topic="", pronoun=True)


class CatalogEngine:
    """The default engine (docs/api.md#catalog-and-assistant): only catalog products, prices and
    stock, no network."""

    @property
    def answers_at_once(self) -> bool:
        # Paced chunks (a UI's typing effect) spread the reply over time: then each goes live.
        return settings.ASSISTANT_STREAM_CHUNK_DELAY_MS <= 0

    def reply(self, request: ReplyRequest, publisher: EventSink) -> Reply:
        publisher.typing()
        turn = Turn(request, publisher)
        # Replies in the shopper's language: the translation catalogs of locale/.
        with translation.override(turn.language):
            draft = turn.draft()
            return turn.finish(draft)


class Turn:
    """One message being answered."""

    def __init__(self, request: ReplyRequest, publisher: EventSink) -> None:
        self.request = request
        self.publisher = publisher
        self.context: ToolContext = tool_context_from(request)
        self.tools = ToolCalls(publisher)
        self.vocabulary = self.context.vocabulary
        self.u: Understanding = understand(request.message, self.vocabulary)
        self.state = dl.conversation_state(request.history, self.vocabulary)
        self.language = self.reply_language()
        if self.language != self.u.language:
            # Too short to tell, or one the chat's language could have written: read so.
            self.u = understand(request.message, self.vocabulary, language=self.language)
        self.store: Store | None = request.store
        self.asked_store: Store | None = request.store
        self.note = ""  # said before the answer ("I only showed one product...")

    def reply_language(self) -> str:
        """The message's language, or the conversation's for a message too short to tell
        ("ok") or that its language could equally have written; else the catalog's."""
        earlier = None
        for message in reversed(list(dl.recent_turns(list(self.request.history)))):
            if message.type == "user":
                reading = understand(message.content, self.vocabulary)
                if reading.language_sure:
                    earlier = reading.language
                    break
        detected = Detected(self.u.language, self.u.language_sure)
        return conversation_language(
            detected, self.request.message, earlier=earlier, default=self.vocabulary.language
        )

    # --- the page -------------------------------------------------------------------------

    def page_product(self) -> Product | None:
        """The product of the shopper's page; the tool is shown only when there is one."""
        product = page_product_find(self.request.organization, self.request.current_url)
        if product is None:
            return None
        self.tools.run(
            "get_page_context",
            {"url": self.request.current_url},
            lambda: get_page_context(self.context, url=self.request.current_url, found=product),
            lambda result: result[0],
        )
        return product

    # --- deciding -------------------------------------------------------------------------

    def draft(self) -> Draft:
        page = self.page_product()
        # A store named in the message ("in Hamburg?") is where availability is answered for;
        # snapshots keep the `store` parameter's values (docs/api.md#add-a-message).
        if self.u.store_code and (self.store is None or self.store.code != self.u.store_code):
            self.asked_store = (
                Store.objects.filter(
                    organization=self.request.organization, code=self.u.store_code
                ).first()
                or self.store
            )
        if page is not None:
            self.u = about_page(self.u, page)
        kind = dl.classify(self.u, self.state, on_pdp=page is not None)
        if kind == dl.SMALLTALK:
            return self.smalltalk(page)
        if kind == dl.OUT_OF_SCOPE:
            return self.out_of_scope(page)
        if kind == dl.SHOP_POLICY:
            return Draft(
                text=gettext(
                    "I can't see delivery, returns or payment details from here: the shop's "
                    "help pages or customer service will know. I can help you with our "
                    "products, their prices and what's in stock."
                ),
                suggestions=sg.smalltalk_suggestions(self.vocabulary, page),
            )
        if kind == dl.NOT_IN_FEED:
            return not_in_feed_reply(self.u, self.state, self.vocabulary, page)
        if kind == dl.GIFT:
            return gift_reply(self.context, self.tools, self.u.constraints)
        if kind == dl.COMPARE:
            products = self.compare_targets(page)
            if len(products) == 1 and _ANOTHER.search(self.u.normalized):
                other = nearest_of_kind(self.context, self.tools, products[0])
                products += [other] if other is not None else []
            if len(products) >= 2:
                return compare_reply(self.context, self.tools, products)
            if not self.u.constraints.has_subject():
                return self.compare_what(products)
        if kind == dl.SIMILAR:
            base = self.referenced(page) or self.named()
            if base is None and not self.u.constraints.has_subject():
                return self.clarify(gettext("Similar to which product?"))
            if base is not None:
                return similar_reply(
                    self.context,
                    self.tools,
                    base,
                    self.u.constraints,
                    cheaper="cheaper" in self.u.asks,
                    pricier="pricier" in self.u.asks,
                )
        if kind == dl.PRODUCT:
            products = self.referenced_all()
            if products:
                draft = product_reply(
                    self.context, self.tools, products, self.u, store=self.asked_store
                )
                draft.text = self.note + draft.text
                return draft
            if self.state.shown:
                return self.which_one()
        if kind == dl.PAGE and page is not None:
            return product_reply(self.context, self.tools, [page], self.u, store=self.asked_store)
        if kind == dl.NAMED:
            product = self.named()
            if product is not None:
                return product_reply(
                    self.context, self.tools, [product], self.u, store=self.asked_store
                )
        if kind == dl.CLARIFY:
            return self.clarify()
        if (
            page is not None
            and page.brand
            and self.u.constraints.brands == (page.brand,)
            and re.search(r"\b(other|else|more)\b", self.u.normalized)
            and not self.u.constraints.has_subject()
        ):
            return self.brand_others(page)
        if kind == dl.MORE:
            return more_reply(self.context, self.tools, self.state)
        if kind in (dl.SEARCH, dl.NAMED, dl.COMPARE, dl.SIMILAR) and (
            self.u.constraints.has_subject()
            or self.u.constraints.has_filters()
            or self.u.constraints.sort
            or self.u.asks & {"cheaper", "pricier"}
        ):
            constraints, continues = dl.next_search(self.u, self.state)
            # "something more expensive": other products, not another variant of those shown.
            shown = self.state.shown if continues and self.u.asks & {"cheaper", "pricier"} else []
            draft = search_reply(
                self.context,
                self.tools,
                constraints,
                state=self.state,
                continues=continues,
                exclude=item_ids_with_variants(
                    self.request.organization, self._from_snapshots(shown)
                )
                if shown
                else (),
            )
            return self.with_topic(self.with_store_stock(draft))
        if page is not None:
            return product_reply(self.context, self.tools, [page], self.u, store=self.asked_store)
        return self.not_understood()

    def with_store_stock(self, draft: Draft) -> Draft:
        """A search that names a store ("the rain jacket in Munich?"): the first product's
        stock there follows the products found."""
        if not self.u.store_code or self.asked_store is None or not draft.items:
            return draft
        product = draft.items[0].product
        _tool_result, rows = self.tools.run(
            "check_availability",
            {"gtin": product.gtin or product.item_id, "store": self.asked_store.code},
            partial(check_availability, self.context, product=product, store=self.asked_store),
            lambda result: result[0],
        )
        sentences = availability_sentences(product, rows, self.asked_store)
        draft.text = _before_question(draft.text, " ".join(sentences))
        return draft

    def with_topic(self, draft: Draft) -> Draft:
        """A search that asks about a detail ("what warranty does the laptop have?"): what
        the first product's data says about it follows the products found."""
        if not self.u.topic or not draft.items:
            return draft
        product = draft.items[0].product
        sentences = topic_sentences(product, self.u.topic, [product])
        draft.text = _before_question(draft.text, " ".join(sentences))
        return draft

    # --- products the message points at ----------------------------------------------------

    def _from_snapshots(self, snapshots: list[dict[str, Any]]) -> list[Product]:
        return products_from_snapshots(self.request.organization, snapshots)

    def referenced_all(self) -> list[Product]:
        """Products of the last reply the message points at: ordinals, "it", or all of them."""
        shown = self.state.shown
        if self.u.ordinals and shown:
            if max(self.u.ordinals) > len(shown):
                # "the second one" after a single product: say so, then answer for it.
                self.note = (
                    gettext("I only showed one product just now, so this is about that one.")
                    if len(shown) == 1
                    else gettext(
                        "I only showed %(count)s products just now, so this is about the last one."
                    )
                    % {"count": len(shown)}
                ) + " "
            picked = [shown[min(n, len(shown)) - 1 if n > 0 else -1] for n in self.u.ordinals]
            unique = list({id(s): s for s in picked}.values())
            return self._from_snapshots(unique)
        if self.state.focus is not None and not self.u.plural_reference:
            return self._from_snapshots([self.state.focus])
        if self.u.pronoun and not self.u.plural_reference and len(shown) > 1:
            return []  # "it" with several in view: the caller asks which one
        return self._from_snapshots(shown)

    def referenced(self, page: Product | None) -> Product | None:
        if self.u.ordinals and self.state.shown:
            found = self.referenced_all()
            return found[0] if found else None
        if page is not None:
            return page
        if self.state.focus is not None:
            found = self._from_snapshots([self.state.focus])
            return found[0] if found else None
        if self.state.shown:
            found = self._from_snapshots(self.state.shown[:1])
            return found[0] if found else None
        return None

    def named(self, text: str | None = None, exclude: tuple[int, ...] = ()) -> Product | None:
        """The catalog product the message names ("the Dior J'adore"), when it clearly names one."""
        if text is None:
            said = set(words(self.u.normalized))
            query_words = list(self.u.name_words)
            needed = {singular(w) for w in words(" ".join(self.u.constraints.terms)) if len(w) > 1}
        else:
            said = set(words(text))
            query_words = [w for w in words(text) if len(w) > 1]
            needed = {singular(w) for w in query_words if w not in FILLER_WORDS}
        if not query_words:
            return None
        args = {"query": " ".join(query_words), "purpose": "find the product named"}

        def lookup() -> list[Product]:
            return product_search(
                organization=self.request.organization,
                query=args["query"],
                limit=5,
                spellings=self.vocabulary.spellings,
            ).products

        candidates = self.tools.run(
            "search_products",
            args,
            lookup,
            lambda found: {"products": [product_summary(p) for p in found]},
        )
        scored: list[tuple[float, Product]] = []
        for product in candidates:
            if product.pk in exclude:
                continue
            title_words = {w for w in words(product.title) if len(w) > 1 or w.isdigit()}
            if not title_words:
                continue
            # Every word the shopper used to name it is in its name, and most of its name
            # was said: "the iPhone X", not "Apple accessories" for the AirPods.
            brand_words = set(words(product.brand))
            if not needed <= {singular(w) for w in title_words} | brand_words:
                continue
            coverage = len(title_words & said) / len(title_words)
            scored.append((coverage, product))
        scored.sort(key=lambda pair: -pair[0])
        # Variants of one product are one candidate, not a tie between two.
        groups: set[str] = set()
        distinct: list[tuple[float, Product]] = []
        for score, product in scored:
            group = product.item_group_id or f"item:{product.pk}"
            if group not in groups:
                groups.add(group)
                distinct.append((score, product))
        scored = distinct
        if not scored or scored[0][0] < 0.6:
            return None
        if len(scored) > 1 and scored[1][0] == scored[0][0] and scored[0][0] < 1:
            return None
        return scored[0][1]

    def compare_targets(self, page: Product | None) -> list[Product]:
        products: list[Product] = []
        shown = self.state.shown
        if self.u.ordinals and shown:
            products = self.referenced_all()
        if len(products) < 2 and (self.u.pronoun or (page is not None and not self.u.ordinals)):
            base = page or self.referenced(None)
            if base is not None and base not in products:
                products.insert(0, base)
        tail = _COMPARE_LEAD.sub("", self.u.normalized)
        looked_up = 0
        for part in _COMPARE_SPLIT.split(tail):
            if len(products) >= 4 or looked_up >= _COMPARE_LOOKUPS:
                break
            meaningful = [
                w
                for w in words(part)
                if w
                not in {
                    "it",
                    "this",
                    "that",
                    "one",
                    "the",
                    "them",
                    "these",
                    "those",
                    "two",
                    "first",
                    "second",
                    "third",
                    "both",
                }
            ]
            if not meaningful:
                continue
            looked_up += 1
            found = self.named(part, exclude=tuple(p.pk for p in products))
            if found is not None:
                products.append(found)
        if len(products) < 2 and len(shown) >= 2 and not self.u.ordinals:
            products = self._from_snapshots(shown[: 4 if "them" in self.u.normalized else 2])
        return products

    # --- small talk -----------------------------------------------------------------------

    def smalltalk(self, page: Product | None) -> Draft:
        kind = self.u.smalltalk
        about = (
            " "
            + gettext("I see you're looking at the %(title)s: ask me anything about it.")
            % {"title": page.title}
            if page
            else ""
        )
        texts = {
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
                if self.store
                else gettext(
                    "I'm the shop's assistant: I can search our catalog, compare products, and "
                    "tell you prices, sizes, colours and what's in stock."
                )
            )
            + (about or " " + gettext("What are you looking for?")),
        }
        text = texts.get(kind, texts["greeting"])
        if kind == "thanks" and lx.HOW_ARE_YOU.search(self.u.normalized):
            # "thanks! how is your day going?": both answered.
            text = gettext(
                "You're welcome, and I'm doing well, thanks for asking! Is there anything else "
                "I can help you find?"
            )
        return Draft(text=text, suggestions=sg.smalltalk_suggestions(self.vocabulary, page))

    def out_of_scope(self, page: Product | None) -> Draft:
        return Draft(
            text=gettext(
                "Sorry, I can't help with that: I'm the shop's assistant, so I can only help "
                "with our products, their prices and availability. What can I find for you?"
            ),
            suggestions=sg.smalltalk_suggestions(self.vocabulary, page),
        )

    def compare_what(self, products: list[Product]) -> Draft:
        if products:
            text = gettext(
                "I can compare the %(name)s with another product: which one? "
                "Tell me its name, or ask me to search for alternatives."
            ) % {"name": products[0].title}
            return Draft(
                text=text,
                suggestions=sg.finish(
                    [gettext("Show me something similar"), gettext("Tell me more about it")],
                    sg.browse_suggestions(self.vocabulary),
                ),
            )
        return Draft(
            text=gettext(
                "Which two products would you like me to compare? Search for a few first, "
                "then ask me to compare them."
            ),
            suggestions=sg.browse_suggestions(self.vocabulary),
        )

    def brand_others(self, page: Product) -> Draft:
        """ "What other Apple products do you have?" on an Apple page: the others, or none."""
        exclude = item_ids_with_variants(self.request.organization, [page])
        constraints, continues = dl.next_search(self.u, dl.ConversationState())
        draft = search_reply(
            self.context,
            self.tools,
            constraints,
            state=self.state,
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
                sg.browse_suggestions(self.vocabulary),
            ),
        )

    def clarify(self, question: str = "") -> Draft:
        question = question or gettext("Which product do you mean?")
        return Draft(
            text=question
            + " "
            + gettext(
                "Open its page, or tell me its name or what you're looking for, and I'll "
                "check it for you."
            ),
            suggestions=sg.browse_suggestions(self.vocabulary),
        )

    def which_one(self) -> Draft:
        """ "What brand is it?" with several products in view: which one, with the choices."""
        names = [str(s.get("designation")) for s in self.state.shown[:4]]
        ordinals = ["first", "second", "third", "fourth"]
        text = self.u.text.strip().rstrip("?")
        # The same question, pointed at one product: "What brand is the first one?"; in
        # another language, the choice alone ("Le premier"), which reads as that product.
        pointed = [
            re.sub(
                r"\b(this one|that one|it|this|that)\b",
                f"the {ordinal} one",
                text,
                count=1,
                flags=re.I,
            )
            + "?"
            if self.language == "en"
            else choice
            for ordinal, choice in zip(
                ordinals[: len(names)],
                [
                    gettext("The first one"),
                    gettext("The second one"),
                    gettext("The third one"),
                    gettext("The fourth one"),
                ],
                strict=False,
            )
        ]
        templates = [
            gettext("the first (%(name)s)"),
            gettext("the second (%(name)s)"),
            gettext("the third (%(name)s)"),
            gettext("the fourth (%(name)s)"),
        ]
        choices = [
            template % {"name": name} for template, name in zip(templates, names, strict=False)
        ]
        return Draft(
            text=gettext("Which one do you mean: %(choices)s?")
            % {"choices": ph.join(choices, "or")},
            suggestions=sg.finish(pointed[:3], sg.browse_suggestions(self.vocabulary)),
        )

    def not_understood(self) -> Draft:
        return Draft(
            text=gettext(
                "I'm not sure I understood. I can search our catalog (for example by "
                "category, brand or budget), compare products and check prices and stock. "
                "What are you looking for?"
            ),
            suggestions=sg.browse_suggestions(self.vocabulary),
        )

    # --- the reply --------------------------------------------------------------------------

    def finish(self, draft: Draft) -> Reply:
        limit = self.request.chatbot.max_products or 4
        items = draft.items[:limit]
        rows = inventory_for([i.product for i in items], self.store)
        snapshots = [
            product_snapshot(
                product=item.product,
                store=self.store,
                inventory_row=rows.get(item.product.pk),
                query=item.query,
                recommendation=ph.recommendation_text(item.reasons),
                first_created_at=self.vocabulary.first_created_at,
            )
            for item in items
        ]
        suggestions = draft.suggestions[: sg.MAX_SUGGESTIONS]
        publish_text(self.publisher, draft.text)
        return Reply(content=draft.text, products=snapshots, suggestions=suggestions)
