"""The `openai` engine: a language model with the catalog's tools, streamed, grounded.

One reply: typing event; rounds of streamed completions where text deltas become chunk events
and tool calls become tool start/end events whose results come from the catalog tools; then
the final text, the products the model named (by GTIN, only those seen in tool results, with
the catalog's current values) and its suggestions. If the model fails, the reply falls back to
the catalog engine after a `failed` tool event, or raises EngineError when fallback is off.
"""

from __future__ import annotations

import json
import logging
import time
from typing import Any

from infrastructure.turns import held_turn_end
from knowledge.engines.base import EngineError, EventSink, Reply, ReplyRequest
from knowledge.engines.openai.answer import AnswerSplitter
from knowledge.engines.openai.config import (
    OpenAIConfig,
    client_build,
    client_warm_up,
    config_load,
)
from knowledge.engines.openai.failures import (
    BAD_RESPONSE,
    MALFORMED_TOOL_ARGUMENTS,
    TOO_MANY_TOOL_ROUNDS,
    UNKNOWN_TOOL,
    ModelFailure,
)
from knowledge.engines.openai.prompt import messages_build
from knowledge.engines.openai.schemas import TOOL_NAMES, TOOL_SCHEMAS
from knowledge.engines.openai.stream import ToolCall, round_stream
from knowledge.engines.openai.tools import CatalogTools, ToolArgumentsError, catalog_fallback

logger = logging.getLogger(__name__)

# The toolName of the event that reports a model failure before the fallback's events.
LANGUAGE_MODEL_TOOL = "language_model"
MIN_MODEL_SUGGESTIONS = 2


class OpenAIEngine:
    """Answers with any server speaking the OpenAI Chat Completions protocol."""

    warm_up = staticmethod(client_warm_up)  # knowledge/engines/__init__.py, engines_warm_up
    ends_its_turn = True  # before each model request (stream.py, round_stream)

    def reply(self, request: ReplyRequest, publisher: EventSink) -> Reply:
        config = config_load()
        publisher.typing()
        try:
            return ModelReply(request, publisher, config).run()
        except ModelFailure as exc:
            failure = exc
        held_turn_end()  # failed before its first request: the fallback runs outside the turn
        # Only our own description and the kind are logged: provider error bodies can quote
        # the request's credentials.
        logger.warning(
            "language model failed: %s",
            failure.description,
            extra={"failure": failure.kind, "model": config.model, "chat": str(request.chat_id)},
        )
        if not config.fallback_enabled:
            raise EngineError(failure.description)
        args: dict[str, Any] = {"model": config.model, "failure": failure.kind}
        if failure.tool_name:
            args["tool"] = failure.tool_name
        publisher.tool_failed(
            LANGUAGE_MODEL_TOOL, args, f"{failure.description}; answering from the catalog instead"
        )
        return catalog_fallback(request, publisher)


class ModelReply:
    """The state of one reply: the conversation sent so far, the text, the tools' products."""

    def __init__(self, request: ReplyRequest, publisher: EventSink, config: OpenAIConfig) -> None:
        self.request = request
        self.publisher = publisher
        self.config = config
        self.tools = CatalogTools(request)
        self.splitter = AnswerSplitter()

    def run(self) -> Reply:
        deadline = time.monotonic() + self.config.timeout
        client = client_build(self.config)
        messages = messages_build(
            self.request,
            page_context=self.tools.page_context(),
            history_chars=self.config.history_chars,
        )
        for round_number in range(self.config.max_tool_rounds + 1):
            calls = round_stream(
                client=client,
                config=self.config,
                messages=messages,
                tools=TOOL_SCHEMAS if self.config.max_tool_rounds else [],
                deadline=deadline,
                on_text=self._text,
            )
            if not calls:
                break
            if round_number == self.config.max_tool_rounds:
                raise ModelFailure(
                    TOO_MANY_TOOL_ROUNDS,
                    "The language model kept calling tools after "
                    f"{self.config.max_tool_rounds} rounds",
                )
            self._emit(self.splitter.new_round())
            messages.extend(self._run_tools(calls))
        return self._finish()

    def _text(self, delta: str) -> None:
        self._emit(self.splitter.feed(delta))

    def _emit(self, text: str) -> None:
        if text:
            self.publisher.chunk(text)

    def _run_tools(self, calls: list[ToolCall]) -> list[dict[str, Any]]:
        """Runs the round's tool calls; the messages that give their results to the model."""
        parsed = [(call, self._arguments(call)) for call in calls]
        messages: list[dict[str, Any]] = [
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": call.id or f"call_{index}",
                        "type": "function",
                        "function": {"name": call.name, "arguments": call.arguments},
                    }
                    for index, call in enumerate(calls)
                ],
            }
        ]
        for index, (call, args) in enumerate(parsed):
            self.publisher.tool_started(call.name, args)
            response = self.tools.run(call.name, args)
            self.publisher.tool_finished(call.name, args, response)
            messages.append(
                {
                    "role": "tool",
                    "tool_call_id": call.id or f"call_{index}",
                    "content": json.dumps(response, ensure_ascii=False, default=str),
                }
            )
        return messages

    def _arguments(self, call: ToolCall) -> dict[str, Any]:
        """The call's arguments as an object; checked before any tool of the round runs."""
        if call.name not in TOOL_NAMES:
            name = " ".join(call.name.split())[:64] or "(none)"
            raise ModelFailure(
                UNKNOWN_TOOL, f"The language model called an unknown tool: {name}", tool_name=name
            )
        try:
            args = json.loads(call.arguments) if call.arguments.strip() else {}
        except ValueError:
            args = None
        if not isinstance(args, dict):
            raise ModelFailure(
                MALFORMED_TOOL_ARGUMENTS,
                f"The language model called {call.name} with arguments that are not a JSON object",
                tool_name=call.name,
            )
        try:
            return self.tools.check(call.name, args)
        except ToolArgumentsError as exc:
            raise ModelFailure(
                MALFORMED_TOOL_ARGUMENTS,
                f"The language model called {call.name} with invalid arguments: {exc}",
                tool_name=call.name,
            ) from None

    def _finish(self) -> Reply:
        self._emit(self.splitter.finish())
        content = self.splitter.content
        if not content:
            raise ModelFailure(BAD_RESPONSE, "The language model sent an empty answer")
        structured = self.splitter.structured()
        products = self.tools.products_named(
            structured.gtins, limit=self.request.chatbot.max_products
        )
        suggestions = structured.suggestions
        if len(suggestions) < MIN_MODEL_SUGGESTIONS:
            suggestions = self.tools.suggestions(products)
        self.publisher.completed(content)
        return Reply(
            content=content,
            products=self.tools.snapshots(products),
            suggestions=suggestions,
        )
