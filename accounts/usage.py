"""Usage records and the monthly message quota (docs/api.md#monthly-message-quota).

Usage is counted per organization, chatbot and UTC day, by one upsert written here twice side
by side: through the ORM, and as one PostgreSQL statement that the writes counting usage on
PostgreSQL (chat creation, an unmetered user message) also embed. The quota check locks the
organization's row for the short transaction that stores a user message, so N parallel
messages against k < N remaining store exactly k (on SQLite the write lock taken at BEGIN
serializes them the same way).
"""

from __future__ import annotations

import datetime as dt
import math
import uuid
from dataclasses import asdict, dataclass

from django.db import IntegrityError, connection, connections, router, transaction
from django.db.models import F, Sum
from django.utils import timezone

from accounts.models import DailyUsage, Organization
from assistant_api.errors import TooManyRequestsError

QUOTA_REACHED = "Monthly message quota reached"
USAGE_COUNTERS = ("messages", "chats", "pdp_requests")
_USAGE_TABLE = connection.ops.quote_name(DailyUsage._meta.db_table)


@dataclass(frozen=True)
class UsageCounts:
    """What to add to one day's usage row (chatbot None: usage of no chatbot)."""

    organization_id: uuid.UUID
    chatbot_id: uuid.UUID | None
    day: dt.date
    messages: int = 0
    chats: int = 0
    pdp_requests: int = 0


@dataclass(frozen=True)
class QuotaState:
    month: str  # "2026-11"
    used: int
    limit: int | None  # None: unlimited
    resets_at: dt.datetime

    @property
    def remaining(self) -> int | None:
        return None if self.limit is None else max(0, self.limit - self.used)


def month_bounds(moment: dt.datetime) -> tuple[dt.date, dt.datetime]:
    """The first day of `moment`'s UTC month and the first second of the next one."""
    moment = moment.astimezone(dt.UTC)
    first = moment.date().replace(day=1)
    following = (first + dt.timedelta(days=32)).replace(day=1)
    return first, dt.datetime.combine(following, dt.time.min, tzinfo=dt.UTC)


def monthly_messages(*, organization_id: uuid.UUID, now: dt.datetime | None = None) -> int:
    first, following = month_bounds(now or timezone.now())
    total = DailyUsage.objects.filter(
        organization_id=organization_id, day__gte=first, day__lt=following.date()
    ).aggregate(total=Sum("messages"))["total"]
    return total or 0


def quota_state(*, organization: Organization, now: dt.datetime | None = None) -> QuotaState:
    now = now or timezone.now()
    _, resets_at = month_bounds(now)
    return QuotaState(
        month=now.astimezone(dt.UTC).strftime("%Y-%m"),
        used=monthly_messages(organization_id=organization.pk, now=now),
        limit=organization.monthly_quota,
        resets_at=resets_at,
    )


def quota_consume_message(*, organization_id: uuid.UUID, chatbot_id: uuid.UUID) -> None:
    """Counts one user message, or raises 429 when the month's quota is used up.

    Must run inside the transaction that stores the message, so a refusal stores nothing.
    """
    assert transaction.get_connection().in_atomic_block, "call inside the message's transaction"
    # Lock and re-read: a quota changed in the admin counts from the next request on.
    # FOR NO KEY UPDATE, not FOR UPDATE: it still serializes the organization's messages, but
    # lets other transactions insert rows that reference the organization (chats, usage), whose
    # foreign key checks take FOR KEY SHARE at commit. FOR UPDATE blocked those checks and,
    # with the usage row locked the other way round, deadlocked POST chats against messages.
    organization = (
        Organization.objects.select_for_update(no_key=True)
        .only("id", "monthly_quota")
        .get(pk=organization_id)
    )
    now = timezone.now()
    if organization.monthly_quota is not None:  # unlimited: nothing to sum
        state = quota_state(organization=organization, now=now)
        if state.limit is not None and state.used >= state.limit:
            retry_after = math.ceil((state.resets_at - now).total_seconds())
            raise TooManyRequestsError(QUOTA_REACHED, retry_after=retry_after)
    usage_add(organization_id=organization_id, chatbot_id=chatbot_id, messages=1, day=now.date())


def usage_add(
    *,
    organization_id: uuid.UUID,
    chatbot_id: uuid.UUID | None = None,
    messages: int = 0,
    chats: int = 0,
    pdp_requests: int = 0,
    day: dt.date | None = None,
) -> None:
    """Adds to the day's usage row, creating it on first use (safe under concurrency)."""
    counts = UsageCounts(
        organization_id=organization_id,
        chatbot_id=chatbot_id,
        day=day or timezone.now().astimezone(dt.UTC).date(),
        messages=messages,
        chats=chats,
        pdp_requests=pdp_requests,
    )
    if connections[router.db_for_write(DailyUsage)].vendor == "postgresql":
        usage_add_postgresql(counts)
    else:
        usage_add_portable(counts)


def usage_add_portable(counts: UsageCounts) -> None:
    """`usage_add` through the ORM: an UPDATE, and the row created when there was none."""
    key = {
        "organization_id": counts.organization_id,
        "chatbot_id": counts.chatbot_id,
        "day": counts.day,
    }
    increments = {name: getattr(counts, name) for name in USAGE_COUNTERS}
    changes = {field: F(field) + amount for field, amount in increments.items() if amount}
    if DailyUsage.objects.filter(**key).update(**changes):
        return
    try:
        with transaction.atomic():
            DailyUsage.objects.create(**key, **increments)
    except IntegrityError:
        # Another request created the day's row first: add to it.
        DailyUsage.objects.filter(**key).update(**changes)


def usage_add_postgresql(counts: UsageCounts) -> None:
    """`usage_add` in one statement, which settles a race for the day's row itself."""
    sql = _ADD_BOUND_SQL if counts.chatbot_id is not None else _ADD_UNBOUND_SQL
    with connections[router.db_for_write(DailyUsage)].cursor() as cursor:
        cursor.execute(sql, asdict(counts))


def usage_upsert_sql(rows: str, *, bound: bool) -> str:
    """PostgreSQL's usage upsert: adds the counts of `rows`, a query giving (organization id,
    chatbot id, day, messages, chats, PDP requests), to their day's row, creating it if new.

    The one text of it, which chat creation and the unmetered user message
    (chats/services.py, chats/message_insert.py) also run inside their own statements.
    `bound`: the rows have a chatbot, and conflict on usage_org_bot_day_unique; rows without
    one (NULLs are distinct there) on the partial usage_org_day_unbound_unique.
    """
    target = "(organization_id, chatbot_id, day)" if bound else "(organization_id, day)"
    target += "" if bound else " WHERE chatbot_id IS NULL"
    added = ", ".join(f"{name} = usage.{name} + EXCLUDED.{name}" for name in USAGE_COUNTERS)
    return (
        f"INSERT INTO {_USAGE_TABLE} AS usage "
        f"(organization_id, chatbot_id, day, {', '.join(USAGE_COUNTERS)}) {rows} "
        f"ON CONFLICT {target} DO UPDATE SET {added}"
    )


_ONE_ROW = "SELECT %(organization_id)s, %(chatbot_id)s, %(day)s, %(messages)s, %(chats)s, "
_ONE_ROW += "%(pdp_requests)s"
_ADD_BOUND_SQL = usage_upsert_sql(_ONE_ROW, bound=True)
_ADD_UNBOUND_SQL = usage_upsert_sql(_ONE_ROW, bound=False)


def quota_headers(*, organization: Organization) -> dict[str, str]:
    """`X-Quota-Limit` and `X-Quota-Remaining` after a stored message (none when unlimited)."""
    if organization.monthly_quota is None:
        return {}
    state = quota_state(organization=organization)
    return {"X-Quota-Limit": str(state.limit), "X-Quota-Remaining": str(state.remaining)}
