"""The built-in `catalog` assistant engine (the default): deterministic, no network, fast.

Modules, in the order of a reply (engine.py runs them): `understanding` (what a message
asks), `dialogue` (conversation state from the history, the turn's intent), `references`
(the products a message points at), `decision` (the kind of reply), `writers` (one writer per
kind) with `replies_*` (searches, products, limits) over `finding` (search with relaxation)
and `tools` (the tool functions shown as events); `snapshots`, `suggestions`, `streaming`.
"""

from __future__ import annotations

from knowledge.engines.catalog.engine import CatalogEngine

__all__ = ["CatalogEngine"]
