"""What a product's description says about a detail: the sentence that mentions it.

The assistant quotes it to answer ("how long does the battery last?") and the PDP question
generator proposes a question about a detail only when this finds the answer, so every
generated question is answered from the product's own data.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from knowledge.models import Product

# Words of a description sentence that says what a product is made of.
MATERIAL_WORDS = ("made", "material", "leather", "cotton", "steel", "wood")

# A sentence ends before a capital or a quote, not after an abbreviation ("for max. 4").
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z\u00c0-\u00de\"“(])")


def _stem(word: str) -> str:
    return word[:-1] if len(word) > 4 and word.endswith("s") and not word.endswith("ss") else word


def description_quote(product: Product, words: Sequence[str]) -> str:
    """The first sentence of the description naming one of `words`, else ""."""
    sentences = _SENTENCE_END.split(product.description or "")
    # Short words must be whole words, plural or not ("nut" is "nuts", not "nutrients");
    # longer ones may be stems.
    patterns = [
        re.compile(
            rf"\b{re.escape(w.lower())}s?\b" if len(w) <= 4 else rf"\b{re.escape(_stem(w.lower()))}"
        )
        for w in words
        if len(w) > 1
    ]
    for sentence in sentences:
        lowered = sentence.lower()
        if any(pattern.search(lowered) for pattern in patterns):
            return sentence.strip()
    return ""
