"""Querysets compiled to SQL once per process and then run with new values.

Building and compiling a queryset costs about 0.25 ms of CPU per query in Django, more than
PostgreSQL needs to answer a primary-key lookup; the hot reads (a chat, a page of messages)
compile once here and reuse the SQL. Django still writes the SQL (quoting, vendor dialect,
joins) and its converters still turn the rows into model instances, so a prepared query
returns exactly what the queryset would.

Two kinds: a `PreparedQuery` has named parameters, put in place of sentinel values on each
run; `CompiledQueries` keeps one compiled query per key, for a query built from a few hashable
values that change little from one request to the next (a catalog search: its words, filters
and page). Only plain querysets of one model (filters, ordering, annotations; no
select_related, prefetch, defer) are supported, returning model instances or, after
`values_list()`, tuples; anything else fails loudly when first compiled.
"""

from __future__ import annotations

import dataclasses
import secrets
import threading
import uuid
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

from django.db import connections, router
from django.db.models import Field, Model, QuerySet
from django.db.models.query import ModelIterable, ValuesListIterable

Builder = Callable[..., QuerySet]


@dataclass(frozen=True)
class _Compiled:
    sql: str
    params: list[Any]  # constants of the query; positions in `slots` are replaced per run
    slots: list[tuple[int, str, Field]]  # (position, parameter name, field that prepares it)
    model: type[Model] | None  # None: rows stay tuples (a values_list queryset)
    init_list: list[str]  # attnames of the model's columns, in select order
    model_columns: slice
    annotations: dict[str, int]  # annotation name -> column position
    converters: list[tuple[int, list, Any]]  # (column position, converters, expression)


class PreparedQuery:
    """A queryset with named parameters, compiled on first use.

        chat_by_id = PreparedQuery(
            lambda chat_id: Chat.objects.filter(pk=chat_id), chat_id=Chat._meta.pk
        )
        chats = chat_by_id.fetch(chat_id=some_uuid, limit=1)

    `fields` names the model field that prepares each parameter's value for the database,
    as the ORM would for an exact lookup on that field.
    """

    def __init__(self, build: Builder, **fields: Field) -> None:
        self.build = build
        self.fields = fields
        self._model: type[Model] | None = None
        self._compiled: dict[str, _Compiled] = {}

    def fetch(self, *, limit: int | None = None, offset: int = 0, **values: Any) -> list[Any]:
        """The model instances of the query for `values` (annotations set on each), or the
        tuples of a values_list query."""
        if self._model is None:
            self._model = self.build(**self._sentinels()).model
        alias = router.db_for_read(self._model)
        compiled = self._compiled.get(alias)
        if compiled is None:
            compiled = self._compiled[alias] = self._compile(alias)
        connection = connections[alias]
        params = list(compiled.params)
        for position, name, field in compiled.slots:
            params[position] = field.get_db_prep_value(values[name], connection, prepared=False)
        sql = compiled.sql
        if limit is not None:
            sql += " LIMIT %s OFFSET %s"
            params += [limit, offset]
        elif offset:
            raise ValueError("an offset needs a limit")
        return _run(compiled, sql, params, connection)

    def _sentinels(self) -> dict[str, Any]:
        return {name: _sentinel(field) for name, field in self.fields.items()}

    def _compile(self, alias: str) -> _Compiled:
        connection = connections[alias]
        sentinels = self._sentinels()
        queryset = self.build(**sentinels)
        query = queryset.query
        if query.low_mark or query.high_mark is not None:
            raise ValueError("slice with fetch(limit=, offset=), not in the queryset")
        compiled = _compile(queryset, alias)
        prepared = {
            name: field.get_db_prep_value(sentinels[name], connection, prepared=False)
            for name, field in self.fields.items()
        }
        slots = []
        for position, value in enumerate(compiled.params):
            names = [name for name, db_value in prepared.items() if db_value == value]
            if len(names) == 1:
                slots.append((position, names[0], self.fields[names[0]]))
        if {name for _, name, _ in slots} != set(self.fields):
            raise ValueError("every parameter must appear in the query exactly as given")
        return dataclasses.replace(compiled, slots=slots)


class CompiledQueries:
    """Querysets compiled once per key, then run again with the SQL and values they compiled to.

        pages = CompiledQueries(Product, max_entries=1000)
        products = pages.fetch((organization_id, words), lambda: search(organization_id, words))

    The key must name every value the queryset is built from: the same key always gets the
    query first compiled for it. Rows are read from the database on every fetch. The least
    recently used query is dropped beyond `max_entries`.
    """

    def __init__(self, model: type[Model], *, max_entries: int) -> None:
        self.model = model
        self.max_entries = max_entries
        self._compiled: OrderedDict[tuple[str, Hashable], _Compiled] = OrderedDict()
        self._lock = threading.Lock()

    def fetch(self, key: Hashable, build: Callable[[], QuerySet]) -> list[Any]:
        alias = router.db_for_read(self.model)
        entry = (alias, key)
        with self._lock:
            compiled = self._compiled.get(entry)
            if compiled is not None:
                self._compiled.move_to_end(entry)
        if compiled is None:
            compiled = _compile(build(), alias)
            with self._lock:
                self._compiled[entry] = compiled
                while len(self._compiled) > self.max_entries:
                    self._compiled.popitem(last=False)
        return _run(compiled, compiled.sql, compiled.params, connections[alias])


def _compile(queryset: QuerySet, alias: str) -> _Compiled:
    """The queryset's SQL, its values, and how its rows become what the queryset returns."""
    query = queryset.query
    prefetches = getattr(queryset, "_prefetch_related_lookups", ())
    if query.select_related or prefetches or query.deferred_loading[0]:
        raise ValueError("prepared queries support plain querysets of one model only")
    # Plain tuples or model instances; namedtuples, dicts and flat lists are not supported.
    as_rows = queryset._iterable_class is ValuesListIterable
    if not as_rows and queryset._iterable_class is not ModelIterable:
        raise ValueError("prepared queries return model instances or values_list tuples")
    compiler = query.get_compiler(using=alias)
    sql, params = compiler.as_sql()
    select, klass_info = compiler.select, compiler.klass_info
    converters = [
        (position, convs, expression)
        for position, (convs, expression) in compiler.get_converters(
            [column[0] for column in select]
        ).items()
    ]
    if as_rows:
        return _Compiled(
            sql=sql,
            params=list(params),
            slots=[],
            model=None,
            init_list=[],
            model_columns=slice(0),
            annotations={},
            converters=converters,
        )
    columns = klass_info["select_fields"]
    model_columns = slice(columns[0], columns[-1] + 1)
    return _Compiled(
        sql=sql,
        params=list(params),
        slots=[],
        model=klass_info["model"],
        init_list=[column[0].target.attname for column in select[model_columns]],
        model_columns=model_columns,
        annotations=dict(compiler.annotation_col_map),
        converters=converters,
    )


def _run(compiled: _Compiled, sql: str, params: list[Any], connection) -> list[Any]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    model = compiled.model
    if model is None:
        if not compiled.converters:
            return rows
        return [_converted(compiled, row, connection) for row in rows]
    return [_instance(compiled, model, row, connection) for row in rows]


def _converted(compiled: _Compiled, row: tuple, connection) -> tuple:
    values = list(row)
    for position, convs, expression in compiled.converters:
        value = values[position]
        for converter in convs:
            value = converter(value, expression, connection)
        values[position] = value
    return tuple(values)


def _instance(compiled: _Compiled, model: type[Model], row: tuple, connection) -> Model:
    if compiled.converters:
        row = _converted(compiled, row, connection)
    instance = model.from_db(connection.alias, compiled.init_list, row[compiled.model_columns])
    for name, position in compiled.annotations.items():
        setattr(instance, name, row[position])
    return instance


def _sentinel(field: Field) -> Any:
    """A value no real row has, so its place among the compiled parameters is unambiguous."""
    while field.is_relation:  # a foreign key takes its target's values
        field = field.target_field  # type: ignore[attr-defined]
    internal = field.get_internal_type()
    if internal == "UUIDField":
        return uuid.uuid4()
    if internal in {"AutoField", "BigAutoField", "BigIntegerField", "IntegerField"}:
        return secrets.randbelow(2**40) + 2**40
    if internal in {"CharField", "TextField"}:
        return f"sentinel-{secrets.token_hex(8)}"
    raise ValueError(f"no sentinel for a {internal} parameter")
