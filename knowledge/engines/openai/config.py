"""The engine's settings and its OpenAI client (the official library; no hand-written HTTP)."""

from __future__ import annotations

import functools
import logging
import traceback
from dataclasses import dataclass

import httpx
import openai
from django.conf import settings

# Local servers (Ollama, vLLM, llama.cpp) accept any key, but the client insists on one.
NO_KEY = "no-key"
FALLBACK_OFF = "off"


@dataclass(frozen=True)
class OpenAIConfig:
    base_url: str
    api_key: str
    model: str
    timeout: float
    max_tool_rounds: int
    history_chars: int
    fallback: str

    @property
    def fallback_enabled(self) -> bool:
        return self.fallback != FALLBACK_OFF

    def __repr__(self) -> str:
        # A config may end up in a log line or a traceback: never with the key.
        return (
            f"OpenAIConfig(base_url={self.base_url!r}, model={self.model!r}, "
            f"timeout={self.timeout!r}, max_tool_rounds={self.max_tool_rounds!r})"
        )


def config_load() -> OpenAIConfig:
    """The settings as they are now (tests change them per test)."""
    return OpenAIConfig(
        base_url=settings.OPENAI_BASE_URL,
        api_key=settings.OPENAI_API_KEY,
        model=settings.OPENAI_MODEL,
        timeout=max(0.1, float(settings.OPENAI_TIMEOUT_SECONDS)),
        max_tool_rounds=max(0, int(settings.OPENAI_MAX_TOOL_ROUNDS)),
        history_chars=max(0, int(settings.OPENAI_HISTORY_CHARS)),
        fallback=settings.ASSISTANT_FALLBACK,
    )


class KeyRedactingFilter(logging.Filter):
    """Masks the provider key in the client library's own debug records.

    The library logs status errors with their traceback, whose text holds the provider's
    error body, and a provider may echo the request's credentials there.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        key = settings.OPENAI_API_KEY
        if not key:
            return True
        message = record.getMessage()
        if record.exc_info:
            message += "\n" + "".join(traceback.format_exception(*record.exc_info))
            record.exc_info = None
            record.exc_text = None
        record.msg, record.args = message.replace(key, "[redacted]"), ()
        return True


def logging_guard() -> None:
    """Adds the filter once to the loggers of the client library that can quote responses."""
    for name in ("openai", "openai._base_client", "httpx"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, KeyRedactingFilter) for f in logger.filters):
            logger.addFilter(KeyRedactingFilter())


def request_timeout(seconds: float) -> httpx.Timeout:
    """A request's timeout: what is left of the reply's budget, connecting within 5 s."""
    return httpx.Timeout(seconds, connect=min(seconds, 5.0))


def client_build(config: OpenAIConfig) -> openai.OpenAI:
    """The client for these settings, shared by the replies of a worker (its connection pool
    saves a TCP and TLS handshake per reply); each request passes its own timeout."""
    logging_guard()
    return _client(config.base_url, config.api_key)


def client_warm_up() -> None:
    """Builds the client of the current settings and makes the library import its chat
    completion modules, which it does on their first use (about 0.6 s of CPU)."""
    client_build(config_load()).chat.completions.with_raw_response  # noqa: B018


@functools.lru_cache(maxsize=8)
def _client(base_url: str, api_key: str) -> openai.OpenAI:
    # Never retries: a reply has one time budget, and the fallback answers sooner.
    return openai.OpenAI(
        base_url=base_url or None,
        api_key=api_key or NO_KEY,
        timeout=httpx.Timeout(30.0, connect=5.0),
        max_retries=0,
    )
