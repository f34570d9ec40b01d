"""The one URL canonicalizer (contract §6), used by catalog import and PDP lookups alike."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

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


class InvalidUrlError(ValueError):
    pass


def is_tracking_parameter(name: str) -> bool:
    return name.startswith("utm_") or name in TRACKING_PARAMETERS


def canonicalize_url(url: str) -> str:
    """The canonical form of an absolute http(s) URL; InvalidUrlError if it is not one."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError as exc:
        raise InvalidUrlError(str(exc)) from exc
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if scheme not in DEFAULT_PORTS or not host:
        raise InvalidUrlError("not an absolute http or https URL")
    if ":" in host:  # IPv6 literal: urlsplit strips the brackets
        host = f"[{host}]"
    netloc = host if port is None or port == DEFAULT_PORTS[scheme] else f"{host}:{port}"

    path = parts.path or "/"
    if len(path) > 1 and path.endswith("/"):
        path = path.rstrip("/") or "/"

    # Values are kept exactly as given: only whole `name=value` pairs are dropped or moved.
    pairs = [pair for pair in parts.query.split("&") if pair]
    kept = [pair for pair in pairs if not is_tracking_parameter(_raw_name(pair))]
    kept.sort(key=_raw_name)  # sort() is stable, so repeated names keep their order
    return urlunsplit((scheme, netloc, path, "&".join(kept), ""))


def _raw_name(pair: str) -> str:
    return pair.partition("=")[0]
