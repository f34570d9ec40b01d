"""What a shopper's message asks for: constraints, references and the kind of question.

`understand(text, vocabulary)` is pure (no database): the same message always reads the same
way, which is what lets the conversation state be rebuilt from the stored history.

Its work grows linearly with the message: each pattern is one pass over the text (a phrase
found is blanked together with the others of its pass, never by copying the text once per
occurrence), no pattern can backtrack over a run of the text more than once, and repeated
words are handled once ("men men men...").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from decimal import Decimal

from knowledge.engines.catalog import lexicon as lx
from knowledge.engines.catalog.prices import price_limits
from knowledge.engines.catalog.vocabulary import Vocabulary, normalize, phrase
from knowledge.language.detect import DETECTED_CHARS, Detected, message_language
from knowledge.language.folding import fold
from knowledge.language.places import city_names
from knowledge.language.reading import canonical_text
from knowledge.language.vocabulary import language_data

SORT_CHEAPEST = "price_asc"
SORT_PRICIEST = "price_desc"
SORT_BEST = "best"
# Orders by an amount the descriptions state (knowledge/products/descriptions.stated_amount).
SORT_FEWEST_CALORIES = "calories_asc"
SORT_MOST_PROTEIN = "protein_desc"
AMOUNT_SORTS = {SORT_FEWEST_CALORIES: ("calories", 1), SORT_MOST_PROTEIN: ("protein", -1)}

_EXCLUDE_BEFORE = re.compile(
    r"(?:\bnot|\bno|\bexcept|\bexcluding|\bexclude|\bother than|\banything but|\bwithout|"
    r"\bbesides|\bapart from|\bdon'?t want|\bdo not want|\brather than|\binstead of|\bbut not|"
    r"\bnothing from|\bnon|\bhate|\bavoid|\bno more)\s*(?:an?\s+|the\s+|from\s+|by\s+)?$"
)
_FOLLOWUP_START = re.compile(
    r"^(what about|how about|and|also|any|anything in|same in|same but|but|ok|okay|now|then|"
    r"maybe|only|just|what if|do you have (them|those|it|these)|in)\b"
)
# More characters than the longest phrase of _EXCLUDE_BEFORE with its article.
_EXCLUDE_WINDOW = 40
_SUBJECT_SWITCH = re.compile(r"^(what about|how about|and|do you (also )?have|any)\b")
_NUMERIC_SIZE = (
    r"\b(?:in|in an?|in size|come in|comes in|have (?:it|them) in)\s++([0-9]{1,2}(?:\.5)?)\b"
)
_QUESTION_START = re.compile(
    r"^(is|are|does|do|did|can|could|will|would|have|has|what|which|how|who|where|when|why)\b"
)
_FILTERING = re.compile(
    r"\b(which (of|ones?)|only( the)?( ones?)?|just the|any of (them|these|those)|"
    r"those that|the ones?|show (me )?(only|just))\b"
)
_REF_WORDS = re.compile(r"\b(them|those|these|ones|same)\b")
# "compare it with a similar camera": the product and another of its kind.
_ANOTHER = re.compile(r"\b(similar|another|other|alternatives?|comparable|equivalent)\b")
# "what other Apple products do you have?": others than the one in view.
_OTHERS = re.compile(r"\b(other|else|more)\b")
# "the other one": of two products talked about, the one not in focus.
_OTHER_ONE = re.compile(r"\bthe other(?: one| product)?\b(?!\s*ones\b)")
_WORD = re.compile(r"\w+")
_PUNCTUATION = "!?.,;:\"'()¿¡"


@dataclass(frozen=True)
class Constraints:
    """A product search in the shopper's terms; empty values mean "no restriction"."""

    terms: tuple[str, ...] = ()
    category: str = ""
    label: str = ""  # the shopper's word for the category ("headphones" for "Audio")
    brands: tuple[str, ...] = ()
    exclude_brands: tuple[str, ...] = ()
    colors: tuple[str, ...] = ()
    sizes: tuple[str, ...] = ()
    materials: tuple[str, ...] = ()
    genders: tuple[str, ...] = ()
    age_groups: tuple[str, ...] = ()
    min_price: Decimal | None = None
    max_price: Decimal | None = None
    around: Decimal | None = None
    in_stock: bool | None = None
    on_sale: bool | None = None
    sort: str = ""
    # "cheaper ones": below the cheapest shown, which is itself excluded.
    max_exclusive: bool = False
    min_exclusive: bool = False

    def has_subject(self) -> bool:
        return bool(self.terms or self.category)

    def is_empty(self) -> bool:
        return self == Constraints()

    def has_filters(self) -> bool:
        return not replace(self, terms=(), sort="").is_empty()


@dataclass
class Understanding:
    text: str
    normalized: str
    constraints: Constraints
    smalltalk: str = ""  # greeting | thanks | goodbye | how_are_you | who_are_you
    out_of_scope: bool = False
    asks: set[str] = field(default_factory=set)
    ordinals: list[int] = field(default_factory=list)
    pronoun: bool = False
    plural_reference: bool = False
    followup_start: bool = False
    subject_switch: bool = False
    filtering: bool = False  # "which of these...", "only the ones...": narrowing a search
    interrogative: bool = False  # phrased as a question
    not_in_feed: str = ""  # a fact no catalog holds ("ratings"), lexicon.NOT_IN_FEED
    topic: str = ""  # a detail asked about ("battery life", "smell"), see lexicon.TOPICS
    shop_policy: bool = False  # delivery, returns, payment...: not in the catalog
    gift: bool = False  # "a gift for my wife"
    asked_size: str = ""
    asked_color: str = ""
    store_code: str = ""
    place: str = ""  # a city the message names that no store of the shop is in ("Madrid")
    # The words that could name a product ("the Dior J'adore"), brand words included.
    name_words: tuple[str, ...] = ()
    another: bool = False  # another product of a kind wished for ("a similar one")
    others: bool = False  # products other than the one in view ("what else", "other")
    # A search word is a kind of the catalog's goods (a title's head noun, a category's last
    # word): "is it a jacket?" may name other products, "is it waterproof?" asks about one.
    names_kind: bool = False
    # "the screen", "its strap": a part of the product in view named, no kind of the catalog.
    names_part: bool = False
    other_one: bool = False  # "the other one": the product shown that is not in focus
    # The message's language (knowledge/language); not sure: too short to tell, the catalog's.
    language: str = "en"
    language_sure: bool = False

    @property
    def has_product_content(self) -> bool:
        return (
            not self.constraints.is_empty()
            or bool(self.ordinals)
            or bool(self.asks - {"details"})
            or bool(self.name_words)
            or bool(self.topic)
        )


_OES_PLURALS = frozenset({"potatoes", "tomatoes", "heroes", "echoes", "mangoes"})


def singular(word: str) -> str:
    if len(word) <= 3 or word.endswith(("ss", "us", "is")):
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "xes", "sses")) or word in _OES_PLURALS:
        return word[:-2]
    if word.endswith(("arves", "elves", "olves", "eaves")):
        return word[:-3] + "f"  # scarves, shelves, wolves, leaves
    if word.endswith("nives"):
        return word[:-3] + "fe"  # knives
    if word.endswith("s"):
        return word[:-1]
    return word


def _blank_span(text: str, start: int, end: int) -> str:
    return text[:start] + " " * (end - start) + text[end:]


def _blank_spans(text: str, spans: list[tuple[int, int]]) -> str:
    """The text with every (start, end) span blanked, in one pass whatever their number."""
    if not spans:
        return text
    chars = list(text)
    for start, end in spans:
        chars[start:end] = " " * (end - start)
    return "".join(chars)


def _excluded_before(work: str, start: int) -> int | None:
    """Where "not", "except"... start when they end just before `start`, else None."""
    end = start
    while end > 0 and work[end - 1] == " ":
        end -= 1
    # The phrase is a few words: a bounded window, not the whole text before every brand.
    match = _EXCLUDE_BEFORE.search(work, max(0, end - _EXCLUDE_WINDOW), end)
    return None if match is None else match.start()


def _smalltalk(text: str) -> str:
    if lx.ACKNOWLEDGE.search(text):
        return "acknowledge"
    if lx.THANKS.search(text):
        return "thanks"
    if lx.GOODBYE.search(text):
        return "goodbye"
    if lx.HOW_ARE_YOU.search(text):
        return "how_are_you"
    if lx.WHO_ARE_YOU.search(text):
        return "who_are_you"
    if lx.GREETINGS.search(text):
        return "greeting"
    return ""


def _ordinals(text: str) -> list[int]:
    match = re.search(r"\b(?:first|top)\s+(two|three|four|2|3|4)\b", text)
    if match:
        count = lx.NUMBER_WORDS.get(match.group(1)) or int(match.group(1))
        return list(range(1, count + 1))
    found: list[int] = []
    for word, number in lx.ORDINALS.items():
        # "the last one" points at a product; "how long does it last" does not.
        pattern = r"\bthe (very )?last\b" if word == "last" else rf"\b{word}\b"
        if re.search(pattern, text):
            found.append(number)
    for match in re.finditer(r"(?:\bnumber\s+|#|\boption\s+|\bno\.\s?)([1-6])\b", text):
        found.append(int(match.group(1)))
    if not found and re.search(r"\b(both|the two|these two|those two|the 2)\b", text):
        return [1, 2]
    # "the last one" means the last shown; keep text order of the rest.
    return sorted(set(found), key=lambda n: (n == -1, n))


# Readings kept per catalog, and their messages' characters together (a reading holds about
# twice its message): a few megabytes per organization and worker at most.
READINGS_KEPT = 5000
READINGS_KEPT_CHARS = 1_000_000


def understand(
    text: str, vocabulary: Vocabulary, *, language: str = "", default: str = ""
) -> Understanding:
    """What `text` asks, in this catalog's words (the same text always reads the same).

    `language`: read the text in this language whatever it looks like (a message too short
    to tell, in a conversation held in that language). `default`: the language of a text two
    languages could equally have written (the storefront's); the catalog's when not given.
    """
    key = f"{language}\x00{default}\x00{text}" if language or default else text
    reading = vocabulary.readings.get(key)
    if reading is None:
        full = len(vocabulary.readings) >= READINGS_KEPT
        if full or vocabulary.readings_chars + len(text) > READINGS_KEPT_CHARS:
            vocabulary.readings.clear()
            vocabulary.readings_chars = 0
        reading = vocabulary.readings[key] = _read(
            text, vocabulary, language, default or vocabulary.language
        )
        vocabulary.readings_chars += len(text)
    return reading


def _read(text: str, vocabulary: Vocabulary, language: str, default: str) -> Understanding:
    """The message in the shopper's language, read in the engine's words (knowledge/language).

    The catalog's own names (brands, categories, stores) say nothing of the shopper's language
    ("Samsung Galaxy"): the language is told from the other words.
    """
    if language:
        detected = Detected(language, False)
    else:
        shoppers = _shoppers_words(text, vocabulary.catalog_words())
        detected = message_language(shoppers, default=default)
    canonical = canonical_text(
        text, detected.language, catalog_language=vocabulary.language, own=vocabulary.words
    )
    reading = _understand(canonical, vocabulary)
    reading.language, reading.language_sure = detected.language, detected.sure
    return reading


def _shoppers_words(text: str, own: frozenset[str]) -> str:
    """The words of `text` that are not the catalog's, as many as language detection reads."""
    kept: list[str] = []
    length = 0
    for word in text.split():
        if length >= DETECTED_CHARS:
            break
        if fold(word.strip(_PUNCTUATION), DETECTED_CHARS) not in own:
            kept.append(word)
            length += len(word) + 1
    return " ".join(kept)


_ASKS = (
    (lx.SIMILAR, "similar"),
    (lx.GOES_WITH, "goes_with"),
    (lx.COMPARE, "compare"),
    (lx.DETAILS, "details"),
    (lx.AVAILABILITY, "availability"),
    (lx.PRICE_QUESTION, "price"),
    (lx.SIZE_QUESTION, "sizes"),
    (lx.COLOR_QUESTION, "colors"),
    (lx.MATERIAL_QUESTION, "material"),
    (lx.BRAND_QUESTION, "brand"),
    (lx.CATEGORY_QUESTION, "category"),
    (lx.SHOW_MORE, "more"),
    (lx.CHEAPER, "cheaper"),
    (lx.PRICIER, "pricier"),
)


def _asks(normalized: str) -> set[str]:
    """What the message asks for or about ("compare", "price", "cheaper"...)."""
    return {name for pattern, name in _ASKS if pattern.search(normalized)}


def _stock_sale_sort(work: str) -> tuple[bool | None, bool | None, str, str]:
    """(in stock wished, on sale wished, the order asked, the text without their words)."""
    in_stock, work = _take(lx.IN_STOCK, work)
    on_sale, work = _take(lx.ON_SALE, work)
    sort = ""
    # Cheapest first: its phrases hold a word of the priciest ones ("least expensive").
    for pattern, order in (
        (lx.FEWEST_CALORIES, SORT_FEWEST_CALORIES),
        (lx.MOST_PROTEIN, SORT_MOST_PROTEIN),
        (lx.CHEAPEST, SORT_CHEAPEST),
        (lx.PRICIEST, SORT_PRICIEST),
        (lx.BEST, SORT_BEST),
    ):
        found, work = _take(pattern, work)
        if found:
            sort = order
            break
    return (True if in_stock else None), (True if on_sale else None), sort, work


_SIZE_PATTERNS = (
    # "one size up", "a size in between": a word after "size" is no size.
    re.compile(
        r"\bsize\s++(?!(?:size|in|up|down|for|of|to|is|and|or|the|a|an|bigger|smaller)\b)"
        r"([a-z0-9.]{1,5})\b"
    ),
    re.compile(
        r"\b(?:in|come in|comes in|available in|have it in|got it in|in a|in an)\s+"
        r"(?:size\s+)?(xxs|xs|s|m|l|xl|xxl|xxxl|2xl|3xl)\b"
    ),
    re.compile(r"\b(xxs|xs|xl|xxl|xxxl|2xl|3xl)\b"),
    re.compile(r"\b(?:size\s+|in\s+)(extra small|small|medium|large|extra large)\b"),
)
_NUMERIC_SIZE_PATTERN = re.compile(_NUMERIC_SIZE)
# A letter size asked about on its own ("is M available?", "got L?", "any XL left?"): a size
# only when the catalog has it, like a bare number.
_LONE_SIZE_PATTERN = re.compile(
    r"^\s*(?:is|are|got|any|have you got|do you have|you have)\s+(xxs|xs|s|m|l|xl|xxl|xxxl)\b(?!')"
)


def _sizes(work: str, vocabulary: Vocabulary) -> tuple[list[str], str]:
    """The sizes the message names, as the catalog spells them, and the text without them;
    a bare number is a size only when the catalog has that size ("in 42", not "in 2024")."""
    sizes: list[str] = []
    for size_pattern in (*_SIZE_PATTERNS, _NUMERIC_SIZE_PATTERN, _LONE_SIZE_PATTERN):
        size_spans: list[tuple[int, int]] = []
        for match in size_pattern.finditer(work):
            raw = match.group(1).strip()
            bare = size_pattern in (_NUMERIC_SIZE_PATTERN, _LONE_SIZE_PATTERN)
            if (bare and raw not in vocabulary.sizes) or raw in lx.FILLER_WORDS:
                continue  # "the size of the screen" names no size
            value = lx.SIZE_WORDS.get(raw, raw.upper() if raw in lx.LETTER_SIZES else raw)
            sizes.append(vocabulary.sizes.get(value.lower(), value))
            size_spans.append((match.start(1), match.end(1)))
        work = _blank_spans(work, size_spans)
    return sizes, work


def _understand(text: str, vocabulary: Vocabulary) -> Understanding:
    """The reading of `text` (in the engine's words): what it names, then how it asks."""
    normalized = normalize(text)
    asks = _asks(normalized)
    found = _found(normalized, asks, vocabulary)
    if found.place:
        asks.add("availability")  # "in Madrid?": where it is in stock
    # "a light dress for hot weather" names goods: only its words are out of scope.
    out_of_scope = bool(lx.OUT_OF_SCOPE.search(normalized)) and not (
        found.constraints.category or found.constraints.brands
    )
    constraints = (
        Constraints() if out_of_scope else _for_recipient(found.constraints, normalized, vocabulary)
    )
    said = found.constraints
    return Understanding(
        text=text,
        normalized=normalized,
        constraints=constraints,
        smalltalk=found.smalltalk,
        out_of_scope=out_of_scope,
        asks=asks,
        ordinals=_ordinals(normalized),
        # "Is M available?" asks about the product in view, as "is it available in M?".
        pronoun=bool(lx.PRONOUNS.search(normalized))
        or bool(said.sizes and _LONE_SIZE_PATTERN.search(normalized)),
        plural_reference=bool(lx.PLURAL_REFERENCE.search(normalized))
        or bool(_REF_WORDS.search(normalized)),
        followup_start=bool(_FOLLOWUP_START.search(normalized)),
        subject_switch=bool(_SUBJECT_SWITCH.search(normalized)),
        filtering=bool(_FILTERING.search(normalized)) and constraints.has_filters(),
        interrogative=text.strip().endswith("?") or bool(_QUESTION_START.search(normalized)),
        topic=found.topic,
        not_in_feed=found.not_in_feed,
        shop_policy=bool(lx.SHOP_POLICY.search(normalized))
        and not said.category
        and not said.brands,
        gift=bool(lx.GIFT.search(normalized)),
        asked_size=said.sizes[0] if said.sizes else "",
        asked_color=said.colors[0] if said.colors else "",
        store_code=found.store_code,
        place=found.place,
        name_words=tuple(dict.fromkeys(found.name_words)),
        another=bool(_ANOTHER.search(normalized)),
        others=bool(_OTHERS.search(normalized)),
        names_kind=any(
            term in vocabulary.title_heads or term in vocabulary.category_heads
            for term in constraints.terms
        ),
        names_part=_names_part(normalized, constraints.terms, vocabulary),
        other_one=bool(_OTHER_ONE.search(normalized)),
    )


def _names_part(normalized: str, terms: tuple[str, ...], vocabulary: Vocabulary) -> bool:
    """Whether the message names "the" or "its" something no product of the catalog is ("how
    big is the screen?"): a part of the product in view."""
    said = set(re.findall(r"\b(?:the|its) (\w+)", normalized))
    return any(
        term in said
        and term not in vocabulary.title_heads
        and term not in vocabulary.category_heads
        for term in terms
    )


@dataclass(frozen=True)
class _Found:
    """What a message's words name, each kind read and blanked from the text in turn."""

    constraints: Constraints
    name_words: list[str]  # brand words and search terms, which could name a product
    store_code: str
    place: str
    not_in_feed: str
    topic: str
    smalltalk: str


def _found(normalized: str, asks: set[str], vocabulary: Vocabulary) -> _Found:
    """The wishes and names of the message; each step reads what earlier ones left."""
    work = f" {normalized} "
    limits, work = price_limits(work)
    if "cheaper" in asks or "pricier" in asks:
        work = lx.CHEAPER.sub(" ", lx.PRICIER.sub(" ", work))
    in_stock, on_sale, sort, work = _stock_sale_sort(work)
    brands, exclude_brands, name_words, work = _brands(work, vocabulary)
    store_code, work = _store_named(work, vocabulary, asked_stock="availability" in asks)
    place = "" if store_code or not vocabulary.stores else _place_named(work, vocabulary)
    sizes, work = _sizes(work, vocabulary)
    colors, materials, work = _colors_and_materials(work, vocabulary)
    not_in_feed, work = _not_in_feed(work, vocabulary)
    topic, work = _topic(work)
    # Question and small-talk phrases say what is asked, not what is searched for.
    for pattern in _ASKING_PHRASES:
        work = pattern.sub(lambda m: " " * len(m.group(0)), work)
    category, label, work = _category(work, vocabulary)
    genders, work = _genders(work, vocabulary)
    age_groups, work = _age_groups(work, vocabulary)
    terms = _terms(work, vocabulary)
    smalltalk = _smalltalk(normalized)
    if smalltalk and vocabulary.words:
        # "thanks! how is your day going?": what is left names no product of this catalog.
        terms = [term for term in terms if term in vocabulary.words]
    constraints = Constraints(
        terms=tuple(terms),
        category=category,
        label=label,
        brands=tuple(dict.fromkeys(brands)),
        exclude_brands=tuple(dict.fromkeys(exclude_brands)),
        colors=tuple(dict.fromkeys(colors)),
        sizes=tuple(dict.fromkeys(sizes)),
        materials=tuple(dict.fromkeys(materials)),
        genders=tuple(dict.fromkeys(genders)),
        age_groups=age_groups,
        min_price=limits.min_price,
        max_price=limits.max_price,
        around=limits.around,
        in_stock=in_stock,
        on_sale=on_sale,
        sort=sort,
    )
    return _Found(constraints, name_words + terms, store_code, place, not_in_feed, topic, smalltalk)


def _brands(work: str, vocabulary: Vocabulary) -> tuple[list[str], list[str], list[str], str]:
    """(brands wished, brands excluded ("not Nike"), the words naming the wished ones, the
    text without them)."""
    brands: list[str] = []
    exclude_brands: list[str] = []
    name_words: list[str] = []
    brand_spans: list[tuple[int, int]] = []
    for named in vocabulary.index("brands").find(work):
        before = _excluded_before(work, named.start)
        if before is not None:
            exclude_brands.append(named.value)
            brand_spans.append((before, named.end))
        else:
            brands.append(named.value)
            name_words.extend(work[named.start : named.end].split())
            brand_spans.append((named.start, named.end))
    return brands, exclude_brands, name_words, _blank_spans(work, brand_spans)


def _colors_and_materials(work: str, vocabulary: Vocabulary) -> tuple[list[str], list[str], str]:
    """The colours and materials named, as the catalog spells them, and the text without them:
    the catalog's phrases first ("navy blue"), then general colour and material words."""
    colors: list[str] = []
    materials: list[str] = []
    for kind, values in (("colors", colors), ("materials", materials)):
        phrase_matches = vocabulary.index(kind).find(work)
        values.extend(named.value for named in phrase_matches)
        work = _blank_spans(work, [(named.start, named.end) for named in phrase_matches])
    for word in work.split():
        if word in lx.COLORS:
            colors.append(_catalog_spelling(word, vocabulary.colors, lx.COLOR_ALIASES))
        elif word in lx.MATERIALS:
            materials.append(_catalog_spelling(word, vocabulary.materials, lx.MATERIAL_ALIASES))
    work = _words_removed(work, {value.lower() for value in colors + materials})
    return colors, materials, work


def _topic(work: str) -> tuple[str, str]:
    """The first detail asked about (lexicon.TOPICS), and the text without every topic's words."""
    topic = ""
    for name, (pattern, _) in lx.TOPICS.items():
        if pattern.search(work):
            topic = topic or name
            work = pattern.sub(lambda m: " " * len(m.group(0)), work)
            extra = lx.TOPIC_EXTRA.get(name)
            if extra is not None:
                work = extra.sub(lambda m: " " * len(m.group(0)), work)
    return topic, work


_ASKING_PHRASES = (
    lx.BRAND_QUESTION,
    lx.MATERIAL_QUESTION,
    lx.CATEGORY_QUESTION,
    lx.SIZE_QUESTION,
    lx.COLOR_QUESTION,
    lx.COMES_IN,
    lx.AVAILABILITY,
    lx.PRICE_QUESTION,
    lx.DETAILS,
    lx.SIMILAR,
    lx.GOES_WITH,
    lx.COMPARE,
    lx.SHOW_MORE,
    lx.THANKS,
    lx.GOODBYE,
    lx.HOW_ARE_YOU,
    lx.WHO_ARE_YOU,
    lx.GREETINGS,
)


def _category(work: str, vocabulary: Vocabulary) -> tuple[str, str, str]:
    """(catalog category, the shopper's word for it when it differs, remaining text): a
    category phrase of the catalog, else a word or synonym that names one."""
    category = ""
    for named in vocabulary.index("categories").find(work):
        category = named.value
        work = _blank_span(work, named.start, named.end)
        break
    if category:
        return _with_gender(category, work, vocabulary)
    return _category_from_synonyms(work, vocabulary)


def _with_gender(category: str, work: str, vocabulary: Vocabulary) -> tuple[str, str, str]:
    """A category level men and women share ("watches" of "mens watches" and "womens
    watches") as the level naming the gender said ("relojes para hombre"), its words blanked."""
    genders = [w for w in re.findall(r"\w+", work) if w in lx.GENDER_WORDS]
    key = phrase(category)
    for gender in dict.fromkeys(genders):
        gendered = ("mens " if lx.GENDER_WORDS[gender] == "male" else "womens ") + key
        if gendered in vocabulary.categories:
            for word in dict.fromkeys(genders):
                work = re.sub(rf"\b{word}\b", " ", work)
            return vocabulary.categories[gendered], "", work
    return category, "", work


def _genders(work: str, vocabulary: Vocabulary) -> tuple[list[str], str]:
    """The genders named ("for men"), as the catalog spells them, and the text without their
    words; none when the catalog has no genders."""
    genders: list[str] = []
    if not vocabulary.genders:
        return genders, work
    gender_words = [word for word in re.findall(r"\w+", work) if word in lx.GENDER_WORDS]
    for word in gender_words:
        gender = lx.GENDER_WORDS[word]
        genders.append(vocabulary.genders.get(gender, gender))
    for word in dict.fromkeys(gender_words):
        work = re.sub(rf"\b{word}\b", " ", work)
    return genders, work


def _for_recipient(
    constraints: Constraints, normalized: str, vocabulary: Vocabulary
) -> Constraints:
    """ "a gift for my wife": her products and unisex ones, when the catalog says so."""
    if not (lx.GIFT.search(normalized) and vocabulary.genders and not constraints.genders):
        return constraints
    wanted = {lx.RECIPIENTS[w] for w in re.findall(r"\w+", normalized) if lx.RECIPIENTS.get(w)}
    if len(wanted) != 1:
        return constraints
    gender = wanted.pop()
    genders_found = tuple(
        vocabulary.genders[g] for g in (gender, "unisex") if g in vocabulary.genders
    )
    return replace(constraints, genders=genders_found)


_STORES_ASKED = re.compile(
    r"\b(which|what|any|other|your|our|the|in|at) (of your )?(stores?|shops?|branch(es)?)\b"
)
_AT_PLACE = re.compile(r"\b(?:in|at|near|from|to|around)\s+(?:the\s+)?$")


def _store_named(work: str, vocabulary: Vocabulary, *, asked_stock: bool) -> tuple[str, str]:
    """The code of the store the message names, and the text without it.

    A store's words count in a question about stock or stores, or after "in", "at"...
    ("the rain jacket in Munich"), so a product word that is also in a store's name stays a
    product word elsewhere.
    """
    # "which stores have it?", "in your shops": asking where, never a product's words.
    work = _STORES_ASKED.sub(lambda m: " " * len(m.group(0)), work)
    if not vocabulary.stores:
        return "", work
    about_stores = asked_stock or bool(re.search(r"\b(store|shop|branch)\b", work))
    found = [
        named
        for named in vocabulary.index("stores").find(work)
        if about_stores
        or _AT_PLACE.search(work, max(0, named.start - 12), named.start)
        # Two words of a store's name together ("Paris Bastille") name the store; one may
        # be a product's ("Champignon de Paris").
        or " " in work[named.start : named.end].strip()
    ]
    if not found:
        return "", work
    return found[0].value, _blank_spans(work, [(named.start, named.end) for named in found])


def _place_named(work: str, vocabulary: Vocabulary) -> str:
    """A city the message names that is not one of the catalog's words, when no store was."""
    for word in re.findall(r"\w+", work):
        if city_names(word) and word not in vocabulary.words:
            return word
    return ""


def _age_groups(work: str, vocabulary: Vocabulary) -> tuple[tuple[str, ...], str]:
    """The catalog's age groups a message names ("for kids", "baby"), and the text without
    their words; none when the catalog has no age groups or none the words may mean."""
    if not vocabulary.age_groups:
        return (), work
    found: list[str] = []
    said = [word for word in re.findall(r"\w+", work) if word in lx.AGE_GROUP_WORDS]
    for word in dict.fromkeys(said):
        values = [
            vocabulary.age_groups[g] for g in lx.AGE_GROUP_WORDS[word] if g in vocabulary.age_groups
        ]
        if values:
            found.extend(values)
            work = re.sub(rf"\b{word}\b", " ", work)
    return tuple(dict.fromkeys(found)), work


def _not_in_feed(work: str, vocabulary: Vocabulary) -> tuple[str, str]:
    """The fact asked about that no catalog holds ("ratings"), and the text without its words;
    a word the catalog itself uses (a "Star" projector) is a product word instead."""
    for name, pattern in lx.NOT_IN_FEED.items():
        said = [m.group(0) for m in pattern.finditer(work)]
        if said and not all(w in vocabulary.words for s in said for w in s.split()):
            return name, pattern.sub(lambda m: " " * len(m.group(0)), work)
    return "", work


def _catalog_spelling(word: str, catalog: dict[str, str], aliases: dict[str, str]) -> str:
    if word in catalog:
        return catalog[word]
    alias = aliases.get(word)
    if alias and alias in catalog:
        return catalog[alias]
    return word


def _category_from_synonyms(work: str, vocabulary: Vocabulary) -> tuple[str, str, str]:
    """(catalog category, the shopper's word for it when it differs, remaining text).

    Each word, its singular and its general synonyms (lexicon.CATEGORY_SYNONYMS) are tried
    as a whole category level, then as the last word of one ("earrings" -> "jewellery" ->
    the catalog's "Womens Jewellery"); with a gender said ("shoes for men", "mens shoes"),
    the level naming it wins.
    """
    said = re.findall(r"\w+", work)
    genders = list(dict.fromkeys(w for w in said if w in lx.GENDER_WORDS))
    prefixes = [
        "mens" if lx.GENDER_WORDS[gender] == "male" else "womens" for gender in reversed(genders)
    ]
    # Each distinct word once: a repeated word reads the same every time.
    for word in dict.fromkeys(said):
        one = singular(word)
        targets = (
            word,
            one,
            *lx.CATEGORY_SYNONYMS.get(word, ()),
            *lx.CATEGORY_SYNONYMS.get(one, ()),
        )
        key = _category_key(dict.fromkeys(targets), prefixes, vocabulary)
        if key is None:
            continue
        work = re.sub(rf"\b{re.escape(word)}\b", " ", work)
        if key.startswith(("mens ", "womens ")):
            for gender in genders:
                work = re.sub(rf"\b{gender}\b", " ", work)
        category = vocabulary.categories[key]
        own_word = key in (word, one) or word in category.lower()
        return category, "" if own_word else word, work
    return "", "", work


def _category_key(
    targets: dict[str, None], prefixes: list[str], vocabulary: Vocabulary
) -> str | None:
    """The catalog's category phrase for the first target that names one, else None; with a
    gender said, a level naming it for any target first ("sneakers for men": "mens shoes",
    not the "footwear" of men and women alike)."""
    for candidates in (
        [f"{prefix} {target}" for target in targets for prefix in prefixes],
        list(targets),
    ):
        for candidate in candidates:
            if candidate in vocabulary.categories:
                return candidate
    for target in targets:
        heads = vocabulary.category_heads.get(target.rpartition(" ")[2], [])
        heads = [key for key in heads if key.endswith(target) or " " not in target]
        if not heads:
            continue
        gendered = [key for key in heads if key.split(" ", 1)[0] in prefixes]
        plain = [key for key in heads if key.split(" ", 1)[0] not in ("mens", "womens")]
        if gendered or len(plain) == 1 or (not plain and len(heads) == 1):
            return (gendered or plain or heads)[0]
        # Several categories end in it ("kitchen accessories", "mobile accessories"): none.
    return None


def _words_removed(text: str, removed: set[str]) -> str:
    """The text with each whole word (or phrase) in `removed` blanked out, in one pass."""
    single = {value for value in removed if _WORD.fullmatch(value)}
    if single:
        text = _WORD.sub(lambda m: " " if m.group(0) in single else m.group(0), text)
    for value in removed - single:  # a catalog value of several words, found by phrase above
        text = re.sub(rf"(?<!\w){re.escape(value)}(?!\w)", " ", text)
    return text


def _catalog_form(word: str, vocabulary: Vocabulary) -> str:
    """The singular of `word`, unless the catalog has the word as said and not its singular
    ("glasses", "shorts"): a plural never becomes a word the catalog lacks. A word the
    catalog lacks becomes its general synonym that the catalog has ("couch" -> "sofa")."""
    one = singular(word)
    if one != word and word in vocabulary.words and one not in vocabulary.words:
        return word
    if (
        (base := _adjective_base(word))
        and base in vocabulary.words
        and word not in vocabulary.words
    ):
        return base  # "a rainy walk" in a shop that sells for the rain
    if vocabulary.words and one not in vocabulary.words and word not in vocabulary.words:
        # "couches" in a shop that calls them sofas: the general synonym the catalog uses.
        for target in (*lx.CATEGORY_SYNONYMS.get(word, ()), *lx.CATEGORY_SYNONYMS.get(one, ())):
            for form in (target, *_plural_forms(target)):
                if form in vocabulary.words:
                    return singular(form)
        return _translated(word, one, vocabulary) or one
    return one


def _translated(word: str, one: str, vocabulary: Vocabulary) -> str:
    """An English word in the words of a catalog in another language ("oil" -> "huile"),
    the first of the language's words for it the catalog has; "" when it has none."""
    if vocabulary.language == "en":
        return ""
    translations = language_data(vocabulary.language).translations
    for form in (*translations.get(word, ()), *translations.get(one, ())):
        if " " not in form and form in vocabulary.words:
            return form
    return ""


def _adjective_base(word: str) -> str:
    """The noun an English adjective in -y is made of ("rainy", "windy", "sunny": "rain",
    "wind", "sun"), else ""."""
    if len(word) < 5 or not word.endswith("y") or word[-2] in "aeiouy":
        return ""
    base = word[:-1]
    return base[:-1] if base[-1] == base[-2] else base


def _plural_forms(word: str) -> tuple[str, ...]:
    if " " in word:
        return ()
    return (word + "s", word + "es")


# English contractions' endings ("we're", "i'm", "it's", "we'll", "i'd", "we've", "don't").
_CONTRACTIONS = frozenset({"re", "m", "s", "ll", "d", "ve", "t"})


def _terms(work: str, vocabulary: Vocabulary) -> list[str]:
    terms: list[str] = []
    previous = ""
    for word in re.findall(r"[\w']+", work):
        word = word.strip("'")
        base, _, ending = word.partition("'")
        if ending in _CONTRACTIONS:
            # "we're", "i'd", "it's": the pronoun; "don't", "can't": an auxiliary, no wish.
            word = "" if ending == "t" else base
        before, previous = previous, word
        if not word or word in lx.FILLER_WORDS or word in lx.GENDER_WORDS:
            continue
        if word in lx.RECIPIENTS or lx.GIFT.fullmatch(word):
            continue
        if len(word) == 1 and not word.isdigit():
            # A letter naming a model after the catalog's word for it ("iPhone X") is kept.
            if f"{before} {word}" in vocabulary.letter_models:
                terms.append(word)
            continue
        if word in lx.ORDINALS or word in lx.NUMBER_WORDS:
            continue
        if (word in lx.OCCASION_WORDS or city_names(word)) and not {
            word,
            singular(word),
            *lx.USE_SYNONYMS.get(word, ()),  # "winter": what descriptions say ("warm")
        } & vocabulary.words:
            continue  # "for the winter", "in Madrid": not what the product is
        terms.append(_catalog_form(word, vocabulary))
    return list(dict.fromkeys(terms))[:8]


def _take(pattern: re.Pattern[str], text: str) -> tuple[bool, str]:
    """Whether `pattern` occurs in `text`, and the text with its occurrences blanked out."""
    if not pattern.search(text):
        return False, text
    return True, pattern.sub(" ", text)
