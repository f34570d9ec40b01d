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
from knowledge.engines.catalog.vocabulary import Vocabulary, normalize
from knowledge.language.detect import Detected, message_language
from knowledge.language.folding import fold
from knowledge.language.reading import canonical_text

SORT_CHEAPEST = "price_asc"
SORT_PRICIEST = "price_desc"
SORT_BEST = "best"

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
_NUMERIC_SIZE = r"\b(?:in|come in|comes in|have (?:it|them) in)\s++([0-9]{1,2}(?:\.5)?)\b"
_QUESTION_START = re.compile(
    r"^(is|are|does|do|did|can|could|will|would|have|has|what|which|how|who|where|when|why)\b"
)
_FILTERING = re.compile(
    r"\b(which (of|ones?)|only( the)?( ones?)?|just the|any of (them|these|those)|"
    r"those that|the ones?|show (me )?(only|just))\b"
)
_REF_WORDS = re.compile(r"\b(them|those|these|ones|same)\b")
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
    topic: str = ""  # a detail asked about ("battery life", "smell"), see lexicon.TOPICS
    shop_policy: bool = False  # delivery, returns, payment...: not in the catalog
    gift: bool = False  # "a gift for my wife"
    asked_size: str = ""
    asked_color: str = ""
    store_code: str = ""
    # The words that could name a product ("the Dior J'adore"), brand words included.
    name_words: tuple[str, ...] = ()
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


def understand(text: str, vocabulary: Vocabulary, *, language: str = "") -> Understanding:
    """What `text` asks, in this catalog's words (the same text always reads the same).

    `language`: read the text in this language whatever it looks like (a message too short
    to tell, in a conversation held in that language).
    """
    key = f"{language}\x00{text}" if language else text
    reading = vocabulary.readings.get(key)
    if reading is None:
        full = len(vocabulary.readings) >= READINGS_KEPT
        if full or vocabulary.readings_chars + len(text) > READINGS_KEPT_CHARS:
            vocabulary.readings.clear()
            vocabulary.readings_chars = 0
        reading = vocabulary.readings[key] = _read(text, vocabulary, language)
        vocabulary.readings_chars += len(text)
    return reading


def _read(text: str, vocabulary: Vocabulary, language: str = "") -> Understanding:
    """The message in the shopper's language, read in the engine's words (knowledge/language).

    The catalog's own names (brands, categories, stores) say nothing of the shopper's language
    ("Samsung Galaxy"): the language is told from the other words.
    """
    if language:
        detected = Detected(language, False)
    else:
        own = vocabulary.catalog_words()
        shoppers = " ".join(w for w in text.split() if fold(w.strip(_PUNCTUATION)) not in own)
        detected = message_language(shoppers, default=vocabulary.language)
    canonical = canonical_text(text, detected.language, catalog_language=vocabulary.language)
    reading = _understand(canonical, vocabulary)
    reading.language, reading.language_sure = detected.language, detected.sure
    return reading


def _understand(text: str, vocabulary: Vocabulary) -> Understanding:
    normalized = normalize(text)
    work = f" {normalized} "
    limits, work = price_limits(work)

    asks: set[str] = set()
    sort = ""
    in_stock: bool | None = None
    on_sale: bool | None = None
    for pattern, name in (
        (lx.SIMILAR, "similar"),
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
    ):
        if pattern.search(normalized):
            asks.add(name)
    if "cheaper" in asks or "pricier" in asks:
        work = lx.CHEAPER.sub(" ", lx.PRICIER.sub(" ", work))
    found, work = _take(lx.IN_STOCK, work)
    if found:
        in_stock = True
    found, work = _take(lx.ON_SALE, work)
    if found:
        on_sale = True
    for pattern, order in (
        (lx.PRICIEST, SORT_PRICIEST),
        (lx.CHEAPEST, SORT_CHEAPEST),
        (lx.BEST, SORT_BEST),
    ):
        found, work = _take(pattern, work)
        if found:
            sort = order
            break

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
    work = _blank_spans(work, brand_spans)

    store_code = ""
    if vocabulary.stores and (
        "availability" in asks or re.search(r"\b(store|shop|branch)\b", work)
    ):
        found_stores = vocabulary.index("stores").find(work)
        if found_stores:
            store_code = found_stores[0].value
        work = _blank_spans(work, [(store.start, store.end) for store in found_stores])

    sizes: list[str] = []
    asked_size = ""
    size_patterns = [
        r"\bsize\s++([a-z0-9.]{1,5})\b",
        r"\b(?:in|come in|comes in|available in|have it in|got it in|in a|in an)\s+"
        r"(?:size\s+)?(xxs|xs|s|m|l|xl|xxl|xxxl|2xl|3xl)\b",
        r"\b(xxs|xs|xl|xxl|xxxl|2xl|3xl)\b",
        r"\b(?:size\s+|in\s+)(extra small|small|medium|large|extra large)\b",
        _NUMERIC_SIZE,
    ]
    for size_pattern in size_patterns:
        size_spans: list[tuple[int, int]] = []
        for match in re.finditer(size_pattern, work):
            raw = match.group(1).strip()
            if size_pattern is _NUMERIC_SIZE and raw not in vocabulary.sizes:
                continue  # "in 2024" is not a size unless the catalog has that size
            value = lx.SIZE_WORDS.get(raw, raw.upper() if raw in lx.LETTER_SIZES else raw)
            catalog_value = vocabulary.sizes.get(value.lower(), value)
            sizes.append(catalog_value)
            asked_size = asked_size or catalog_value
            size_spans.append((match.start(1), match.end(1)))
        work = _blank_spans(work, size_spans)

    colors: list[str] = []
    materials: list[str] = []
    genders: list[str] = []
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

    topic = ""
    for name, (pattern, _) in lx.TOPICS.items():
        if pattern.search(work):
            topic = topic or name
            work = pattern.sub(lambda m: " " * len(m.group(0)), work)
            extra = lx.TOPIC_EXTRA.get(name)
            if extra is not None:
                work = extra.sub(lambda m: " " * len(m.group(0)), work)
    # Question and small-talk phrases say what is asked, not what is searched for.
    for pattern in (
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
        lx.COMPARE,
        lx.SHOW_MORE,
        lx.THANKS,
        lx.GOODBYE,
        lx.HOW_ARE_YOU,
        lx.WHO_ARE_YOU,
        lx.GREETINGS,
    ):
        work = pattern.sub(lambda m: " " * len(m.group(0)), work)

    category = ""
    label = ""
    for named in vocabulary.index("categories").find(work):
        category = named.value
        work = _blank_span(work, named.start, named.end)
        break
    if not category:
        category, label, work = _category_from_synonyms(work, vocabulary)
    if vocabulary.genders:
        gender_words = [word for word in re.findall(r"\w+", work) if word in lx.GENDER_WORDS]
        for word in gender_words:
            gender = lx.GENDER_WORDS[word]
            genders.append(vocabulary.genders.get(gender, gender))
        for word in dict.fromkeys(gender_words):
            work = re.sub(rf"\b{word}\b", " ", work)

    pronoun = bool(lx.PRONOUNS.search(normalized))
    plural_reference = bool(lx.PLURAL_REFERENCE.search(normalized))
    ordinals = _ordinals(normalized)
    terms = _terms(work)
    name_words.extend(terms)

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
        min_price=limits.min_price,
        max_price=limits.max_price,
        around=limits.around,
        in_stock=in_stock,
        on_sale=on_sale,
        sort=sort,
    )
    smalltalk = _smalltalk(normalized)
    out_of_scope = bool(lx.OUT_OF_SCOPE.search(normalized))
    shop_policy = (
        bool(lx.SHOP_POLICY.search(normalized))
        and not constraints.category
        and not constraints.brands
    )
    if lx.GIFT.search(normalized) and vocabulary.genders and not constraints.genders:
        # "a gift for my wife": her products and unisex ones, when the catalog says so.
        wanted = {lx.RECIPIENTS[w] for w in re.findall(r"\w+", normalized) if lx.RECIPIENTS.get(w)}
        if len(wanted) == 1:
            gender = wanted.pop()
            genders_found = tuple(
                vocabulary.genders[g] for g in (gender, "unisex") if g in vocabulary.genders
            )
            constraints = replace(constraints, genders=genders_found)
    if out_of_scope:
        constraints = Constraints()
    return Understanding(
        text=text,
        normalized=normalized,
        constraints=constraints,
        smalltalk=smalltalk,
        out_of_scope=out_of_scope,
        asks=asks,
        ordinals=ordinals,
        pronoun=pronoun,
        plural_reference=plural_reference or bool(_REF_WORDS.search(normalized)),
        followup_start=bool(_FOLLOWUP_START.search(normalized)),
        subject_switch=bool(_SUBJECT_SWITCH.search(normalized)),
        filtering=bool(_FILTERING.search(normalized)) and constraints.has_filters(),
        interrogative=text.strip().endswith("?") or bool(_QUESTION_START.search(normalized)),
        topic=topic,
        shop_policy=shop_policy,
        gift=bool(lx.GIFT.search(normalized)),
        asked_size=asked_size,
        asked_color=colors[0] if colors else "",
        store_code=store_code,
        name_words=tuple(dict.fromkeys(name_words)),
    )


def _catalog_spelling(word: str, catalog: dict[str, str], aliases: dict[str, str]) -> str:
    if word in catalog:
        return catalog[word]
    alias = aliases.get(word)
    if alias and alias in catalog:
        return catalog[alias]
    return word


def _category_from_synonyms(work: str, vocabulary: Vocabulary) -> tuple[str, str, str]:
    """(catalog category, the shopper's word for it when it differs, remaining text)."""
    said = re.findall(r"\w+", work)
    # "shoes for men" / "mens shoes": a category level naming both, when the catalog has one;
    # the gender said last is tried first.
    genders = [w for w in said if w in lx.GENDER_WORDS]
    prefixes = dict.fromkeys(
        "mens" if lx.GENDER_WORDS[gender] == "male" else "womens" for gender in reversed(genders)
    )
    genders = list(dict.fromkeys(genders))
    # Each distinct word once: a repeated word reads the same every time.
    for word in dict.fromkeys(said):
        targets = lx.CATEGORY_SYNONYMS.get(word, ()) + lx.CATEGORY_SYNONYMS.get(singular(word), ())
        candidates = [f"{prefix} {c}" for prefix in prefixes for c in (word, *targets)]
        candidates += [word, singular(word), *targets]
        for candidate in candidates:
            if candidate in vocabulary.categories:
                work = re.sub(rf"\b{re.escape(word)}\b", " ", work)
                if candidate.startswith(("mens ", "womens ")):
                    for gender in genders:
                        work = re.sub(rf"\b{gender}\b", " ", work)
                category = vocabulary.categories[candidate]
                own_word = candidate in (word, singular(word)) or word in category.lower()
                return category, "" if own_word else word, work
    return "", "", work


def _words_removed(text: str, removed: set[str]) -> str:
    """The text with each whole word (or phrase) in `removed` blanked out, in one pass."""
    single = {value for value in removed if _WORD.fullmatch(value)}
    if single:
        text = _WORD.sub(lambda m: " " if m.group(0) in single else m.group(0), text)
    for value in removed - single:  # a catalog value of several words, found by phrase above
        text = re.sub(rf"(?<!\w){re.escape(value)}(?!\w)", " ", text)
    return text


def _terms(work: str) -> list[str]:
    terms: list[str] = []
    for word in re.findall(r"[\w']+", work):
        word = word.strip("'")
        if not word or word in lx.FILLER_WORDS or word in lx.GENDER_WORDS:
            continue
        if word in lx.RECIPIENTS or lx.GIFT.fullmatch(word):
            continue
        if len(word) == 1 and not word.isdigit():
            continue
        if word in lx.ORDINALS or word in lx.NUMBER_WORDS:
            continue
        terms.append(singular(word))
    return list(dict.fromkeys(terms))[:8]


def _take(pattern: re.Pattern[str], text: str) -> tuple[bool, str]:
    """Whether `pattern` occurs in `text`, and the text with its occurrences blanked out."""
    if not pattern.search(text):
        return False, text
    return True, pattern.sub(" ", text)
