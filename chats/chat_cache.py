"""A per-process cache of chat rows, so reading a chat again costs no query.

A chat never changes after it is created: no endpoint or admin page edits one. It disappears
only with its chatbot or organization (an operator deleting one in the admin); a deleted
organization's keys stop working within a second, but a worker may still serve a chat of a
deleted chatbot to reads until its entry expires after `CHAT_CACHE_SECONDS` (0 turns the cache
off). Writes ask with `fresh=True`: they read the row, and the entry follows what they read.
Entries are keyed by organization and chat, so no organization ever gets another's chat; only
found chats are kept, so made-up ids cannot grow the cache. Each call gets its own model
instance.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.db import router

from chats.models import Chat
from infrastructure.model_rows import instance_from_values

# More distinct chats than this read within the expiry is not a real load: start again.
MAX_ENTRIES = 50_000

_Values = dict[str, Any]
_entries: dict[tuple[uuid.UUID, uuid.UUID], tuple[float, _Values]] = {}


def chat_lookup(
    *,
    organization_id: uuid.UUID,
    chat_id: uuid.UUID,
    load: Callable[[], Chat | None],
    fresh: bool = False,
) -> Chat | None:
    """The organization's chat from the cache when recent enough, else from `load()`; always
    from `load()` when `fresh`."""
    ttl = settings.CHAT_CACHE_SECONDS
    if ttl <= 0:
        return load()
    key = (organization_id, chat_id)
    now = time.monotonic()
    entry = _entries.get(key)
    if entry is not None and now - entry[0] < ttl and not fresh:
        return instance_from_values(Chat, entry[1], db=router.db_for_read(Chat))
    chat = load()
    if chat is None:
        _entries.pop(key, None)
        return None
    if len(_entries) >= MAX_ENTRIES:
        _entries.clear()
    _entries[key] = (now, {f.attname: getattr(chat, f.attname) for f in Chat._meta.concrete_fields})
    return chat
