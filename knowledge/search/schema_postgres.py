"""PostgreSQL objects behind catalog search, created by migration `knowledge.0003`.

- extensions `pg_trgm` (typo correction) and `unaccent` (accent folding);
- text search configuration `catalog_english`: English stemming, accents removed first;
  and, by migration `knowledge.0007`, `catalog_french`, `catalog_german`, `catalog_spanish`,
  `catalog_italian` (`LANGUAGE_CONFIGS`): each product is indexed with the configuration of
  its organization's language (Organization.language), and a change of that language
  re-indexes the organization's products (a trigger on the organization);
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

ENGLISH_VECTOR_FUNCTION = f"""
    CREATE OR REPLACE FUNCTION knowledge_product_search_vector() RETURNS trigger
    LANGUAGE plpgsql AS $$
    BEGIN
      NEW.search_vector :=
        setweight(to_tsvector('catalog_english', NEW.title), 'A')
        || setweight(to_tsvector('catalog_english', {FACETS}), 'B')
        || setweight(to_tsvector('catalog_english', NEW.description), 'C');
      RETURN NEW;
    END $$
    """

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
    ENGLISH_VECTOR_FUNCTION,
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


# Organization.language -> the Snowball dictionary of its text search configuration.
LANGUAGE_CONFIGS = {
    "fr": ("catalog_french", "french"),
    "de": ("catalog_german", "german"),
    "es": ("catalog_spanish", "spanish"),
    "it": ("catalog_italian", "italian"),
}
_CONFIG_OF_LANGUAGE = (
    "CASE o.language "
    + " ".join(f"WHEN '{code}' THEN '{config}'" for code, (config, _) in LANGUAGE_CONFIGS.items())
    + " ELSE 'catalog_english' END"
)

LANGUAGES_INSTALL = [
    *(
        f"""
    DO $$ BEGIN
      IF NOT EXISTS (SELECT 1 FROM pg_ts_config WHERE cfgname = '{config}') THEN
        CREATE TEXT SEARCH CONFIGURATION {config} (COPY = {dictionary});
        ALTER TEXT SEARCH CONFIGURATION {config}
          ALTER MAPPING FOR hword, hword_part, word
          WITH unaccent, {dictionary}_stem;
      END IF;
    END $$
    """
        for config, dictionary in LANGUAGE_CONFIGS.values()
    ),
    f"""
    CREATE OR REPLACE FUNCTION knowledge_product_search_vector() RETURNS trigger
    LANGUAGE plpgsql AS $$
    DECLARE config regconfig;
    BEGIN
      SELECT ({_CONFIG_OF_LANGUAGE})::regconfig INTO config
        FROM accounts_organization o WHERE o.id = NEW.organization_id;
      config := coalesce(config, 'catalog_english'::regconfig);
      NEW.search_vector :=
        setweight(to_tsvector(config, NEW.title), 'A')
        || setweight(to_tsvector(config, {FACETS}), 'B')
        || setweight(to_tsvector(config, NEW.description), 'C');
      RETURN NEW;
    END $$
    """,
    """
    CREATE OR REPLACE FUNCTION accounts_organization_reindex_catalog() RETURNS trigger
    LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE knowledge_product SET title = title WHERE organization_id = NEW.id;
      RETURN NEW;
    END $$
    """,
    "DROP TRIGGER IF EXISTS accounts_organization_reindex_catalog ON accounts_organization",
    """
    CREATE TRIGGER accounts_organization_reindex_catalog
    AFTER UPDATE OF language ON accounts_organization
    FOR EACH ROW WHEN (OLD.language IS DISTINCT FROM NEW.language)
    EXECUTE FUNCTION accounts_organization_reindex_catalog()
    """,
    # Products of organizations whose catalog is not English, indexed anew.
    "UPDATE knowledge_product SET title = title WHERE organization_id IN"
    " (SELECT id FROM accounts_organization WHERE language <> 'en')",
]

LANGUAGES_UNINSTALL = [
    "DROP TRIGGER IF EXISTS accounts_organization_reindex_catalog ON accounts_organization",
    "DROP FUNCTION IF EXISTS accounts_organization_reindex_catalog()",
    ENGLISH_VECTOR_FUNCTION,
    "UPDATE knowledge_product SET title = title",
    *(f"DROP TEXT SEARCH CONFIGURATION IF EXISTS {c}" for c, _ in LANGUAGE_CONFIGS.values()),
]
