"""Finding a catalog's phrases (brands, categories...) in a message, whatever their number.

A catalog can have tens of thousands of brand and category phrases; looking for each of them
in every message would make a message's cost grow with the catalog. A `PhraseIndex` is built
once per vocabulary instead, and a message is read word by word: each run of up to
`max_words` words starting at a word is looked up in the index, so the work grows with the
message's words times the longest phrase's words, not with the vocabulary.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class Found:
    """A phrase found in a text: its span and the catalog value it names."""

    start: int
    end: int
    value: str


class PhraseIndex:
    """Phrases (folded word sequences) -> catalog values, ready to be found in messages."""

    def __init__(self, phrases: dict[str, str]) -> None:
        # Longer phrases win over the shorter ones inside them; equal lengths keep the
        # vocabulary's order. The rank orders the matches exactly so.
        ordered = sorted((key for key in phrases if key), key=len, reverse=True)
        self.rank = {key: rank for rank, key in enumerate(ordered)}
        self.values = phrases
        self.max_chars = len(ordered[0]) if ordered else 0
        self.max_words = max((len(_WORD.findall(key)) for key in ordered), default=0)

    def find(self, text: str) -> list[Found]:
        """Matches of the longest phrases first, at word boundaries; spans do not overlap.

        A phrase starts and ends with a word character (vocabulary.phrase), so it matches
        exactly where it spans whole words of the text: from a word's start to a word's end.
        """
        if not self.rank:
            return []
        words = [(match.start(), match.end()) for match in _WORD.finditer(text)]
        candidates: list[tuple[int, int, int]] = []  # (rank, start, end)
        for first, (start, _) in enumerate(words):
            for _, end in words[first : first + self.max_words]:
                if end - start > self.max_chars:
                    break
                rank = self.rank.get(text[start:end])
                if rank is not None:
                    candidates.append((rank, start, end))
        candidates.sort()
        found: list[Found] = []
        taken = bytearray(len(text))  # 1 where a longer phrase was found already
        previous_rank, previous_end = -1, 0
        for rank, start, end in candidates:
            # One phrase's own matches do not overlap ("a a" in "a a a" matches once).
            if rank == previous_rank and start < previous_end:
                continue
            previous_rank, previous_end = rank, end
            if 1 in taken[start:end]:
                continue
            taken[start:end] = b"\x01" * (end - start)
            found.append(Found(start, end, self.values[text[start:end]]))
        return found
