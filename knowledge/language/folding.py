"""Folding text for matching: lowercase without accents, the same for shoppers' words, the
language data and the catalog search (knowledge.search.text re-exports it)."""

from __future__ import annotations

import unicodedata

# Letters Unicode does not decompose, written as the two letters they join ("œufs" is how
# "oeufs" is also spelt, and PostgreSQL's unaccent reads them so too).
_LIGATURES = str.maketrans({"œ": "oe", "æ": "ae"})  # after casefold


def fold(text: str, limit: int | None = None) -> str:
    """Lowercase without accents: "Crème BRÛLÉE" -> "creme brulee".

    With a `limit`, at most that many characters: decomposition can lengthen a text many
    times over (U+FDFA becomes 18 characters), and the cut comes before the per-character work.
    """
    if text.isascii():  # the common case, and ten times faster
        return text[:limit].lower()
    decomposed = unicodedata.normalize("NFKD", text)[: None if limit is None else limit * 2]
    folded = "".join(char for char in decomposed if not unicodedata.combining(char)).casefold()
    return folded.translate(_LIGATURES)[:limit]
