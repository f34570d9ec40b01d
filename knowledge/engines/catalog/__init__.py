"""The built-in `catalog` assistant engine (the default): deterministic, no network, fast.

Modules: `understanding` (what a message asks), `dialogue` (conversation state from the
history), `finding` (search with relaxation), `tools` (the tool functions shown as events),
`replies_*` (writing replies), `snapshots` (product snapshots), `suggestions`, `streaming`.
"""

from __future__ import annotations

from knowledge.engines.catalog.engine import CatalogEngine

__all__ = ["CatalogEngine"]
