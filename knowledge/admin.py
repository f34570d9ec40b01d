"""Admin registrations of the knowledge app: the catalog and the PDP question sets."""

from knowledge import admin_catalog, admin_questions, admin_sources  # noqa: F401  (register on import)
