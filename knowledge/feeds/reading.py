"""Streaming of raw feed records from a binary file, whatever its format (TSV or RSS XML)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import BinaryIO

from knowledge.feeds.records import FeedFileError, RawRecord
from knowledge.feeds.rss import read_rss
from knowledge.feeds.tsv import read_tsv

SNIFF_BYTES = 1024


def read_records(stream: BinaryIO) -> Iterator[RawRecord]:
    """The records of a Merchant Center file, sniffing XML (first non-blank byte "<") vs TSV."""
    head = stream.read(SNIFF_BYTES)
    stream.seek(0)
    if not head.strip():
        raise FeedFileError("the file is empty")
    is_xml = head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"<")
    return read_rss(stream) if is_xml else read_tsv(stream)
