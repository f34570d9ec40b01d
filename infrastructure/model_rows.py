"""Model instances from cached column values, made the way Django unpickles one.

`Model.from_db()` runs `__init__`: the pre_init and post_init signals and a pass over every
field. The key cache and the chat cache made three instances per request that way, a tenth of
a cached GET chat's time in Django. Unpickling (`Model.__reduce__`, `__setstate__`) makes the
same instance with `__new__` and its `__dict__`; so does this, for models no pre_init or
post_init receiver listens to (ImageField and GenericForeignKey connect some), and through
`from_db()` for any other.
"""

from __future__ import annotations

import functools
from typing import Any, TypeVar

from django.db.models import Model, signals
from django.db.models.base import ModelState

M = TypeVar("M", bound=Model)


def instance_from_values(model: type[M], values: dict[str, Any], *, db: str) -> M:
    """A model instance as loaded from `db`, with `values` ({attname: value}) as its columns."""
    if _has_init_receivers(model):
        return model.from_db(db, list(values), list(values.values()))
    instance = model.__new__(model)
    instance.__dict__.update(values)
    state = ModelState()
    state.adding = False
    state.db = db
    instance._state = state
    return instance


@functools.cache
def _has_init_receivers(model: type[Model]) -> bool:
    # Receivers connect when apps load, before the first request asks.
    return signals.pre_init.has_listeners(model) or signals.post_init.has_listeners(model)
