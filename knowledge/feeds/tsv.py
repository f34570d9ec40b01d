"""Tab-separated Merchant Center files: a header row of attribute names, then one row per item."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from typing import BinaryIO

from knowledge.feeds.records import FeedFileError, RawRecord, attribute_name

csv.field_size_limit(1_000_000)  # long descriptions; a runaway quote still stops at 1 MB


def read_tsv(stream: BinaryIO) -> Iterator[RawRecord]:
    # newline="" lets csv handle line breaks inside quoted values; the BOM is dropped.
    text = io.TextIOWrapper(stream, encoding="utf-8-sig", newline="")
    try:
        yield from _rows(text)
    except UnicodeDecodeError as exc:
        raise FeedFileError(f"the file is not UTF-8 text ({exc.reason})") from exc
    finally:
        text.detach()  # leave the caller's stream open


def _rows(text: io.TextIOWrapper) -> Iterator[RawRecord]:
    reader = csv.reader(text, delimiter="\t")
    try:
        header = next(reader, None)
        if header is None or not any(cell.strip() for cell in header):
            raise FeedFileError("the file has no header row", line=1)
        columns = [attribute_name(cell) for cell in header]
        last_line = reader.line_num
        for row in reader:
            line, last_line = last_line + 1, reader.line_num
            if not any(cell.strip() for cell in row):
                continue
            record = RawRecord(line=line, columns=columns)
            if len(row) > len(columns):
                record.problem = f"{len(row)} columns, but the header has {len(columns)}"
            for name, value in zip(columns, row, strict=False):
                if name and name not in record.values:
                    record.values[name] = value.strip()
            yield record
    except csv.Error as exc:
        raise FeedFileError(f"unreadable row ({exc})", line=reader.line_num) from exc
