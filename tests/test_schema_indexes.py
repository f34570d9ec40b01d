"""Every foreign key stays indexed: its column leads some index of its table.

Foreign keys whose column leads a composite index have no index of their own (each insert
maintained it for nothing); this checks none was left without one, which would make cascading
deletes and joins scan the table.
"""

from __future__ import annotations

import pytest
from django.apps import apps
from django.db import connection

pytestmark = pytest.mark.django_db

OUR_APPS = ("accounts", "chats", "knowledge")


def leading_columns(table: str) -> set[str]:
    with connection.cursor() as cursor:
        constraints = connection.introspection.get_constraints(cursor, table)
    return {
        info["columns"][0]
        for info in constraints.values()
        if (info["index"] or info["primary_key"] or info["unique"]) and info["columns"]
    }


def test_every_foreign_key_column_leads_an_index():
    unindexed = [
        f"{model._meta.db_table}.{field.column}"
        for app in OUR_APPS
        for model in apps.get_app_config(app).get_models()
        for field in model._meta.concrete_fields
        if field.is_relation and field.column not in leading_columns(model._meta.db_table)
    ]
    assert unindexed == []
