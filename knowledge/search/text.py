"""Query text handling shared by both search backends: folding, words, stop words, trigrams."""

from __future__ import annotations

import re

from knowledge.language.folding import fold as fold  # re-exported: one folding

# Words that say nothing about the product. Both backends drop them from the query so that
# "shoes for men" means the same on PostgreSQL (whose English config drops them too) and SQLite.
_STOP_WORDS_TEXT = """a an and are as at be but by for from has have i in is it its me my of on or our so
    than that the their them these this those to too very was we were what which with you
    your any some show find want need looking look get buy please"""
STOP_WORDS = frozenset(_STOP_WORDS_TEXT.split())
MAX_WORDS = 12
# How alike (pg_trgm similarity) a catalog word must be to replace a word that matches nothing.
SIMILARITY_THRESHOLD = 0.4
MAX_WORD_LENGTH = 40
_WORD = re.compile(r"[^\W_]+")


def words(text: str) -> list[str]:
    """All folded words of `text` in order (letters and digits; everything else separates)."""
    return _WORD.findall(fold(text))


def query_words(query: str) -> list[str]:
    """The words of a shopper's query worth searching for, without duplicates, in order."""
    seen: dict[str, None] = {}
    for word in words(query):
        if word in STOP_WORDS or len(word) > MAX_WORD_LENGTH:
            continue
        if len(word) == 1 and not word.isdigit():
            continue
        seen.setdefault(word, None)
    return list(seen)[:MAX_WORDS]


def trigrams(word: str) -> set[str]:
    """The trigrams of a word as pg_trgm makes them (two spaces before, one after)."""
    padded = f"  {word} "
    return {padded[index : index + 3] for index in range(len(padded) - 2)}


def similarity(left: str, right: str) -> float:
    """pg_trgm's `similarity()`: shared trigrams over all trigrams of both words."""
    a, b = trigrams(left), trigrams(right)
    return len(a & b) / len(a | b) if a and b else 0.0


def edit_distance(left: str, right: str) -> int:
    """Optimal string alignment distance: insertions, deletions, substitutions, swaps ("iphnoe")."""
    previous2: list[int] = []
    previous = list(range(len(right) + 1))
    for i, char in enumerate(left, start=1):
        current = [i] + [0] * len(right)
        for j, other in enumerate(right, start=1):
            cost = 0 if char == other else 1
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and char == right[j - 2] and left[i - 2] == other:
                current[j] = min(current[j], previous2[j - 2] + 1)
        previous2, previous = previous, current
    return previous[-1]
