"""The current request's id, for logs and error bodies (docs/api.md#request-ids)."""

from __future__ import annotations

import contextvars
import logging

request_id_var: contextvars.ContextVar[str] = contextvars.ContextVar("request_id", default="-")


def current_request_id() -> str:
    return request_id_var.get()


class RequestIdLogFilter(logging.Filter):
    """Adds `request_id` to every log record so each JSON log line can be traced."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = request_id_var.get()
        return True
