"""The product catalog's writes (feed import) and reads (lookups by URL, store code)."""
