"""RSS 2.0 product feeds with the `g:` namespace, parsed by defusedxml's SAX parser in chunks.

Only direct children of `<item>` are attributes: nested ones (`g:shipping/g:price`) are not
mistaken for the item's own. Memory stays flat: each item is handed on as soon as it ends.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import BinaryIO
from xml.sax import SAXParseException
from xml.sax.handler import ContentHandler, feature_namespaces

from defusedxml import DefusedXmlException
from defusedxml.sax import make_parser

from knowledge.feeds.records import FeedFileError, RawRecord, attribute_name

GOOGLE_NAMESPACE = "http://base.google.com/ns/1.0"
CHUNK_BYTES = 64 * 1024


def read_rss(stream: BinaryIO) -> Iterator[RawRecord]:
    handler = _ItemHandler()
    parser = make_parser()
    parser.setFeature(feature_namespaces, True)
    parser.setContentHandler(handler)
    # Fed in chunks, the parser never hands out a locator, but it is one itself.
    handler.setDocumentLocator(parser)
    try:
        while chunk := stream.read(CHUNK_BYTES):
            parser.feed(chunk)
            yield from handler.take()
        parser.close()
        yield from handler.take()
    except SAXParseException as exc:
        raise FeedFileError(
            f"not well-formed XML ({exc.getMessage()})", line=exc.getLineNumber()
        ) from exc
    except DefusedXmlException as exc:
        raise FeedFileError(f"XML entities and DTDs are not allowed ({exc})") from exc
    if not handler.saw_root:
        raise FeedFileError("the file has no XML root element")


class _ItemHandler(ContentHandler):
    def __init__(self) -> None:
        super().__init__()
        self._locator = None
        self._depth = 0
        self._item: RawRecord | None = None
        self._item_depth = 0
        self._attribute: str | None = None
        self._text: list[str] = []
        self._done: list[RawRecord] = []
        self.saw_root = False

    def setDocumentLocator(self, locator) -> None:
        self._locator = locator

    def take(self) -> list[RawRecord]:
        done, self._done = self._done, []
        return done

    def startElementNS(self, name, qname, attrs) -> None:
        uri, local = name
        self._depth += 1
        self.saw_root = True
        if self._item is None:
            if local == "item" and not uri:
                line = self._locator.getLineNumber() if self._locator else 0
                self._item = RawRecord(line=line)
                self._item_depth = self._depth
        elif self._depth == self._item_depth + 1 and uri in (None, "", GOOGLE_NAMESPACE):
            self._attribute = attribute_name(local)
            self._text = []

    def characters(self, content: str) -> None:
        if self._attribute is not None:
            self._text.append(content)

    def endElementNS(self, name, qname) -> None:
        if self._item is not None:
            if self._attribute is not None and self._depth == self._item_depth + 1:
                value = "".join(self._text).strip()
                # Repeated attributes (additional_image_link): the first non-empty one counts.
                if value and not self._item.values.get(self._attribute):
                    self._item.values[self._attribute] = value
                    self._item.columns.append(self._attribute)
                self._attribute = None
            elif self._depth == self._item_depth:
                self._done.append(self._item)
                self._item = None
        self._depth -= 1
