"""The URL canonicalizer of docs/api.md#url-canonical-form: the four rules by example, and their
properties."""

from __future__ import annotations

from urllib.parse import unquote_plus, urlsplit

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from knowledge.canonical import (
    DEFAULT_PORTS,
    TRACKING_PARAMETERS,
    InvalidUrlError,
    canonicalize_url,
    is_tracking_parameter,
)


@pytest.mark.parametrize(
    ("given", "canonical"),
    [
        # Rule 1: scheme and host lowercased, default port and user info removed.
        ("HTTPS://Shop.EXAMPLE/Products/Shoe", "https://shop.example/Products/Shoe"),
        ("https://shop.example:443/p", "https://shop.example/p"),
        ("http://shop.example:80/p", "http://shop.example/p"),
        ("http://shop.example:443/p", "http://shop.example:443/p"),
        ("https://shop.example:80/p", "https://shop.example:80/p"),
        ("https://shop.example:8443/p", "https://shop.example:8443/p"),
        ("https://user:secret@shop.example/p", "https://shop.example/p"),
        ("https://user@Shop.example:443/p", "https://shop.example/p"),
        ("http://[::1]:80/p", "http://[::1]/p"),
        ("http://[2001:DB8::1]:8080/p", "http://[2001:db8::1]:8080/p"),
        ("https://shop.example:/p", "https://shop.example/p"),
        # Rule 2: fragment removed.
        ("https://shop.example/p#reviews", "https://shop.example/p"),
        ("https://shop.example/p?a=1#x?b=2", "https://shop.example/p?a=1"),
        # Rule 3: tracking parameters removed, the rest sorted by name, values as given.
        ("https://shop.example/p?utm_source=x&utm_medium=y", "https://shop.example/p"),
        ("https://shop.example/p?utm_=x&utm_anything=1", "https://shop.example/p"),
        (
            "https://shop.example/p?size=L&gclid=1&color=red&fbclid=2",
            "https://shop.example/p?color=red&size=L",
        ),
        (
            "https://shop.example/p?gbraid=1&wbraid=2&msclkid=3&yclid=4&mc_cid=5&mc_eid=6"
            "&_ga=7&_gl=8&igshid=9&srsltid=10&ref=11&id=12",
            "https://shop.example/p?id=12",
        ),
        # Percent-encoded names are the same names: utm%5Fsource is utm_source.
        ("https://shop.example/p?utm%5Fsource=x&%67clid=1&b=2", "https://shop.example/p?b=2"),
        ("https://shop.example/p?%62=2&a=1", "https://shop.example/p?a=1&%62=2"),
        # Names are case-sensitive, like the shop's server sees them.
        ("https://shop.example/p?REF=1&UTM_source=2", "https://shop.example/p?REF=1&UTM_source=2"),
        ("https://shop.example/p?reference=1&refx=2", "https://shop.example/p?reference=1&refx=2"),
        # Repeated names keep their order; values kept byte for byte.
        ("https://shop.example/p?b=2&a=z&a=y&a=x", "https://shop.example/p?a=z&a=y&a=x&b=2"),
        ("https://shop.example/p?q=A%20b+c&x", "https://shop.example/p?q=A%20b+c&x"),
        ("https://shop.example/p?a=1&&b=2&", "https://shop.example/p?a=1&b=2"),
        ("https://shop.example/p?", "https://shop.example/p"),
        ("https://shop.example/p?utm_source=x", "https://shop.example/p"),
        # Rule 4: trailing slash of a non-root path removed, empty path becomes `/`.
        ("https://shop.example/products/shoe/", "https://shop.example/products/shoe"),
        ("https://shop.example/products/shoe//", "https://shop.example/products/shoe"),
        ("https://shop.example/", "https://shop.example/"),
        ("https://shop.example", "https://shop.example/"),
        ("https://shop.example?a=1", "https://shop.example/?a=1"),
        ("https://shop.example/shoe/?utm_source=x", "https://shop.example/shoe"),
        # The path itself is kept as given (case, escapes).
        ("https://shop.example/Caf%C3%A9/Shoe", "https://shop.example/Caf%C3%A9/Shoe"),
        ("  https://shop.example/p  ", "https://shop.example/p"),
        ("\xa0https://shop.example/p\u2003", "https://shop.example/p"),
        ("https://shop.example/Café", "https://shop.example/Café"),
    ],
)
def test_rules_by_example(given: str, canonical: str) -> None:
    assert canonicalize_url(given) == canonical
    assert canonicalize_url(canonical) == canonical


@pytest.mark.parametrize(
    "given",
    [
        "",
        "   ",
        "shop.example/p",
        "/products/shoe",
        "ftp://shop.example/p",
        "javascript:alert(1)",
        "mailto:someone@shop.example",
        "https://",
        "https:///p",
        "http://user@/p",
        "https://shop.example:99999/p",
        "https://shop.example:port/p",
        "http://[::1/p",
        "https://shop example/p",
        "https://shop.example/a b",
        "https://shop.example/p\nq",
        "https://shop.example/p\tq",
        "https://shop.example/\x00",
        # Unicode white space and C1 controls inside (a no-break space before a slash once
        # canonicalized to a URL ending in it, which a second pass then stripped).
        "https://shop.example/\xa0/",
        "https://shop.example/a\u2003b",
        "https://shop.example/p\x85q",
        "https://sh<op>.example/p",
        "https://shop.example/" + "a" * 2048,
    ],
)
def test_invalid_urls_are_refused(given: str) -> None:
    with pytest.raises(InvalidUrlError):
        canonicalize_url(given)


def test_non_strings_are_refused() -> None:
    for value in (None, 42, b"https://shop.example/"):
        with pytest.raises(InvalidUrlError):
            canonicalize_url(value)  # type: ignore[arg-type]


# --- Properties -----------------------------------------------------------------------------

_LABEL = st.text(
    alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
    min_size=1,
    max_size=10,
)
_HOST = st.lists(_LABEL, min_size=1, max_size=4).map(".".join)
_SEGMENT_CHARS = "abcXYZ019-._~!$'()*,;=:@%"
_SEGMENT = st.text(alphabet=_SEGMENT_CHARS, max_size=8)
_PATH = st.lists(_SEGMENT, max_size=4).map(lambda segments: "/" + "/".join(segments)) | st.just("")
_PLAIN_NAME = st.text(alphabet="abcdefghijklmnopqrstuvwxyzABC_-0123456789", min_size=1, max_size=8)
_TRACKING_NAME = st.sampled_from(sorted(TRACKING_PARAMETERS)) | _PLAIN_NAME.map(
    lambda rest: f"utm_{rest}"
)
_NAME = _PLAIN_NAME | _TRACKING_NAME
_VALUE = st.text(alphabet="abcXYZ0189-._~%+!$'()*,;:@/?", max_size=8)


def _encoded(name: str, encode: bool) -> str:
    # Percent-encode every character of the name: the same name, spelt differently.
    return "".join(f"%{ord(char):02X}" for char in name) if encode else name


@st.composite
def query_pairs(draw, names=_NAME) -> list[str]:
    pairs = []
    for name in draw(st.lists(names, max_size=6)):
        spelling = _encoded(name, draw(st.booleans()))
        if draw(st.booleans()):
            pairs.append(f"{spelling}={draw(_VALUE)}")
        else:
            pairs.append(spelling)
    return pairs


@st.composite
def urls(draw, pairs=None) -> str:
    scheme = draw(st.sampled_from(["http", "https", "HTTP", "Https"]))
    userinfo = draw(st.sampled_from(["", "user@", "user:pass@"]))
    host = draw(_HOST)
    port = draw(st.sampled_from(["", ":", ":80", ":443", ":8080", ":1"]))
    path = draw(_PATH) + draw(st.sampled_from(["", "/", "//"]))
    query_list = draw(query_pairs()) if pairs is None else pairs
    query = "?" + "&".join(query_list) if query_list or draw(st.booleans()) else ""
    fragment = draw(st.sampled_from(["", "#", "#top", "#a?b=c"]))
    return f"{scheme}://{userinfo}{host}{port}{path}{query}{fragment}"


def _query_names(canonical: str) -> list[str]:
    query = urlsplit(canonical).query
    return [unquote_plus(pair.partition("=")[0]) for pair in query.split("&") if pair]


@given(urls())
@settings(max_examples=300)
def test_canonicalizing_twice_changes_nothing(url: str) -> None:
    canonical = canonicalize_url(url)
    assert canonicalize_url(canonical) == canonical


@given(st.text(max_size=60).map(lambda tail: "https://shop.example/" + tail))
@settings(max_examples=300)
def test_canonicalizing_twice_changes_nothing_for_any_text(url: str) -> None:
    try:
        canonical = canonicalize_url(url)
    except InvalidUrlError:
        return
    assert canonicalize_url(canonical) == canonical


@given(urls())
@settings(max_examples=300)
def test_tracking_parameters_never_survive(url: str) -> None:
    names = _query_names(canonicalize_url(url))
    assert not [name for name in names if is_tracking_parameter(name)]


_REST = st.tuples(_PATH, query_pairs()).map(
    lambda parts: parts[0] + ("?" + "&".join(parts[1]) if parts[1] else "")
)


@given(
    scheme=st.sampled_from(["http", "https"]),
    host=_HOST,
    path=_PATH,
    names=st.lists(_NAME, unique=True, min_size=2, max_size=6),
    data=st.data(),
)
@settings(max_examples=300)
def test_parameter_order_never_matters(scheme, host, path, names, data) -> None:
    # Distinct names: repeated names keep their given order on purpose (rule 3).
    pairs = [f"{_encoded(name, data.draw(st.booleans()))}={data.draw(_VALUE)}" for name in names]
    shuffled = data.draw(st.permutations(pairs))
    canonical = canonicalize_url(f"{scheme}://{host}{path}?{'&'.join(pairs)}")
    assert canonicalize_url(f"{scheme}://{host}{path}?{'&'.join(shuffled)}") == canonical
    kept = _query_names(canonical)
    assert kept == sorted(kept)


@given(scheme=st.sampled_from(["http", "https"]), host=_HOST, rest=_REST)
@settings(max_examples=300)
def test_host_case_and_default_ports_never_matter(scheme, host, rest) -> None:
    default = DEFAULT_PORTS[scheme]
    canonical = canonicalize_url(f"{scheme}://{host.lower()}{rest}")
    for variant in (
        f"{scheme.upper()}://{host.upper()}{rest}",
        f"{scheme}://{host.swapcase()}:{default}{rest}",
        f"{scheme.title()}://{host.title()}:{default}{rest}",
        f"{scheme}://user:pass@{host}:{default}{rest}",
    ):
        assert canonicalize_url(variant) == canonical
    # A port that is not the default one is part of the page's identity.
    assert canonicalize_url(f"{scheme}://{host}:8080{rest}") != canonical
