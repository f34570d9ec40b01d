"""Why a model call failed, in words safe to show integrators (never the provider's own text)."""

from __future__ import annotations

import json

import httpx
import openai

# Kinds, also sent as `toolArgs.failure` of the `failed` tool event (README, LLM engine).
TIMEOUT = "timeout"
CONNECTION = "connection"
HTTP_STATUS = "http_status"
BAD_RESPONSE = "bad_response"
MALFORMED_TOOL_ARGUMENTS = "malformed_tool_arguments"
UNKNOWN_TOOL = "unknown_tool"
TOO_MANY_TOOL_ROUNDS = "too_many_tool_rounds"


class ModelFailure(Exception):
    """The language model did not produce a usable reply.

    `description` is written by us from the failure's kind and numbers only: provider error
    bodies can echo request headers, so they never reach events, responses or logs.
    """

    def __init__(self, kind: str, description: str, *, tool_name: str = "") -> None:
        super().__init__(description)
        self.kind = kind
        self.description = description
        self.tool_name = tool_name


def failure_from_exception(exc: BaseException, *, timeout: float) -> ModelFailure:
    """Maps a client or transport exception to a ModelFailure."""
    if isinstance(exc, ModelFailure):
        return exc
    if isinstance(exc, openai.APITimeoutError | httpx.TimeoutException | TimeoutError):
        return ModelFailure(TIMEOUT, f"The language model did not answer within {timeout:g} s")
    if isinstance(exc, openai.APIStatusError):
        return ModelFailure(
            HTTP_STATUS, f"The language model service answered HTTP {exc.status_code}"
        )
    if isinstance(exc, openai.APIConnectionError | httpx.TransportError | OSError):
        return ModelFailure(CONNECTION, "The language model service could not be reached")
    if isinstance(exc, openai.APIError | httpx.HTTPError | json.JSONDecodeError | ValueError):
        return ModelFailure(BAD_RESPONSE, "The language model service sent an unreadable answer")
    return ModelFailure(BAD_RESPONSE, "The language model service failed")


# What a model call can raise besides our own ModelFailure; anything else is a bug of ours.
PROVIDER_EXCEPTIONS: tuple[type[BaseException], ...] = (
    openai.OpenAIError,
    httpx.HTTPError,
    OSError,
    ValueError,
)
