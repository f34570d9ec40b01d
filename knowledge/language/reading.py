"""A message in another language read as the engine's English words.

The engine's understanding (knowledge/engines/catalog/understanding.py) reads English
shopping phrases ("under 50", "the second one", "in stock") and the catalog's own words. A
French, German, Spanish or Italian message is rewritten word by word before it: its shopping
phrases become the engine's words (`phrases` of `data/<code>.yaml`), its stop words drop out,
and, for a catalog in another language than the message's, common words for kinds of goods,
colours and materials become English (`glossary`). Everything else, the catalog's own words
included, is kept as the shopper wrote it. One pass, longest phrase first, matched on word
stems.
"""

from __future__ import annotations

import re

from knowledge.language.folding import fold
from knowledge.language.vocabulary import MAX_PHRASE_WORDS, LanguageData, language_data

# As much of a message as understanding reads (engines/catalog/vocabulary.normalize): folding
# can lengthen a text many times over ("⑴" is "(1)"), so the folded text is cut too.
READ_CHARS = 8000
_TOKEN = re.compile(r"\d+(?:[.,]\d+)*|\w+|[$€£%+<>~]")
# "12,50 €" and "1.299 €": a comma before two final digits is the decimal point, a dot before
# three digits groups thousands (French, German, Spanish and Italian write amounts so).
_DECIMAL_COMMA = re.compile(r"^(\d+),(\d{1,2})$")
_THOUSANDS_DOT = re.compile(r"^(\d{1,3})(?:\.(\d{3}))+$")
# Letter sizes: after "in" or "size" ("une robe en S", "Größe M") one is a size, not the
# elided pronoun or article a language writes with the same letter ("s'", "l'", "m'").
_LETTER_SIZES = frozenset({"xxs", "xs", "s", "m", "l", "xl", "xxl", "xxxl", "2xl", "3xl"})
_BEFORE_SIZE = frozenset({"in", "size"})


def canonical_text(
    text: str, language: str, *, catalog_language: str, own: frozenset[str] = frozenset()
) -> str:
    """`text` in the engine's words; English text is returned as it is. `own`: the catalog's
    words: a word of theirs the glossary would make an English word they lack ("jambon",
    "ham") is kept as said."""
    if language == "en":
        return text
    data = language_data(language)
    text = text.replace("\u2019", "'")
    text = text[:READ_CHARS]
    for pattern, engines in data.accented_patterns:
        text = pattern.sub(f" {engines} ", text)
    tokens, elided = _tokens(text)
    out = _engine_words(
        data, tokens, elided, glossary=own if catalog_language != language else None
    )
    canonical = " ".join(w for w in out if w)
    # The question mark says a message is a question (understanding reads it from the text).
    stripped = text.strip()
    return f"{canonical} ?" if stripped.endswith("?") or stripped.startswith("¿") else canonical


def _tokens(text: str) -> tuple[list[str], set[int]]:
    """The folded words and numbers of `text`, and the places of those an apostrophe joins to
    the next word ("l'eau", "s'il": such a letter is no size)."""
    folded = fold(text, READ_CHARS)[:READ_CHARS]
    found = list(_TOKEN.finditer(folded))
    elided = {n for n, match in enumerate(found) if folded[match.end() : match.end() + 1] == "'"}
    return [match.group(0) for match in found], elided


def _engine_words(
    data: LanguageData, tokens: list[str], elided: set[int], *, glossary: frozenset[str] | None
) -> list[str]:
    """The tokens in the engine's words, longest phrase first (`glossary`: the catalog's words
    when its language is not the message's, else None)."""
    # Each distinct word is stemmed once, however often it is repeated.
    stem_of = {t: data.stem(t) if t[0].isalpha() else t for t in set(tokens)}
    stems = [stem_of[t] for t in tokens]
    # Snowball keeps the plural of some short words ("velos"): their singular's stem too.
    singular_of = {
        t: data.stem(t[:-1]) if t[0].isalpha() and len(t) > 3 and t[-1] in "sx" else stem_of[t]
        for t in stem_of
    }
    singulars = [singular_of[t] for t in tokens]
    compounds: dict[str, str] = {}
    out: list[str] = []
    kinds: list[str] = []  # per word of `out`: "goods" (the glossary's), "word" (as said), ""
    linked: set[int] = set()  # the places of `out` that follow goods and a noun link ("de")
    position = 0
    while position < len(tokens):
        taken, words, goods = _phrase_at(data, tokens, stems, position, glossary=glossary)
        if not taken and tokens[position] in data.numbers:
            taken, words = _number_at(data, tokens, position)
        stop = not taken and tokens[position] in data.stop_words
        if stop and not _size_letter(tokens, position, elided, out):
            if tokens[position] in data.noun_links and kinds and kinds[-1] == "goods":
                linked.add(len(out))
            position += 1
            continue
        if not taken and singulars[position] != stems[position]:
            taken, words, goods = _phrase_at(data, tokens, singulars, position, glossary=glossary)
        if taken:
            out.append(words)
            kinds.append("goods" if goods else "")
            position += taken
            continue
        token = tokens[position]
        position += 1
        if data.compounds and MIN_COMPOUND_CHARS <= len(token) <= MAX_COMPOUND_CHARS:
            if token not in compounds:
                compounds[token] = _compound(data, token, glossary=glossary is not None) or token
            token = compounds[token]
        out.append(_amount(token) if token[0].isdigit() else token)
        kinds.append("" if token[0].isdigit() else "word")
    _head_last(out, kinds, linked)
    return out


def _size_letter(tokens: list[str], position: int, elided: set[int], out: list[str]) -> bool:
    """Whether the stop word at `position` is a letter size said after "in" or "size"."""
    return (
        tokens[position] in _LETTER_SIZES
        and position not in elided
        and bool(out)
        and out[-1] in _BEFORE_SIZE
    )


def _head_last(out: list[str], kinds: list[str], linked: set[int]) -> None:
    """ "consolas de videojuegos", "robe de soirée": a kind of goods, a noun link and what
    qualifies it, in English's order, the kind last ("game console", "evening dress"), since
    the engine reads the last word as the thing named. Not before a number ("funda de
    iPhone 12") nor of a shopping phrase ("moins de 50", "la tienda de Madrid")."""
    for index in sorted(linked):
        if index >= len(out) or kinds[index] not in ("goods", "word"):
            continue
        if kinds[index - 1] != "goods" or (index + 1 < len(out) and out[index + 1][:1].isdigit()):
            continue
        out[index - 1], out[index] = out[index], out[index - 1]
        kinds[index - 1], kinds[index] = kinds[index], kinds[index - 1]


def _phrase_at(
    data: LanguageData,
    tokens: list[str],
    stems: list[str],
    position: int,
    *,
    glossary: frozenset[str] | None,
) -> tuple[int, str, bool]:
    """(words taken, the engine's words, whether the glossary's) for the longest phrase
    starting at `position`: as written, else by stems; the glossary's words only for a
    catalog in another language than the message's (`glossary`: its words, None for one in
    the message's language), not for a word of its own it has no English word for."""
    if stems[position] not in data.starts and tokens[position] not in data.starts:
        return 0, "", False  # no phrase starts with this word: most words of a message
    for length in range(min(MAX_PHRASE_WORDS, len(stems) - position), 0, -1):
        found = data.exact.get(" ".join(tokens[position : position + length]))
        key = " ".join(stems[position : position + length])
        found = found or data.phrases.get(key)
        goods = False
        if (
            found is None
            and glossary is not None
            and (length > 1 or data.glossary_form(tokens[position], key))
        ):
            found = data.glossary.get(key)
            goods = found is not None
            if found and length == 1 and _own_word(tokens[position], found, glossary):
                found = None
        if found is not None:
            return length, found, goods
    return 0, "", False


def _own_word(token: str, english: str, own: frozenset[str]) -> bool:
    """Whether the catalog has the shopper's word but not the English one ("jambon", "ham")."""
    return token in own and not all(word in own for word in english.split())


def _number_at(data: LanguageData, tokens: list[str], position: int) -> tuple[int, str]:
    """(words taken, the number in digits) for a number written in words from `position`
    ("deux cents": 200, "cinquante": 50); hundreds and thousands multiply what comes before."""
    total = current = 0
    taken = 0
    previous = 0
    while position + taken < len(tokens) and tokens[position + taken] in data.numbers:
        value = data.numbers[tokens[position + taken]]
        # "deux trois", "mille mille": two numbers, not one; the first is read.
        if (previous and previous < 10 and value < 100) or (previous >= 1000 and value >= 1000):
            break
        if value >= 1000:
            total, current = (total + (current or 1)) * value, 0
        elif value == 100:
            current = (current or 1) * value
        else:
            current += value
        previous = value
        taken += 1
    return taken, str(total + current)


# Shorter words are seldom two words in one; longer ones are not words a shopper writes, and
# each split tried costs a stem of the word's length (a 4,000-letter "word" took a second).
MIN_COMPOUND_CHARS, MAX_COMPOUND_CHARS = 8, 40
_MIN_PART = 3
# An unknown head and a known tail: both long enough not to be a suffix ("-ball" of a word).
_MIN_HEAD, _MIN_TAIL = 4, 5


def _compound(data: LanguageData, token: str, *, glossary: bool) -> str:
    """A compound of two known words ("damenschuhe": "damen" + "schuhe") read as both, the
    longest known head first; else, for an English catalog, a head the data does not know
    before a kind of goods it does ("tennisschlager": "tennis racket"), the head as written;
    "" when no split gives a known kind."""
    words = {**data.glossary, **data.phrases} if glossary else data.phrases
    for split in range(len(token) - _MIN_PART, _MIN_PART - 1, -1):
        head, tail = data.key(token[:split]), data.key(token[split:])
        if head in words and (tail in words or tail in data.glossary):
            return f"{words[head]} {words.get(tail) or token[split:]}"
    if not glossary:
        return ""
    # The shortest known tail: the longest head the shopper wrote ("tennis" of "tennisschlager").
    for split in range(_MIN_HEAD, len(token) - _MIN_TAIL + 1):
        tail = data.key(token[split:])
        if tail in data.glossary:
            return f"{token[:split]} {data.glossary[tail]}"
    return ""


def _amount(token: str) -> str:
    if match := _DECIMAL_COMMA.match(token):
        return f"{match.group(1)}.{match.group(2)}"
    if _THOUSANDS_DOT.match(token):
        return token.replace(".", "")
    return token
