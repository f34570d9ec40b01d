"""Raw feed records as the format readers (`rss.py`, `tsv.py`) yield them, and the errors
and names they share; `reading.py` picks the reader for a file."""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import BinaryIO


class FeedFileError(Exception):
    """The file as a whole cannot be read (not a row problem); nothing of it is imported."""

    def __init__(self, message: str, *, line: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line


@dataclass
class RawRecord:
    """One row or item: its line in the file and its attributes by (lowercase) name."""

    line: int
    values: dict[str, str] = field(default_factory=dict)
    problem: str = ""  # set when the row itself is malformed (e.g. too many columns)
    columns: list[str] = field(default_factory=list)  # attribute names in file order


def attribute_name(raw: str) -> str:
    """Header or element name as an attribute name: "G:Sale Price" -> "sale_price"."""
    name = raw.strip().lower()
    name = name.removeprefix("g:")
    return "_".join(name.split())


class CountingReader(io.RawIOBase):
    """A read-only binary stream that reports how many bytes have been read (progress bar)."""

    def __init__(self, stream: BinaryIO, on_read: Callable[[int], object]) -> None:
        super().__init__()
        self._stream = stream
        self._on_read = on_read

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return self._stream.seekable()

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        return self._stream.seek(offset, whence)

    def tell(self) -> int:
        return self._stream.tell()

    def readinto(self, buffer) -> int:
        data = self._stream.read(len(buffer))
        count = len(data)
        buffer[:count] = data
        if count:
            self._on_read(count)
        return count
