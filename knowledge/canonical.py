"""The one URL canonicalizer (docs/api.md#url-canonical-form), used by catalog import and PDP
lookups alike."""

from __future__ import annotations

import functools
import re
from urllib.parse import unquote_plus, urlsplit, urlunsplit

TRACKING_PARAMETERS = frozenset(
    {
        "gclid",
        "gbraid",
        "wbraid",
        "fbclid",
        "msclkid",
        "yclid",
        "mc_cid",
        "mc_eid",
        "_ga",
        "_gl",
        "igshid",
        "srsltid",
        "ref",
    }
)
DEFAULT_PORTS = {"http": 80, "https": 443}
# Product.url and PdpQuestionSet.url hold at most this many characters.
MAX_URL_LENGTH = 2048

# A URI never holds raw whitespace or control characters; browsers send them percent-encoded.
# Unicode's too (a no-break space, U+0085): strip() removes them at the ends, so one left
# inside, say before a trailing slash, would make a second canonicalization differ.
_FORBIDDEN_IN_URL = re.compile(r"[\x00-\x20\x7f-\x9f\s]")
_FORBIDDEN_IN_HOST = re.compile(r"[<>\"{}|\\^`]")


class InvalidUrlError(ValueError):
    pass


def parameter_name(pair: str) -> str:
    """The decoded name of a `name=value` query pair (`utm%5Fsource` is `utm_source`)."""
    return unquote_plus(pair.partition("=")[0])


def is_tracking_parameter(name: str) -> bool:
    """Whether a (decoded) query parameter name is one that rule 3 of
    docs/api.md#url-canonical-form removes."""
    return name.startswith("utm_") or name in TRACKING_PARAMETERS


def canonicalize_url(url: str) -> str:
    """The canonical form of an absolute http(s) URL; InvalidUrlError if it is not one.

    Implements exactly the four rules of docs/api.md#url-canonical-form and nothing more: the path
    and the parameter values are kept byte for byte, so two URLs a shop treats as different pages
    never collapse into one.
    """
    if not isinstance(url, str):
        raise InvalidUrlError("not a string")
    text = url.strip()
    if _FORBIDDEN_IN_URL.search(text):
        raise InvalidUrlError("contains whitespace or control characters")
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError as exc:
        raise InvalidUrlError(str(exc)) from exc
    scheme = parts.scheme.lower()
    # Rule 1: `hostname` drops the user info and lowercases.
    host = (parts.hostname or "").lower()
    if scheme not in DEFAULT_PORTS or not host:
        raise InvalidUrlError("not an absolute http or https URL")
    if _FORBIDDEN_IN_HOST.search(host):
        raise InvalidUrlError("invalid host")
    if ":" in host:  # IPv6 literal: urlsplit strips the brackets
        host = f"[{host}]"
    netloc = host if port is None or port == DEFAULT_PORTS[scheme] else f"{host}:{port}"

    # Rule 4. All trailing slashes go, or `/a//` would need two passes to become canonical.
    path = parts.path.rstrip("/") or "/"

    # Rule 3. Values are kept exactly as given: only whole `name=value` pairs are dropped or
    # moved. sort() is stable, so repeated names keep their order.
    pairs = [pair for pair in parts.query.split("&") if pair]
    kept = [pair for pair in pairs if not is_tracking_parameter(parameter_name(pair))]
    kept.sort(key=parameter_name)

    # Rule 2: the fragment is never put back.
    canonical = urlunsplit((scheme, netloc, path, "&".join(kept), ""))
    if len(canonical) > MAX_URL_LENGTH:
        raise InvalidUrlError(f"longer than {MAX_URL_LENGTH} characters")
    return canonical


# The PDP GET canonicalizes the URL of every product page view, and views repeat the same
# pages: remembered, the work is a dict lookup. Invalid URLs are not remembered;
# nor are long ones, so what a client sends can hold at most ~2 MB per worker.
_REMEMBERED_URL_LENGTH = 512
_canonicalize_remembered = functools.lru_cache(maxsize=2048)(canonicalize_url)


def canonicalize_url_cached(url: str) -> str:
    """canonicalize_url, remembering the results of this process's recent URLs."""
    if len(url) > _REMEMBERED_URL_LENGTH:
        return canonicalize_url(url)
    return _canonicalize_remembered(url)
