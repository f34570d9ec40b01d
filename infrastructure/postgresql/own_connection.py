"""A psycopg connection of its own, outside Django's pool, for a process's long-lived helper
(the event stream's listener, the event writer)."""

from __future__ import annotations

from typing import Any

from django.conf import settings


def own_connection(*, application_name: str, url: str = "", **options: Any) -> Any:
    """An autocommit connection to `url`, or to the default database's settings."""
    import psycopg

    db = settings.DATABASES["default"]
    connect_timeout = int(db.get("OPTIONS", {}).get("connect_timeout", 5))
    if not url:  # the settings' parameters instead (psycopg leaves out those that are None)
        options.update(
            dbname=db["NAME"],
            user=db.get("USER") or None,
            password=db.get("PASSWORD") or None,
            host=db.get("HOST") or None,
            port=db.get("PORT") or None,
        )
    return psycopg.connect(
        url,
        connect_timeout=connect_timeout,
        application_name=application_name,
        autocommit=True,
        **options,
    )
