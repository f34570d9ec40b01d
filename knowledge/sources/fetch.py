"""One feed fetched over HTTP(S): conditional, bounded in time and size, retried, SSRF-safe.

An operator can point a feed URL anywhere, so the fetcher refuses addresses inside the
deployment's network (loopback, private, link-local, reserved; `CATALOG_FETCH_ALLOW_PRIVATE_
ADDRESSES=1` allows them) and connects to the very address it checked, not to a second DNS
answer. Redirects are followed by hand, each checked the same way, and only to the same host
or to one listed in `CATALOG_FETCH_REDIRECT_HOSTS`; credentials go to the feed's own host only.
A gzip body (by `Content-Encoding` or by its magic bytes: `feed.tsv.gz`) is decompressed as it
arrives; the size limit counts the decompressed bytes.
"""

from __future__ import annotations

import ipaddress
import socket
import tempfile
import time
import zlib
from dataclasses import dataclass, field
from typing import IO
from urllib.parse import urljoin, urlsplit, urlunsplit

import httpx
from django.conf import settings

MAX_REDIRECTS = 5
IN_MEMORY_BYTES = 8 * 1024 * 1024  # larger bodies spill to a temporary file
_GZIP_MAGIC = b"\x1f\x8b"
_REDIRECT_STATUSES = {301, 302, 303, 307, 308}
_RETRIED_STATUSES = {408, 425, 429, 500, 502, 503, 504}


class FetchError(Exception):
    """The feed could not be fetched; `message` says why, for the import history."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class _Retryable(FetchError):
    pass


@dataclass
class Credentials:
    """Sent to the feed's own host only: basic auth, or one header with a secret."""

    username: str = ""
    password: str = ""
    header_name: str = ""
    header_value: str = ""

    def headers(self) -> dict[str, str]:
        if self.header_name:
            return {self.header_name: self.header_value}
        if self.username or self.password:
            auth = httpx.BasicAuth(self.username, self.password)
            request = next(auth.auth_flow(httpx.Request("GET", "http://feed.invalid/")))
            return {"Authorization": request.headers["Authorization"]}
        return {}


@dataclass
class Fetched:
    """A 304 (`body` None: unchanged since `etag` / `last_modified`) or the whole body."""

    body: IO[bytes] | None
    etag: str = ""
    last_modified: str = ""
    attempts: list[str] = field(default_factory=list)  # what failed before it worked


def feed_fetch(
    url: str, *, etag: str = "", last_modified: str = "", credentials: Credentials | None = None
) -> Fetched:
    """GETs `url` (with `If-None-Match` / `If-Modified-Since` when given), retrying what may
    pass (timeouts, connection errors, 5xx, 429) with exponential backoff; FetchError else."""
    retries = settings.CATALOG_FETCH_RETRIES
    failures: list[str] = []
    for attempt in range(retries + 1):
        try:
            fetched = _fetch_once(url, etag, last_modified, credentials or Credentials())
        except _Retryable as exc:
            failures.append(exc.message)
            if attempt == retries:
                tries = f"{retries + 1} attempts" if retries else "1 attempt"
                raise FetchError(f"{exc.message} ({tries})") from exc
            time.sleep(settings.CATALOG_FETCH_BACKOFF_SECONDS * 2**attempt)
            continue
        fetched.attempts = failures
        return fetched
    raise AssertionError("unreachable")


def _fetch_once(url: str, etag: str, last_modified: str, credentials: Credentials) -> Fetched:
    deadline = time.monotonic() + settings.CATALOG_FETCH_MAX_SECONDS
    origin_host = urlsplit(url).hostname
    timeout = httpx.Timeout(settings.CATALOG_FETCH_TIMEOUT_SECONDS)
    for _ in range(MAX_REDIRECTS + 1):
        parts = _checked_url(url)
        address = _checked_address(parts.hostname or "", parts.port or _default_port(parts))
        headers = {"Host": parts.netloc.rpartition("@")[2], "Accept-Encoding": "gzip"}
        if parts.hostname == origin_host:
            headers.update(credentials.headers())
            if etag:
                headers["If-None-Match"] = etag
            if last_modified:
                headers["If-Modified-Since"] = last_modified
        target = urlunsplit(parts._replace(netloc=_netloc(address, parts)))
        # A client per hop: a pooled connection is never reused for another host name.
        with httpx.Client(timeout=timeout, follow_redirects=False, trust_env=False) as client:
            try:
                with client.stream(
                    "GET",
                    target,
                    headers=headers,
                    extensions={"sni_hostname": parts.hostname or ""},
                ) as response:
                    if response.status_code in _REDIRECT_STATUSES:
                        url = _redirect_target(url, response.headers.get("Location", ""))
                        continue
                    return _answer(response, deadline)
            except httpx.TimeoutException as exc:
                raise _Retryable(
                    f"timed out after {timeout.read} s ({type(exc).__name__})"
                ) from exc
            except httpx.TransportError as exc:
                raise _Retryable(f"connection failed ({type(exc).__name__}: {exc})") from exc
    raise FetchError(f"more than {MAX_REDIRECTS} redirects")


def _answer(response: httpx.Response, deadline: float) -> Fetched:
    if response.status_code == 304:
        return Fetched(body=None)
    if response.status_code in _RETRIED_STATUSES:
        raise _Retryable(f"HTTP {response.status_code}")
    if response.status_code != 200:
        raise FetchError(f"HTTP {response.status_code}")
    gzipped = response.headers.get("Content-Encoding", "").lower() in ("gzip", "x-gzip")
    body = _read_body(response, deadline, gzipped)
    return Fetched(
        body=body,
        etag=response.headers.get("ETag", ""),
        last_modified=response.headers.get("Last-Modified", ""),
    )


def _read_body(response: httpx.Response, deadline: float, gzipped: bool) -> IO[bytes]:
    limit = settings.CATALOG_FETCH_MAX_BYTES
    body = tempfile.SpooledTemporaryFile(max_size=IN_MEMORY_BYTES)  # noqa: SIM115
    decompressor: zlib._Decompress | None = None
    size = 0
    first = True
    try:
        for chunk in response.iter_raw():
            if first and chunk:
                first = False
                if gzipped or chunk.startswith(_GZIP_MAGIC):
                    decompressor = zlib.decompressobj(wbits=47)  # gzip or zlib header
            data = chunk
            if decompressor is not None:
                # Bounded output per step: a small gzip bomb cannot fill memory at once.
                data = decompressor.decompress(chunk, limit - size + 1)
                while decompressor.unconsumed_tail and size + len(data) <= limit:
                    data += decompressor.decompress(decompressor.unconsumed_tail, limit - size + 1)
            size += len(data)
            if size > limit:
                raise FetchError(f"larger than CATALOG_FETCH_MAX_BYTES ({limit} bytes)")
            body.write(data)
            if time.monotonic() > deadline:
                raise _Retryable(f"not complete after {settings.CATALOG_FETCH_MAX_SECONDS} s")
        if decompressor is not None and not decompressor.eof:
            raise FetchError("the gzip data is truncated")
    except zlib.error as exc:
        body.close()
        raise FetchError(f"the gzip data is corrupt ({exc})") from exc
    except BaseException:
        body.close()
        raise
    body.seek(0)
    return body


def _checked_url(url: str):
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise FetchError(f"not an http(s) URL: {url[:200]}")
    return parts


def _default_port(parts) -> int:
    return 443 if parts.scheme == "https" else 80


def _checked_address(host: str, port: int) -> str:
    """The address to connect to: every address `host` resolves to must be allowed."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise _Retryable(f"cannot resolve {host} ({exc})") from exc
    addresses = [str(info[4][0]) for info in infos]
    if not settings.CATALOG_FETCH_ALLOW_PRIVATE_ADDRESSES:
        for address in addresses:
            if not _is_public(address):
                raise FetchError(
                    f"{host} resolves to {address}, an internal address: refused"
                    " (CATALOG_FETCH_ALLOW_PRIVATE_ADDRESSES)"
                )
    return addresses[0]


def _is_public(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return not (
        ip.is_loopback
        or ip.is_private
        or ip.is_link_local
        or ip.is_reserved
        or ip.is_multicast
        or ip.is_unspecified
        or not ip.is_global
    )


def _netloc(address: str, parts) -> str:
    host = f"[{address}]" if ":" in address else address
    return f"{host}:{parts.port}" if parts.port else host


def _redirect_target(url: str, location: str) -> str:
    if not location:
        raise FetchError("a redirect without a Location")
    target = urljoin(url, location)
    host, new_host = urlsplit(url).hostname, urlsplit(target).hostname
    allowed = {name.strip().lower() for name in settings.CATALOG_FETCH_REDIRECT_HOSTS}
    if new_host != host and (new_host or "") not in allowed:
        raise FetchError(
            f"redirected from {host} to another host, {new_host}: refused"
            " (CATALOG_FETCH_REDIRECT_HOSTS)"
        )
    return target
