"""The words of one organization's catalog: brands, categories and attribute values.

Understanding a message needs to know which words name a brand or a category *in this
catalog*. Reading them is a scan of the catalog, so they are kept per organization until its
words may have changed (knowledge/catalog/freshness.py; `MAX_AGE_SECONDS` at most); they only steer understanding: every product, price
and stock figure in a reply is read live at reply time.
"""

from __future__ import annotations

import re
import threading
import time
import uuid
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from itertools import pairwise
from typing import Any

from django.db.models import Min

from accounts.models import Organization
from infrastructure.prepared import PreparedQuery
from knowledge.engines.catalog.phrases import PhraseIndex
from knowledge.language import LANGUAGES, NOUN_FIRST
from knowledge.language.places import cities_in, city_names
from knowledge.language.vocabulary import language_data
from knowledge.models import CatalogVersion, Product, SearchTerm, Store
from knowledge.search.text import fold, words

# Kept until the organization's CatalogVersion changes (an import, a product added, removed or
# renamed through the catalog API or the console), and at most this long (a safety net; prices
# and stock are always read live).
MAX_AGE_SECONDS = 600.0
_cache: dict[str, tuple[float, uuid.UUID | None, Vocabulary]] = {}
PHRASE_KINDS = ("brands", "categories", "colors", "materials", "stores")
_lock = threading.Lock()
# A note in brackets after a product's name ("Raclette (fromage fondu)") is not its name.
_BRACKETED = re.compile(r"[(\[].*?([)\]]|$)")
# Measures written after a product's name ("128 GB", "750 ml"): never its kind.
_UNITS = frozenset(
    {"gb", "tb", "mb", "ml", "cl", "kg", "mm", "cm", "inch", "inches", "pack", "pcs", "set"}
)


@dataclass
class Vocabulary:
    # folded phrase -> the value as the catalog spells it
    brands: dict[str, str] = field(default_factory=dict)
    categories: dict[str, str] = field(default_factory=dict)
    # The last word of each category phrase, in both numbers -> those phrases ("jewellery" ->
    # ["womens jewellery"]): a shopper's general word finds the catalog's own category.
    category_heads: dict[str, list[str]] = field(default_factory=dict)
    colors: dict[str, str] = field(default_factory=dict)
    sizes: dict[str, str] = field(default_factory=dict)
    materials: dict[str, str] = field(default_factory=dict)
    genders: dict[str, str] = field(default_factory=dict)
    age_groups: dict[str, str] = field(default_factory=dict)  # "kids" -> the feed's "Kids"
    stores: dict[str, str] = field(default_factory=dict)  # folded name/code/city -> code
    # The catalog's name words (titles, brands, categories, attributes: SearchTerm), to tell
    # a product word from small talk and a plural from a word the catalog lacks.
    words: frozenset[str] = frozenset()
    # A title word and the one letter after it ("iphone x"): a model the letter tells apart.
    letter_models: frozenset[str] = frozenset()
    # The titles' head nouns (kinds.product_kind's word: "jacket" of "Waterproof Rain
    # Jacket"), in both numbers: "is it waterproof?" asks about a product, "is it a jacket?"
    # may name another.
    title_heads: frozenset[str] = frozenset()
    first_created_at: datetime | None = None

    top_levels: list[str] = field(default_factory=list)  # first levels of category paths
    currency: str = ""  # the catalog's (first) currency, for the shopper's own amounts
    language: str = "en"  # the catalog's language (Organization.language)
    # Readings of messages with these words (understanding.py): the history is read again on
    # every message, so each past message is understood once per vocabulary's lifetime.
    readings: dict[str, Any] = field(default_factory=dict, repr=False)
    readings_chars: int = field(default=0, repr=False)  # the readings' messages, together
    # What each query word the catalog lacks became (knowledge.search.product_search): typos
    # and unknown words are looked up once per vocabulary's lifetime, not on every search.
    spellings: dict[str, list[str]] = field(default_factory=dict, repr=False)
    # Each kind of phrase (brands, categories...) indexed for finding in a message, built
    # once per vocabulary: a message's cost must not grow with the catalog's words.
    indexes: dict[str, PhraseIndex] = field(default_factory=dict, repr=False)
    _catalog_words: frozenset[str] | None = field(default=None, repr=False)
    _browsable: list[str] | None = field(default=None, repr=False)

    def catalog_words(self) -> frozenset[str]:
        """Every word of the catalog's brands, categories and store names (folded), but the
        languages' stop words: "et" of "Fruits et légumes" still tells French from Spanish."""
        if self._catalog_words is None:
            general = frozenset().union(*(language_data(code).stop_words for code in LANGUAGES))
            self._catalog_words = frozenset(
                word
                for kind in (self.brands, self.categories, self.stores)
                for phrase_text in kind
                for word in phrase_text.split()
                if word not in general
            )
        return self._catalog_words

    def top_categories(self) -> list[str]:
        return self.top_levels

    def browsable_categories(self) -> list[str]:
        """The top categories that are not also a brand's name, worked out once per
        vocabulary: a catalog may have thousands, and every reply may suggest some."""
        if self._browsable is None:
            self._browsable = [c for c in self.top_levels if phrase(c) not in self.brands]
        return self._browsable

    def index(self, kind: str) -> PhraseIndex:
        """The phrases of `kind` ("brands", "categories", "colors", "materials", "stores")."""
        index = self.indexes.get(kind)
        if index is None:
            index = self.indexes[kind] = PhraseIndex(getattr(self, kind))
        return index


# Folding can lengthen a text many times over (NFKD spells U+FDFA in 18 characters, "&" becomes
# " and "): the message limit counts characters before folding, so the folded text is cut here,
# at twice the longest message, to keep a message's reading within its time bound.
MAX_NORMALIZED_CHARS = 8000


def normalize(text: str) -> str:
    """Folded text with `&` spelled out, possessives and punctuation reduced to spaces.

    At most MAX_NORMALIZED_CHARS characters: what folding adds beyond them is not read.
    """
    text = fold(text, MAX_NORMALIZED_CHARS).replace("\u2019", "'").replace("&", " and ")
    text = text[:MAX_NORMALIZED_CHARS]
    text = re.sub(r"\b(men|women|kid|girl|boy|lady|ladie)'s\b", r"\1s", text)
    text = re.sub(r"(?<=[a-z])-(?=[a-z])", " ", text)  # "t-shirt", "off-white"
    text = re.sub(r"[^\w$€£%+.,'-]+", " ", text)
    return re.sub(r"\s+", " ", text).strip()


def phrase(text: str) -> str:
    """A catalog value as a plain word sequence for matching inside a message."""
    return re.sub(r"\s+", " ", re.sub(r"[^\w]+", " ", normalize(text))).strip()


# Read on every message: compiled once (infrastructure/prepared.py).
_catalog_version = PreparedQuery(
    lambda organization_id: CatalogVersion.objects.filter(
        organization_id=organization_id
    ).values_list("stamp"),
    organization_id=CatalogVersion._meta.get_field("organization"),
)


def vocabulary_for(organization: Organization) -> Vocabulary:
    """The catalog's words, read again after they may have changed (one cheap query tells)."""
    key = str(organization.pk)
    now = time.monotonic()
    version = _catalog_version.fetch(organization_id=organization.pk, limit=1)
    stamp = version[0][0] if version else None
    cached = _cache.get(key)
    if (
        cached is not None
        and cached[1] == stamp
        and now - cached[0] < MAX_AGE_SECONDS
        and cached[2].language == organization.language
    ):
        return cached[2]
    vocabulary = _vocabulary_load(organization)
    with _lock:
        _cache[key] = (now, stamp, vocabulary)
    return vocabulary


def vocabulary_forget(organization_id) -> None:
    """Drops the cached words of an organization (after a catalog import, say)."""
    with _lock:
        _cache.pop(str(organization_id), None)


def _distinct(organization: Organization, field_name: str) -> list[str]:
    values = (
        Product.objects.filter(organization=organization)
        .exclude(**{field_name: ""})
        .values_list(field_name, flat=True)
        .order_by()  # the model's default ordering would make DISTINCT run over titles too
        .distinct()
    )
    return [value for value in values if value and value.strip()]


def _vocabulary_load(organization: Organization) -> Vocabulary:
    vocabulary = Vocabulary(language=organization.language)
    language = organization.language
    levels_seen: list[str] = []
    for field_name in ("product_type", "google_product_category"):
        for path in _distinct(organization, field_name):
            levels = [level.strip() for level in path.split(">") if level.strip()]
            if levels and field_name == "product_type" and levels[0] not in vocabulary.top_levels:
                vocabulary.top_levels.append(levels[0])
            vocabulary.categories.setdefault(phrase(path), path)
            for level in levels:
                levels_seen.append(level)
                for spelling in _number_forms(phrase(level), language):
                    vocabulary.categories.setdefault(spelling, level)
    for key, level in vocabulary.categories.items():
        for form in _number_forms(key.rpartition(" ")[2], language):
            keys = vocabulary.category_heads.setdefault(form, [])
            # One key per level: its other spellings name the same category.
            if not any(vocabulary.categories[other] == level for other in keys):
                keys.append(key)
    # After every whole level: a level's own name always wins over another's part.
    titles = _distinct(organization, "title")
    title_words, vocabulary.letter_models = _title_words(titles)
    for level in dict.fromkeys(levels_seen):
        for part in level_parts(phrase(level), language, title_words):
            for spelling in _number_forms(part, language):
                vocabulary.categories.setdefault(spelling, level)
    for brand in _distinct(organization, "brand"):
        full = phrase(brand)
        for alias in _brand_aliases(brand):
            # "Furniture Co." may be called "furniture co", but "furniture" stays a category.
            if alias == full or alias not in vocabulary.categories:
                vocabulary.brands.setdefault(alias, brand)
    for field_name, target in (
        ("color", vocabulary.colors),
        ("size", vocabulary.sizes),
        ("material", vocabulary.materials),
        ("gender", vocabulary.genders),
        ("age_group", vocabulary.age_groups),
    ):
        for value in _distinct(organization, field_name):
            target.setdefault(phrase(value), value)
    vocabulary.title_heads = _title_heads(titles, vocabulary)
    vocabulary.words = frozenset(
        SearchTerm.objects.filter(organization=organization).values_list("term", flat=True)
    )
    vocabulary.stores = _store_phrases(Store.objects.filter(organization=organization))
    vocabulary.top_levels.sort()
    currencies = _distinct(organization, "currency")
    vocabulary.currency = currencies[0] if currencies else ""
    vocabulary.first_created_at = Product.objects.filter(organization=organization).aggregate(
        first=Min("created_at")
    )["first"]
    for kind in PHRASE_KINDS:
        vocabulary.index(kind)  # built with the vocabulary, not on a shopper's message
    return vocabulary


def _store_phrases(stores: Iterable[Store]) -> dict[str, str]:
    """Each store's code, name and the words of its name only it has ("berlin" for "Demo
    Shop Berlin Mitte" when the other store is "Demo Shop Munich Center"): what shoppers say."""
    stores = list(stores)
    phrases: dict[str, str] = {}
    word_stores: dict[str, set[str]] = {}
    for store in stores:
        phrases.setdefault(phrase(store.code), store.code)
        if store.name:
            phrases.setdefault(phrase(store.name), store.code)
        for word in set(phrase(f"{store.name} {store.code.replace('-', ' ')}").split()):
            if len(word) >= 4 and not word.isdigit():
                word_stores.setdefault(word, set()).add(store.code)
    for word, codes in word_stores.items():
        if len(codes) == 1:
            phrases.setdefault(word, next(iter(codes)))
    # The city a store's name gives, in the shopper's language too ("München", "Hambourg"),
    # when only that store is in it.
    city_stores: dict[str, set[str]] = {}
    for store in stores:
        for city in cities_in(phrase(store.name)):
            city_stores.setdefault(city, set()).add(store.code)
    for city, codes in city_stores.items():
        for name in city_names(city) if len(codes) == 1 else ():
            phrases.setdefault(name, next(iter(codes)))
    return phrases


# The words joining the parts of one category level ("Fruits et légumes", "Meat, Seafood &
# Eggs"): `phrase` has turned "&" and commas into "and" and spaces.
_CONJUNCTIONS = {"en": "and", "fr": "et", "de": "und", "es": "y", "it": "e"}
# Endings that make a French shop or shelf of what it sells: "poissonnerie" of "poisson",
# "crèmerie" of "crème". (English "-ery" words are seldom so: "stationery", "pantry".)
_SHOP_ENDINGS = {"fr": ("nerie", "erie", "rie")}
MIN_PART_CHARS = 4
MIN_SHOP_STEM_CHARS = 5


def level_parts(level: str, language: str, title_words: frozenset[str]) -> list[str]:
    """The phrases a shopper may use for one category level (folded, as `phrase` makes it):
    each part of a level joined by "and" ("condiments" of "Sauces et condiments"), and the
    thing a shelf is named after ("poisson" of "Poissonnerie").

    A part that names products in their titles ("riz" of "Céréales, pâtes et riz") stays a
    word to search: the level holds other things too. In English, "Food & Beverage Carriers"
    shares its last word between its parts: a one-word part before a longer last one is no
    category of its own.
    """
    parts: list[str] = []
    words = level.split()
    if len(words) == 1:
        word = words[0]
        for ending in _SHOP_ENDINGS.get(language, ()):
            stem = word.removesuffix(ending)
            if stem != word and len(stem) >= MIN_SHOP_STEM_CHARS:
                parts.append(stem)
        return parts
    conjunction = _CONJUNCTIONS.get(language, "and")
    split = [part.strip() for part in f" {level} ".split(f" {conjunction} ")]
    split = [part for part in split if part]
    if len(split) < 2 and conjunction != "and":
        split = [part.strip() for part in f" {level} ".split(" and ") if part.strip()]
    if len(split) < 2:
        return parts
    head_last = language in ("en", "de")
    if head_last and len(split[-1].split()) > 1 and any(" " not in p for p in split[:-1]):
        return parts
    for part in split:
        if len(part) < MIN_PART_CHARS:
            continue
        if " " not in part and any(f in title_words for f in _number_forms(part, language)):
            continue
        parts.append(part)
    return parts


def _title_words(titles: list[str]) -> tuple[frozenset[str], frozenset[str]]:
    """Every folded word of the catalog's titles, and each word followed by a one-letter
    word in a title ("iphone x")."""
    found: set[str] = set()
    models: set[str] = set()
    for title in titles:
        said = phrase(title).split()
        found.update(said)
        models.update(
            f"{word} {letter}"
            for word, letter in pairwise(said)
            if len(letter) == 1 and letter.isalpha() and len(word) > 1
        )
    return frozenset(found), frozenset(models)


def _title_heads(titles: list[str], vocabulary: Vocabulary) -> frozenset[str]:
    """The titles' head nouns, in both numbers: their last word in English and German, first
    in French, Spanish and Italian, skipping measures, notes in brackets and the catalog's
    colours, sizes and materials ("Pixelon P7 Smartphone 128 GB Black": "smartphone")."""
    skip = {*vocabulary.colors, *vocabulary.sizes, *vocabulary.materials}
    heads: set[str] = set()
    for title in titles:
        if head := title_head(title, vocabulary.language, skip=skip):
            heads.update(_number_forms(head, vocabulary.language))
    return frozenset(heads)


def title_head(title: str, language: str, *, skip: Collection[str] = ()) -> str:
    """The head noun of a product title, folded: its last word in English and German, first
    in French, Spanish and Italian, leaving out notes in brackets, measures, words with
    digits and the `skip` words (the product's colour, size...); "" when none is left."""
    named = words(_BRACKETED.sub(" ", title)) or words(title)
    for word in named if language in NOUN_FIRST else reversed(named):
        digits = any(char.isdigit() for char in word)
        if len(word) > 2 and not digits and word not in _UNITS and word not in skip:
            return word
    return ""


def _number_forms(words: str, language: str = "en") -> list[str]:
    """ "running shoes" -> also "running shoe"; "laptop" -> also "laptops"; in French,
    Spanish and Italian catalogs every word of a phrase changes number together ("fruits
    secs" -> "fruit sec"), their plural being mostly a final s or x."""
    if language in ("fr", "es", "it"):
        return _romance_number_forms(words)
    head, _, last = words.rpartition(" ")
    if not last or last.isdigit():
        return [words]
    if last.endswith("ies"):
        other = last[:-3] + "y"
    elif last.endswith(("ches", "shes", "xes", "sses")):
        other = last[:-2]
    elif last.endswith("s") and not last.endswith("ss"):
        other = last[:-1]
    elif last.endswith("y"):
        other = last[:-1] + "ies"
    elif last.endswith(("ch", "sh", "x", "s")):
        other = last + "es"
    else:
        other = last + "s"
    return [words, f"{head} {other}".strip()]


def _romance_number_forms(words: str) -> list[str]:
    said = words.split()
    if not said or any(word.isdigit() for word in said):
        return [words]
    # "et", "de"... stay as they are
    plural = [
        w if w.endswith(("s", "x")) or len(w) <= 2 or w in _CONJUNCTIONS.values() else f"{w}s"
        for w in said
    ]
    single = [w[:-1] if w.endswith(("s", "x")) and len(w) > 3 else w for w in said]
    # A French adjective's masculine: "épicerie sucrée" is what "sucré" names.
    masculine = [w[:-1] if w.endswith("ee") else w for w in single]
    forms = [words, " ".join(plural), " ".join(single), " ".join(masculine)]
    return list(dict.fromkeys(forms))


def _brand_aliases(brand: str) -> set[str]:
    aliases = {phrase(brand)}
    without_suffix = re.sub(r"\b(co|inc|ltd|llc|gmbh|corp)\b\.?", "", phrase(brand)).strip()
    if without_suffix and len(without_suffix) >= 3:
        aliases.add(without_suffix)
    aliases.add(phrase(brand).replace(" and ", " "))
    return {alias for alias in aliases if alias}
