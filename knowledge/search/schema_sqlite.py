"""SQLite objects behind catalog search: an FTS5 table mirrored from products by triggers.

Rebuilt by `ensure_sqlite_search` after every `migrate` when a trigger is missing, because
SQLite migrations that rebuild `knowledge_product` (Django's table remake) drop its triggers.
"""

from __future__ import annotations

from django.db.backends.base.base import BaseDatabaseWrapper

FTS_TABLE = "knowledge_product_fts"
TRIGGERS = (
    "knowledge_product_fts_insert",
    "knowledge_product_fts_update",
    "knowledge_product_fts_delete",
)
_VALUES = (
    "new.id, new.title,"
    " new.brand || ' ' || new.product_type || ' ' || new.google_product_category"
    " || ' ' || new.color || ' ' || new.material,"
    " new.description"
)
_INDEXED_COLUMNS = (
    "title, brand, product_type, google_product_category, color, material, description"
)

INSTALL = [
    f"CREATE VIRTUAL TABLE IF NOT EXISTS {FTS_TABLE} USING fts5("
    "title, facets, description, tokenize = 'porter unicode61 remove_diacritics 2')",
    f"""CREATE TRIGGER IF NOT EXISTS knowledge_product_fts_insert
    AFTER INSERT ON knowledge_product BEGIN
      INSERT INTO {FTS_TABLE}(rowid, title, facets, description) VALUES ({_VALUES});
    END""",
    f"""CREATE TRIGGER IF NOT EXISTS knowledge_product_fts_update
    AFTER UPDATE OF {_INDEXED_COLUMNS} ON knowledge_product BEGIN
      DELETE FROM {FTS_TABLE} WHERE rowid = old.id;
      INSERT INTO {FTS_TABLE}(rowid, title, facets, description) VALUES ({_VALUES});
    END""",
    f"""CREATE TRIGGER IF NOT EXISTS knowledge_product_fts_delete
    AFTER DELETE ON knowledge_product BEGIN
      DELETE FROM {FTS_TABLE} WHERE rowid = old.id;
    END""",
]
REBUILD = [
    f"DELETE FROM {FTS_TABLE}",
    f"INSERT INTO {FTS_TABLE}(rowid, title, facets, description)"
    f" SELECT {_VALUES.replace('new.', '')} FROM knowledge_product",
]
UNINSTALL = [
    *(f"DROP TRIGGER IF EXISTS {name}" for name in TRIGGERS),
    f"DROP TABLE IF EXISTS {FTS_TABLE}",
]


def ensure_sqlite_search(connection: BaseDatabaseWrapper) -> bool:
    """Creates the FTS table and triggers when any is missing and reindexes; True if it did."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND name IN (%s, %s, %s)",
            list(TRIGGERS),
        )
        if cursor.fetchone()[0] == len(TRIGGERS):
            return False
        for statement in INSTALL + REBUILD:
            cursor.execute(statement)
    return True
