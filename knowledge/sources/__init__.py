"""Scheduled catalog feeds: fetching them safely and importing what changed (`sync_catalogs`)."""
