"""A feed server on loopback for the scheduled-sync tests: each path answers as told, and every
request it received is kept (its path and headers)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Answer:
    body: bytes = b""
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    etag: str = ""  # answered 304 when If-None-Match matches
    last_modified: str = ""  # answered 304 when If-Modified-Since is the same
    delay: float = 0.0  # seconds before answering
    chunk_delay: float = 0.0  # seconds between 64 KiB chunks of the body


@dataclass
class FeedServer:
    url: str
    answers: dict[str, Answer] = field(default_factory=dict)
    requests: list[tuple[str, dict[str, str]]] = field(default_factory=list)

    def hits(self, path: str) -> list[dict[str, str]]:
        return [headers for requested, headers in self.requests if requested == path]


@contextmanager
def feed_server() -> Iterator[FeedServer]:
    server = FeedServer(url="")

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            headers = {name.lower(): value for name, value in self.headers.items()}
            server.requests.append((self.path, headers))
            answer = server.answers.get(self.path, Answer(status=404))
            time.sleep(answer.delay)
            unchanged = (answer.etag and headers.get("if-none-match") == answer.etag) or (
                answer.last_modified and headers.get("if-modified-since") == answer.last_modified
            )
            status = 304 if unchanged else answer.status
            body = b"" if status == 304 else answer.body
            try:
                self.send_response(status)
                sent = {**answer.headers}
                if answer.etag:
                    sent["ETag"] = answer.etag
                if answer.last_modified:
                    sent["Last-Modified"] = answer.last_modified
                sent.setdefault("Content-Length", str(len(body)))
                for name, value in sent.items():
                    self.send_header(name, value)
                self.end_headers()
                for start in range(0, len(body), 65536):
                    self.wfile.write(body[start : start + 65536])
                    time.sleep(answer.chunk_delay)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (a timeout test)

        def log_message(self, format: str, *args) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    server.url = f"http://127.0.0.1:{httpd.server_address[1]}"
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        httpd.shutdown()
        httpd.server_close()
