"""Which language a message is written in: lingua (offline, built for short text) restricted
to the languages asked for, helped by the shopping phrases of `data/` for very short messages.

A message too short to tell ("ok", "42", "iPhone X") is reported as not sure, and the caller
falls back to the conversation's or the organization's language.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass

from lingua import IsoCode639_1, Language, LanguageDetector, LanguageDetectorBuilder

from knowledge.language import LANGUAGES
from knowledge.language.vocabulary import language_votes, marker_languages

# Fewer letters than this tell no language apart ("ok", "x2").
MIN_LETTERS = 3
# lingua's confidence (0-1, summed over the candidates) a language needs to be taken, and the
# confidence that settles it whatever the shopping phrases say.
MIN_CONFIDENCE = 0.5
SURE_CONFIDENCE = 0.9
LEAD_WORDS, LEAD_CONFIDENCE, LEAD_MARGIN = 3, 0.4, 0.25
_LETTERS = re.compile(r"[^\W\d_]")
# A message's language shows in its first words; reading more only costs time (lingua's
# work grows with the text).
DETECTED_CHARS = 300
_WORDS = re.compile(r"[^\W\d_]{2,}")
_SPANISH_MARKS = re.compile("[¿¡]")


@dataclass(frozen=True)
class Detected:
    language: str
    sure: bool


def message_language(text: str, *, default: str) -> Detected:
    """The language of a shopper's message among LANGUAGES; `default`, not sure, when the
    message is too short or too ambiguous to tell."""
    text = text[:DETECTED_CHARS]
    if len(_LETTERS.findall(text)) < MIN_LETTERS:
        return Detected(default, False)
    # Words only one language's shopping phrases use ("merci", "danke", "the"): on a short
    # message these say more than letter statistics do.
    markers = marker_languages(text)
    # Only Spanish opens a question or an exclamation with its mark ("¿aceptan PayPal?").
    if _SPANISH_MARKS.search(text) and (not markers or "es" in markers):
        return Detected("es", True)
    values = detector(LANGUAGES).compute_language_confidence_values(text)
    best = values[0] if values else None
    found = best.language.iso_code_639_1.name.lower() if best else ""
    if best is not None and best.value >= SURE_CONFIDENCE and (not markers or found in markers):
        return Detected(found, True)
    if len(markers) == 1:
        return Detected(next(iter(markers)), True)
    # One word and no shopping phrase ("couches", "Tablets"): a catalog word, no language.
    confident = best is not None and best.value >= MIN_CONFIDENCE
    if confident and (markers or _words(text) > 1) and (not markers or found in markers):
        return Detected(found, True)
    # A few words with no shopping phrase ("un parfum Dior"): lingua's choice when it is well
    # ahead of the next language.
    if (
        best is not None
        and not markers
        and _words(text) >= LEAD_WORDS
        and best.value >= LEAD_CONFIDENCE
        and best.value - (values[1].value if len(values) > 1 else 0.0) >= LEAD_MARGIN
    ):
        return Detected(found, True)
    if voted := _told_by_shared_words(text, values, default):
        return Detected(voted, True)
    return Detected(default, False)


def _told_by_shared_words(text: str, values: list, default: str) -> str:
    """The language whose shopping words `text` uses most ("un perfume de": Spanish has all
    three, French two); among equals the chatbot's (`default`: "entre 12 et 15 euros" in a
    French shop), else lingua's choice; "" when English is among them, since the engine's own
    words tell nothing then."""
    votes = language_votes(text)
    best = max(votes.values(), default=0)
    top = {code for code, count in votes.items() if count == best}
    if not best or "en" in top:
        return ""
    if default in top:
        return default
    confidence = {v.language.iso_code_639_1.name.lower(): v.value for v in values}
    return max(sorted(top), key=lambda code: confidence.get(code, 0.0))


def warm_up() -> None:
    """Loads the detector's models and the language data (a worker calls it before serving)."""
    message_language("bonjour, je cherche des chaussures", default="en")


def _words(text: str) -> int:
    return len(_WORDS.findall(text))


def language_of(text: str, languages: Iterable[str]) -> str:
    """The language code of `text` among `languages` (ISO 639-1), "" when it cannot be told."""
    text = text[:DETECTED_CHARS]
    if len(_LETTERS.findall(text)) < MIN_LETTERS:
        return ""
    return _confident(text, tuple(languages))


def _confident(text: str, languages: tuple[str, ...]) -> str:
    values = detector(languages).compute_language_confidence_values(text)
    if not values or values[0].value < MIN_CONFIDENCE:
        return ""
    return values[0].language.iso_code_639_1.name.lower()


@functools.cache
def detector(languages: tuple[str, ...]) -> LanguageDetector:
    """One detector per set of languages and process (its models load on first use, about a
    second and some 30 MB per language)."""
    chosen = [
        Language.from_iso_code_639_1(getattr(IsoCode639_1, code.upper())) for code in languages
    ]
    return LanguageDetectorBuilder.from_languages(*chosen).build()


# Messages of at most this many words are short: alone they seldom tell similar languages
# apart ("solo Asus" is Spanish and Italian).
SHORT_MESSAGE_WORDS = 3
# lingua's confidence that makes a language plausible for a short message.
PLAUSIBLE_CONFIDENCE = 0.15


def conversation_language(
    detected: Detected, text: str, *, earlier: str | None, default: str
) -> str:
    """The language to answer `text` in: the message's, unless it is too short to tell or is a
    short message the conversation's language (`earlier`) could equally have written."""
    if not detected.sure:
        return earlier or default
    if earlier and earlier != detected.language and _words(text) <= SHORT_MESSAGE_WORDS:
        markers = marker_languages(text[:DETECTED_CHARS])
        values = detector(LANGUAGES).compute_language_confidence_values(text[:DETECTED_CHARS])
        confidence = {v.language.iso_code_639_1.name.lower(): v.value for v in values}
        if earlier in markers or confidence.get(earlier, 0.0) >= PLAUSIBLE_CONFIDENCE:
            return earlier
    return detected.language
