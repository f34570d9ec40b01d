"""Application errors raised by services; the exception handler turns them into responses."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import TooManyFieldsSent, TooManyFilesSent

INTERNAL_ERROR = "Internal server error"
DATABASE_UNAVAILABLE = "The database is unavailable"
BODY_TOO_LARGE = "Request body larger than 64 KiB"
INVALID_JSON = "The request body is not valid JSON"
VALIDATION_FAILED = "The request failed validation"
NOT_FOUND = "Not found"
BAD_REQUEST = "Bad request"
TOO_MANY_FIELDS = "Too many query or form parameters"


def body_too_large(limit_bytes: int) -> str:
    """The 413 message for a body over `limit_bytes` (BODY_TOO_LARGE for the usual 64 KiB)."""
    return f"Request body larger than {limit_bytes // 1024} KiB"


def bad_request_message(exception: Exception | None) -> str:
    """The 400 message for a request Django refused to read (SuspiciousOperation)."""
    if isinstance(exception, TooManyFieldsSent | TooManyFilesSent):
        return TOO_MANY_FIELDS
    return BAD_REQUEST


class ApplicationError(Exception):
    """An expected failure with a status code and a message fit for the integrator."""

    status_code = 400

    def __init__(
        self,
        message: str,
        *,
        errors: dict[str, list[str]] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.errors = errors
        self.headers = headers or {}


class NotFoundError(ApplicationError):
    status_code = 404


class ValidationFailedError(ApplicationError):
    status_code = 422

    @classmethod
    def from_detail(cls, detail: Any) -> ValidationFailedError:
        """From a DRF serializer's `errors` / `ValidationError.detail`."""
        field_errors = flatten_errors(detail)
        return cls(validation_message(field_errors), errors=field_errors)


class TooManyRequestsError(ApplicationError):
    status_code = 429

    def __init__(self, message: str, *, retry_after: int) -> None:
        super().__init__(message, headers={"Retry-After": str(max(1, int(retry_after)))})
        self.retry_after = retry_after


class ServiceUnavailableError(ApplicationError):
    status_code = 503


def flatten_errors(detail: Any, prefix: str = "") -> dict[str, list[str]]:
    """DRF's nested validation detail as `{"field": ["problem", ...]}` (dotted for nesting)."""
    flat: dict[str, list[str]] = {}
    if isinstance(detail, dict):
        for key, value in detail.items():
            name = f"{prefix}.{key}" if prefix else str(key)
            if key == "non_field_errors":
                name = prefix or "body"
            for field, problems in flatten_errors(value, name).items():
                flat.setdefault(field, []).extend(problems)
    elif isinstance(detail, list):
        if all(not isinstance(item, dict | list) for item in detail):
            flat[prefix or "body"] = [str(item) for item in detail]
        else:
            for index, item in enumerate(detail):
                flat.update(flatten_errors(item, f"{prefix}.{index}" if prefix else str(index)))
    else:
        flat[prefix or "body"] = [str(detail)]
    return flat


def validation_message(field_errors: dict[str, list[str]]) -> str:
    first_field, problems = next(iter(field_errors.items()))
    return f"{first_field}: {problems[0]}" if problems else VALIDATION_FAILED
