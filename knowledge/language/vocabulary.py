"""General shopping language per language (`data/<code>.yaml`), loaded once per process.

Each file holds what any shop's shoppers say, never one catalog's products:
- `stop_words`: words that say nothing about which product is wanted;
- `phrases`: the engine's English words for the language's shopping phrases (prices, stock,
  follow-ups, small talk, product questions), matched on word stems so plurals and feminine
  forms match too;
- `glossary`: the English words for common kinds of goods, food, colours and materials:
  a message in the language on an English catalog is read in them, and an English word a
  catalog in the language lacks is searched as the language's word (`translations`);
- `accented`: words an accent tells apart from another once folded (Italian "è", is, not
  "e", and), read as the engine's words before folding.

All of a language's words also vote for it (`language_votes`): a short message no word of
which is one language's alone is told by the language that has most of them.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from pathlib import Path

import snowballstemmer
import yaml

from knowledge.language import LANGUAGES
from knowledge.language.folding import fold

DATA = Path(__file__).resolve().parent / "data"
STEMMERS = {
    "en": "english",
    "fr": "french",
    "de": "german",
    "es": "spanish",
    "it": "italian",
}
# The most words a phrase of the data files has.
MAX_PHRASE_WORDS = 5
# Shorter stems match only the glossary word's own forms (LanguageData.glossary_form).
MIN_STEM_MATCH = 4
_WORD = re.compile(r"\w+")


@dataclass
class LanguageData:
    code: str
    stop_words: frozenset[str] = frozenset()
    # stems of the phrase's words, joined by spaces -> the engine's words
    phrases: dict[str, str] = field(default_factory=dict)
    glossary: dict[str, str] = field(default_factory=dict)
    # the phrase as written (folded) -> the engine's words: matched before stems, so forms
    # one stem covers ("gunstiger", "gunstigste") keep their own meaning
    exact: dict[str, str] = field(default_factory=dict)
    # single words of this language's data (for telling languages apart)
    markers: frozenset[str] = frozenset()
    # the engine's (English) words the data reads phrases as, singular and plural
    targets: frozenset[str] = frozenset()
    glossary_words: frozenset[str] = frozenset()
    # the glossary read the other way: an English word -> this language's words for it
    # (folded, their plural and feminine forms after them), for a catalog in this language
    translations: dict[str, tuple[str, ...]] = field(default_factory=dict)
    compounds: bool = False  # words are written together ("Damenschuhe"): split them
    # words an accent tells apart from another once folded (Italian "è", is, and "e", and),
    # read as the engine's words before folding
    accented: dict[str, str] = field(default_factory=dict)
    # each accented word as a whole word of any case, compiled once -> the engine's words
    accented_patterns: tuple[tuple[re.Pattern[str], str], ...] = ()
    # numbers written in words (not "un", "ein": articles too) -> their value
    numbers: dict[str, int] = field(default_factory=dict)
    # stop words that join a kind of goods to what qualifies it ("consolas de videojuegos")
    noun_links: frozenset[str] = frozenset()
    # the first word of every phrase and glossary entry, as written and as a stem
    starts: frozenset[str] = frozenset()
    # glossary words of a stem shorter than MIN_STEM_MATCH -> those words: such a stem is
    # too often another word's ("com" of "comida", food, and of "como", how)
    short_stems: dict[str, frozenset[str]] = field(default_factory=dict)

    def stem(self, word: str) -> str:
        return stemmer(self.code).stemWord(word)

    def glossary_form(self, token: str, key: str) -> bool:
        """Whether `token` is a form of the glossary's word of stem `key`: any token for a
        long stem; for a short one, the word itself or a form differing in its last letters
        ("rojos", "nere" for "rojo", "nero"), not a word that only shares the stem ("como")."""
        words = self.short_stems.get(key)
        if words is None:
            return True
        return any(
            abs(len(token) - len(word)) <= 2 and token[: len(word) - 1] == word[: len(word) - 1]
            for word in words
        )

    def key(self, text: str) -> str:
        """A phrase's lookup key: its folded words' stems."""
        return " ".join(self.stem(w) for w in _WORD.findall(fold(text)))


@functools.cache
def stemmer(code: str):
    """The Snowball stemmer of a language (one per process: stemmers keep a small cache)."""
    return snowballstemmer.stemmer(STEMMERS[code])


# Plural and feminine endings, for words whose forms Snowball stems apart (Italian "telefono"
# is "telef", "telefoni" "telefon"): (ending, replacement) pairs per language.
_ENDINGS = {
    "it": (("o", "i"), ("a", "e"), ("e", "i"), ("co", "chi"), ("ca", "che")),
    "es": (("", "s"), ("", "es"), ("z", "ces"), ("o", "a"), ("o", "as")),
    "fr": (("", "s"), ("", "x"), ("al", "aux"), ("", "e"), ("", "es")),
    "de": (("", "e"), ("", "en"), ("", "n"), ("", "s"), ("", "er")),
}


def inflections(code: str, word: str) -> list[str]:
    """The plural and feminine forms of a one-word glossary entry ("telefono": "telefoni")."""
    if not _WORD.fullmatch(word):
        return []
    return [
        word[: len(word) - len(end)] + new
        for end, new in _ENDINGS.get(code, ())
        if word.endswith(end)
    ]


@functools.cache
def language_data(code: str) -> LanguageData:
    # Every value a string: YAML 1.1 would read "no", "si" or "on" as booleans.
    raw = yaml.load((DATA / f"{code}.yaml").read_text(encoding="utf-8"), yaml.BaseLoader) or {}
    data = LanguageData(
        code,
        stop_words=frozenset(fold(w) for w in raw.get("stop_words", [])),
        compounds=raw.get("compounds") == "true",
        accented={str(k).lower(): str(v) for k, v in (raw.get("accented") or {}).items()},
        numbers={fold(str(k)): int(v) for k, v in (raw.get("numbers") or {}).items()},
        noun_links=frozenset(fold(w) for w in raw.get("noun_links", [])),
    )
    data.accented_patterns = tuple(
        (re.compile(rf"(?<!\w){re.escape(word)}(?!\w)", re.IGNORECASE), engines)
        for word, engines in data.accented.items()
    )
    for kind in ("phrases", "glossary"):
        target = getattr(data, kind)
        for english, said in (raw.get(kind) or {}).items():
            for text in said:
                target.setdefault(data.key(str(text)), str(english))
                if kind == "glossary":
                    for form in inflections(code, fold(str(text))):
                        target.setdefault(data.key(form), str(english))
                if kind == "phrases":
                    data.exact.setdefault(" ".join(_WORD.findall(fold(str(text)))), str(english))
    said = [
        str(t)
        for kind in ("phrases", "glossary")
        for v in (raw.get(kind) or {}).values()
        for t in v
    ]
    singles = {fold(t) for t in said}
    data.markers = frozenset(w for w in singles if _WORD.fullmatch(w)) | data.stop_words
    data.targets = frozenset(
        form
        for kind in ("phrases", "glossary")
        for english in raw.get(kind) or {}
        for w in english.split()
        for form in (w, w.removesuffix("s"))
    )
    data.starts = frozenset(
        key.split(" ")[0] for table in (data.phrases, data.glossary, data.exact) for key in table
    )
    data.glossary_words = frozenset(
        fold(str(t)) for v in (raw.get("glossary") or {}).values() for t in v
    )
    data.translations = _translations(code, raw.get("glossary") or {})
    for word in data.glossary_words:
        key = data.key(word)
        if _WORD.fullmatch(word) and len(key) < MIN_STEM_MATCH:
            data.short_stems[key] = data.short_stems.get(key, frozenset()) | {word}
    return data


def _translations(code: str, glossary: dict) -> dict[str, tuple[str, ...]]:
    """English word -> the glossary's words for it in language `code`, folded, each followed
    by its plural and feminine forms ("oil": "huile", "huiles", "huilee"...)."""
    return {
        str(english): tuple(
            dict.fromkeys(
                form
                for text in said
                for form in (fold(str(text)), *inflections(code, fold(str(text))))
            )
        )
        for english, said in glossary.items()
    }


# Shorter words tell no language apart ("a", "t", "on" are words in several).
MIN_MARKER_CHARS = 3


# Only the stems of longer words of the glossary also mark a language ("Sonnenbrillen" for
# "Sonnenbrille"): a short stem is too often another language's word ("moin" of "moins").
MIN_MARKER_STEM = 5


@functools.cache
def exclusive_markers() -> dict[str, frozenset[str]]:
    """Each language's marker words that no other served language has and no English shopper
    writes too (the engine's own words, `shared_words` of en.yaml): the words themselves, and
    their stems of at least MIN_MARKER_STEM letters unless an English word has the same stem."""
    markers = {code: language_data(code).markers for code in LANGUAGES}
    raw = yaml.load((DATA / "en.yaml").read_text(encoding="utf-8"), yaml.BaseLoader) or {}
    shared = {fold(w) for w in raw.get("shared_words", [])}
    english = shared | {fold(w) for w in raw.get("stop_words", [])}
    for code in LANGUAGES:
        english |= language_data(code).targets
    found: dict[str, frozenset[str]] = {}
    for code, words in markers.items():
        data = language_data(code)
        exclusive = {
            w
            for w in words
            if len(w) >= MIN_MARKER_CHARS
            and (w not in english if code != "en" else w not in shared)
            and not any(w in markers[other] for other in LANGUAGES if other != code)
        }
        taken = english | {w for other in LANGUAGES if other != code for w in markers[other]}
        stems = {data.stem(w) for w in exclusive & data.glossary_words} - {
            data.stem(w) for w in taken
        }
        found[code] = frozenset(exclusive | {f"~{s}" for s in stems if len(s) >= MIN_MARKER_STEM})
    return found


def marker_languages(text: str) -> set[str]:
    """The languages whose exclusive marker words are most frequent in `text` (empty: none)."""
    said = [w for w in _WORD.findall(fold(text)) if len(w) >= MIN_MARKER_CHARS]
    counts = {
        code: sum(w in markers or f"~{language_data(code).stem(w)}" in markers for w in said)
        for code, markers in exclusive_markers().items()
    }
    best = max(counts.values(), default=0)
    return {code for code, count in counts.items() if count == best} if best else set()


# A vote is no language's alone, so shorter stems than a marker's count ("uhr" of "Uhren").
MIN_VOTE_STEM = 3


@functools.cache
def _language_words() -> dict[str, tuple[frozenset[str], frozenset[str]]]:
    """Per language, the words of its data (stop words, phrase and glossary words, these
    inflected) and their stems of at least MIN_VOTE_STEM letters; English's are its stop and
    shared words and the engine's words the other languages' data reads phrases as."""
    raw = yaml.load((DATA / "en.yaml").read_text(encoding="utf-8"), yaml.BaseLoader) or {}
    english = {fold(w) for kind in ("stop_words", "shared_words") for w in raw.get(kind, [])}
    for code in LANGUAGES:
        english |= language_data(code).targets
    found = {}
    for code in LANGUAGES:
        data = language_data(code)
        words = english if code == "en" else data.markers
        if code != "en":
            words = words | {f for w in data.glossary_words for f in inflections(code, w)}
        stems = {stemmer(code).stemWord(w) for w in words}
        found[code] = (frozenset(words), frozenset(s for s in stems if len(s) >= MIN_VOTE_STEM))
    return found


def language_votes(text: str) -> dict[str, int]:
    """For each language, how many words of `text` its data has, shared words included ("un"
    and "de" count for French and Spanish alike): what short function words and kinds of goods
    say when no word is one language's alone."""
    said = _WORD.findall(fold(text))
    votes = {}
    for code, (words, stems) in _language_words().items():
        stem = stemmer(code).stemWord
        votes[code] = sum(w in words or (len(w) > MIN_VOTE_STEM and stem(w) in stems) for w in said)
    return votes
