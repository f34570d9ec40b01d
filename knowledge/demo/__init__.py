"""The demo shop's catalog, written for this project: 44 items, two stores, local inventory.

Sneakers, t-shirts and jackets come in sizes and colours (variants share `item_group_id`);
electronics carry brands; some items are on sale, some out of stock, one on preorder.
"""

from __future__ import annotations

from pathlib import Path

DEMO_DIR = Path(__file__).resolve().parent
PRODUCTS = DEMO_DIR / "products.tsv"
STORES = DEMO_DIR / "stores.tsv"
INVENTORY = DEMO_DIR / "inventory.tsv"

# The demo organization and chatbot `seed_demo` creates (and the demo shop at /demo/ serves).
DEMO_ORGANIZATION = "Demo Shop"
DEMO_CHATBOT = "Demo Assistant"
