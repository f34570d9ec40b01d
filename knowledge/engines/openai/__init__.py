"""The `openai` assistant engine: any OpenAI-compatible model, grounded in the catalog."""

from __future__ import annotations

from knowledge.engines.openai.engine import OpenAIEngine

__all__ = ["OpenAIEngine"]
