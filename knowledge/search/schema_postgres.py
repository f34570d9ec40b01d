"""PostgreSQL objects behind catalog search, created by migration `knowledge.0003`.

- extensions `pg_trgm` (typo correction) and `unaccent` (accent folding);
- text search configuration `catalog_english`: English stemming, accents removed first;
- `knowledge_product.search_vector`: title (weight A), brand + categories + colour + material
  (B), description (C), kept by a trigger so every write (import, admin) keeps it current;
  Django does not know the column, which is fine: only the search backend reads it;
- GIN indexes on the vector and on the trigram of every catalog search term.
"""

from __future__ import annotations

FACETS = "concat_ws(' ', NEW.brand, NEW.product_type, NEW.google_product_category, NEW.color, NEW.material)"
SEARCH_VECTOR_INDEX = "knowledge_product_search_vector_gin"
INDEXED_COLUMNS = (
    "title, brand, product_type, google_product_category, color, material, description"
)

INSTALL = [
    "CREATE EXTENSION IF NOT EXISTS pg_trgm",
    "CREATE EXTENSION IF NOT EXISTS unaccent",
    """
    DO $$ BEGIN
      IF NOT EXISTS (SELECT 1 FROM pg_ts_config WHERE cfgname = 'catalog_english') THEN
        -- Only non-ASCII words can carry accents.
        CREATE TEXT SEARCH CONFIGURATION catalog_english (COPY = english);
        ALTER TEXT SEARCH CONFIGURATION catalog_english
          ALTER MAPPING FOR hword, hword_part, word
          WITH unaccent, english_stem;
      END IF;
    END $$
    """,
    "ALTER TABLE knowledge_product ADD COLUMN IF NOT EXISTS search_vector tsvector",
    f"""
    CREATE OR REPLACE FUNCTION knowledge_product_search_vector() RETURNS trigger
    LANGUAGE plpgsql AS $$
    BEGIN
      NEW.search_vector :=
        setweight(to_tsvector('catalog_english', NEW.title), 'A')
        || setweight(to_tsvector('catalog_english', {FACETS}), 'B')
        || setweight(to_tsvector('catalog_english', NEW.description), 'C');
      RETURN NEW;
    END $$
    """,
    "DROP TRIGGER IF EXISTS knowledge_product_search_vector ON knowledge_product",
    f"""
    CREATE TRIGGER knowledge_product_search_vector
    BEFORE INSERT OR UPDATE OF {INDEXED_COLUMNS} ON knowledge_product
    FOR EACH ROW EXECUTE FUNCTION knowledge_product_search_vector()
    """,
    "UPDATE knowledge_product SET title = title",  # fills the vector of existing rows
    f"CREATE INDEX IF NOT EXISTS {SEARCH_VECTOR_INDEX} ON knowledge_product USING gin (search_vector)",
    "CREATE INDEX IF NOT EXISTS knowledge_searchterm_term_trgm"
    " ON knowledge_searchterm USING gin (term gin_trgm_ops)",
]

UNINSTALL = [
    "DROP INDEX IF EXISTS knowledge_searchterm_term_trgm",
    "DROP TRIGGER IF EXISTS knowledge_product_search_vector ON knowledge_product",
    "DROP FUNCTION IF EXISTS knowledge_product_search_vector()",
    "ALTER TABLE knowledge_product DROP COLUMN IF EXISTS search_vector",
    "DROP TEXT SEARCH CONFIGURATION IF EXISTS catalog_english",
]
