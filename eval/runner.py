"""`make eval`: the assistant's labelled conversations, run through the real API in process.

Imports each shop's catalog (`SHOPS`: the demo shop of catalogs/, the eval's fashion, Vendure and
French grocery catalogs of eval/catalogs/, and the `make run` demo catalog) into fresh
organizations, plays every conversation of `conversations/*.yaml` through
`POST /v1/chats/{chatId}/messages`, checks each reply (see `checks.py`) and prints the share of
conversations that pass, the constraint violations and the ungrounded facts, overall and per
catalog, per language and per conversation file (a *set*).

Targets (`targets.yaml`): >= 95% pass, 0 violations, 0 ungrounded facts. Every set is *gated*
(its results decide the exit status) unless `targets.yaml` lists it as *tracked*: a tracked set
is played and reported but does not fail the run yet. Sets written before the engine could pass
them start tracked; the change that makes one pass removes it from that list, which gates it.
"""

from __future__ import annotations

import sys
import time
import uuid
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
CONVERSATIONS = Path(__file__).resolve().parent / "conversations"
SHOPS = {
    "demo": (
        ROOT / "catalogs" / "demo-shop-products.tsv",
        ROOT / "catalogs" / "demo-shop-local-inventory.tsv",
        ROOT / "catalogs" / "demo-shop-stores.tsv",
    ),
    "fashion": (
        ROOT / "eval" / "catalogs" / "fashion-products.tsv",
        ROOT / "eval" / "catalogs" / "fashion-local-inventory.tsv",
        ROOT / "eval" / "catalogs" / "fashion-stores.tsv",
    ),
    # Vendure's demo data: electronics, cameras, sports gear, shoes, plants, furniture (USD).
    "vendure": (
        ROOT / "eval" / "catalogs" / "vendure-products.tsv",
        ROOT / "eval" / "catalogs" / "vendure-local-inventory.tsv",
        ROOT / "eval" / "catalogs" / "vendure-stores.tsv",
    ),
    # A French grocery (EUR): titles and descriptions in French.
    "epicerie": (
        ROOT / "eval" / "catalogs" / "epicerie-products.tsv",
        ROOT / "eval" / "catalogs" / "epicerie-local-inventory.tsv",
        ROOT / "eval" / "catalogs" / "epicerie-stores.tsv",
    ),
    # The catalog `make run` seeds (seed_demo): what a new user tries first.
    "seed": (
        ROOT / "knowledge" / "demo" / "products.tsv",
        ROOT / "knowledge" / "demo" / "inventory.tsv",
        ROOT / "knowledge" / "demo" / "stores.tsv",
    ),
}
HOME = {
    "demo": "https://demo-shop.example/",
    "fashion": "https://fashion.example/",
    "seed": "https://demo-shop.example/",
    "vendure": "https://vendure-shop.example/",
    "epicerie": "https://epicerie.example/",
}
# The catalogs' languages (Organization.language); English unless listed.
LANGUAGE = {"epicerie": "fr"}
TARGETS = Path(__file__).resolve().parent / "targets.yaml"


@dataclass(frozen=True)
class Targets:
    pass_share: float
    tracked: frozenset[str]

    @classmethod
    def load(cls, path: Path = TARGETS) -> Targets:
        data = yaml.safe_load(path.read_text())
        return cls(pass_share=float(data["pass_share"]), tracked=frozenset(data["tracked"] or []))


@dataclass
class Result:
    conversation: str
    set: str = ""
    shop: str = "demo"
    language: str = "en"
    gated: bool = True
    failures: list[str] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)
    ungrounded: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not (self.failures or self.violations or self.ungrounded)


@dataclass
class Tally:
    """Pass share, violations and ungrounded facts of some results."""

    results: list[Result]

    @property
    def passed(self) -> int:
        return sum(r.passed for r in self.results)

    @property
    def pass_share(self) -> float:
        return self.passed / max(1, len(self.results))

    @property
    def violations(self) -> int:
        return sum(len(r.violations) for r in self.results)

    @property
    def ungrounded(self) -> int:
        return sum(len(r.ungrounded) for r in self.results)

    def meets(self, pass_share: float) -> bool:
        return self.pass_share >= pass_share and not self.violations and not self.ungrounded

    def line(self, name: str) -> str:
        gated = sum(r.gated for r in self.results)
        status = (
            "gated"
            if gated == len(self.results)
            else "tracked, not yet gated"
            if not gated
            else f"{gated} gated, {len(self.results) - gated} tracked"
        )
        return (
            f"  {name}: {self.passed}/{len(self.results)} ({self.pass_share:.1%}), "
            f"{self.violations} violations, {self.ungrounded} ungrounded [{status}]"
        )


@dataclass
class Report:
    """All results; the targets hold for the gated ones (`targets.yaml`)."""

    results: list[Result]
    turns: int
    seconds: float
    target_pass: float = 0.95

    @property
    def gated(self) -> Tally:
        return Tally([r for r in self.results if r.gated])

    @property
    def pass_share(self) -> float:
        return self.gated.pass_share

    @property
    def violations(self) -> int:
        return self.gated.violations

    @property
    def ungrounded(self) -> int:
        return self.gated.ungrounded

    @property
    def meets_targets(self) -> bool:
        return self.gated.meets(self.target_pass)

    def by(self, key: str) -> dict[str, Tally]:
        groups: dict[str, list[Result]] = {}
        for result in self.results:
            groups.setdefault(getattr(result, key), []).append(result)
        return {name: Tally(results) for name, results in sorted(groups.items())}

    def text(self, *, verbose: bool = False) -> str:
        gated, target = self.gated, self.target_pass
        everything = Tally(self.results)
        lines = [
            f"Conversations: {len(self.results)} ({self.turns} messages, {self.seconds:.1f} s), "
            f"{len(gated.results)} in gated sets",
            f"Passed: {gated.passed}/{len(gated.results)} ({gated.pass_share:.1%}; "
            f"target >= {target:.0%}) in gated sets; all sets {everything.passed}/"
            f"{len(self.results)} ({everything.pass_share:.1%})",
            f"Constraint violations: {gated.violations} (target 0); all sets "
            f"{everything.violations}",
            f"Ungrounded facts: {gated.ungrounded} (target 0); all sets {everything.ungrounded}",
        ]
        for title, key in (("catalog", "shop"), ("language", "language"), ("set", "set")):
            lines.append(f"By {title}:")
            lines += [tally.line(name) for name, tally in self.by(key).items()]
        tracked_failing = 0
        for result in self.results:
            if result.passed and not verbose:
                continue
            if not result.gated and not verbose:
                tracked_failing += 1
                continue
            lines.append(f"- {result.conversation}: {'pass' if result.passed else 'FAIL'}")
            lines += [f"    failure: {f}" for f in result.failures]
            lines += [f"    violation: {v}" for v in result.violations]
            lines += [f"    ungrounded: {u}" for u in result.ungrounded]
        if tracked_failing:
            lines.append(
                f"({tracked_failing} failing conversations of tracked sets: -v lists them)"
            )
        return "\n".join(lines)


def load_conversations(directory: Path = CONVERSATIONS) -> list[dict[str, Any]]:
    conversations: list[dict[str, Any]] = []
    for path in sorted(directory.glob("*.yaml")):
        for conversation in yaml.safe_load(path.read_text()) or []:
            conversation.setdefault("id", f"{path.stem}-{len(conversations)}")
            conversation.setdefault("shop", "demo")
            conversation.setdefault("language", "en")
            conversation["set"] = path.stem
            conversations.append(conversation)
    return conversations


def _shop(name: str):
    """A fresh organization with the shop's catalog and an authenticated client (the chatbots,
    one per shoppers' language, come with the first conversation in that language)."""
    from django.core.management import call_command
    from rest_framework.test import APIClient

    from accounts.models import Organization
    from accounts.services import api_key_issue

    products, inventory, stores = SHOPS[name]
    organization = Organization.objects.create(
        name=f"Eval {name} {uuid.uuid4().hex[:8]}", language=LANGUAGE.get(name, "en")
    )
    call_command(
        "import_catalog",
        str(organization.id),
        str(products),
        "--inventory",
        str(inventory),
        "--stores",
        str(stores),
        "--json",
        stdout=open("/dev/null", "w"),  # noqa: SIM115 (the summary is not needed)
    )
    client = APIClient(SERVER_NAME="localhost")
    client.credentials(HTTP_X_API_KEY=api_key_issue(organization=organization).key)
    return organization, client


def run(
    conversations: list[dict[str, Any]] | None = None, targets: Targets | None = None
) -> Report:
    """Plays the conversations; every organization it creates is deleted at the end."""
    conversations = conversations if conversations is not None else load_conversations()
    targets = targets or Targets.load()
    started = time.monotonic()
    shops = {name: _shop(name) for name in sorted({c.get("shop", "demo") for c in conversations})}
    results: list[Result] = []
    turns = 0
    try:
        for conversation in conversations:
            result = Result(
                conversation["id"],
                set=conversation.get("set", ""),
                shop=conversation.get("shop", "demo"),
                language=conversation.get("language", "en"),
                gated=conversation.get("set", "") not in targets.tracked,
            )
            turns += _play(conversation, shops[conversation.get("shop", "demo")], result)
            results.append(result)
    finally:
        for organization, _ in shops.values():
            organization.delete()
    return Report(
        results=results,
        turns=turns,
        seconds=time.monotonic() - started,
        target_pass=targets.pass_share,
    )


def _play(conversation: dict[str, Any], shop, result: Result) -> int:
    from accounts.models import Chatbot
    from chats.models import Event
    from eval.checks import catalog_products, constraint_violations, ungrounded_facts

    organization, client = shop
    # The chatbot a storefront in the shopper's language shows (Chatbot.language): it answers
    # a first message too short to tell ("Tablets") in that language.
    language = conversation.get("language", "en")
    chatbot, _ = Chatbot.objects.get_or_create(
        organization=organization,
        language=language,
        defaults={"name": f"Eval assistant ({language})"},
    )
    home = HOME[conversation.get("shop", "demo")]
    store = conversation.get("store", "")
    chat_id = client.post("/v1/chats", {"chatbotId": str(chatbot.id)}, format="json").json()["id"]
    said: list[str] = []
    earlier_prices: set[Decimal] = set()
    url = home
    for number, turn in enumerate(conversation["turns"], start=1):
        url = turn.get("url", url)
        said.append(turn["say"])
        last_event = Event.objects.filter(chat_id=chat_id).order_by("-seq").first()
        path = f"/v1/chats/{chat_id}/messages" + (f"?store={store}" if store else "")
        response = client.post(path, {"message": turn["say"], "currentUrl": url}, format="json")
        where = f"turn {number} ({turn['say']!r})"
        if response.status_code != 201:
            result.failures.append(f"{where}: status {response.status_code}")
            return number
        body = response.json()
        events = Event.objects.filter(
            chat_id=chat_id, seq__gt=last_event.seq if last_event else 0
        ).order_by("seq")
        expect = turn.get("expect", {})
        products = catalog_products(organization, body)
        relaxed: list[str] = []
        for event in events:
            if event.tool_name == "search_products" and event.tool_response:
                relaxed = event.tool_response.get("filtersRelaxed", relaxed)
        # The shopper's language: the conversation's unless the turn names one; English replies
        # are not checked unless a turn asks (the gated English sets predate the detector).
        language = expect.get("language", conversation.get("language", "en"))
        expect = {**expect, "language": language} if language != "en" else expect
        result.failures += [f"{where}: {f}" for f in _expectations(body, expect, events, relaxed)]
        result.violations += [
            f"{where}: {v}"
            for v in constraint_violations(products, expect.get("wishes", {}), relaxed, store)
        ]
        result.ungrounded += [
            f"{where}: {u}"
            for u in ungrounded_facts(organization, body, said, store, earlier_prices)
        ]
        for product in products:
            earlier_prices |= {product.price} | (
                {product.sale_price} if product.sale_price else set()
            )
    return len(conversation["turns"])


def _expectations(body: dict[str, Any], expect: dict[str, Any], events, relaxed) -> list[str]:
    failures: list[str] = []
    content = body.get("content", "")
    lowered = content.lower()
    titles = [p["designation"] for p in body.get("products") or []]
    suggestions = body.get("suggestions") or []
    if not 2 <= len(suggestions) <= 4:
        failures.append(f"{len(suggestions)} suggestions")
    if "products" in expect:
        wanted = expect["products"]
        if wanted == 0 and titles:
            failures.append(f"products {titles}, expected none")
        elif wanted and len(titles) < wanted:
            failures.append(f"{len(titles)} products, expected at least {wanted}")
    for title in expect.get("titles", []):
        if title not in titles:
            failures.append(f"{title!r} not among {titles}")
    if expect.get("titles_any") and not set(expect["titles_any"]) & set(titles):
        failures.append(f"none of {expect['titles_any']} among {titles}")
    for title in expect.get("not_titles", []):
        if title in titles:
            failures.append(f"{title!r} should not be shown")
    if "first" in expect and (not titles or titles[0] != expect["first"]):
        failures.append(f"first product {titles[:1]}, expected {expect['first']!r}")
    for text in expect.get("says", []):
        if text.lower() not in lowered:
            failures.append(f"reply lacks {text!r}: {content[:160]!r}")
    if expect.get("says_any") and not any(t.lower() in lowered for t in expect["says_any"]):
        failures.append(f"reply has none of {expect['says_any']}: {content[:160]!r}")
    if "language" in expect:
        from eval.checks import reply_language

        language = reply_language(content, titles)
        if language is not None and language != expect["language"]:
            failures.append(
                f"reply in {language!r}, expected {expect['language']!r}: {content[:80]!r}"
            )
    for text in expect.get("not_says", []):
        if text.lower() in lowered:
            failures.append(f"reply says {text!r}: {content[:160]!r}")
    used = {e.tool_name for e in events if e.tool_name}
    for tool in expect.get("tools", []):
        if tool not in used:
            failures.append(f"tool {tool} not used (used {sorted(used)})")
    for label in expect.get("relaxed", []):
        if label not in relaxed:
            failures.append(f"relaxed {relaxed}, expected {label!r}")
    prices = [p["price"] for p in body.get("products") or []]
    if expect.get("sorted") == "price_asc" and prices != sorted(prices):
        failures.append(f"prices {prices} not ascending")
    if expect.get("sorted") == "price_desc" and prices != sorted(prices, reverse=True):
        failures.append(f"prices {prices} not descending")
    return failures


def scratch_database_name(settings_dict: dict[str, Any]) -> str:
    """A database beside the configured one, so `make eval` never writes to the `make run`
    database: `<name>_eval` on PostgreSQL, `<file>-eval.sqlite3` next to a SQLite file."""
    name = str(settings_dict["NAME"])
    if settings_dict["ENGINE"].endswith("sqlite3"):
        return name.removesuffix(".sqlite3") + "-eval.sqlite3"
    return f"{name}_eval"


def main(argv: list[str]) -> int:
    import argparse

    import django

    parser = argparse.ArgumentParser(
        prog="python -m eval.runner", description=__doc__.split("\n")[0]
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="list every conversation")
    parser.add_argument(
        "--set",
        action="append",
        dest="sets",
        metavar="NAME",
        help="play only this set (repeatable)",
    )
    options = parser.parse_args(argv)
    conversations = [
        c for c in load_conversations() if not options.sets or c["set"] in options.sets
    ]

    django.setup()
    from django.db import connection

    from chats.events import event_writer_close

    # Django's test database machinery: create and migrate the scratch database, switch the
    # connection to it, and drop it at the end (a run that was killed leaves only the scratch
    # database, replaced by the next run).
    connection.settings_dict["TEST"]["NAME"] = scratch_database_name(connection.settings_dict)
    configured = connection.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False)
    try:
        report = run(conversations)
    finally:
        # The replies' event writer keeps a connection of its own, which would keep PostgreSQL
        # from dropping the scratch database for its first idle seconds.
        event_writer_close()
        connection.creation.destroy_test_db(configured, verbosity=0)
    print(report.text(verbose=options.verbose))
    return 0 if report.meets_targets else 1


if __name__ == "__main__":
    import os

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "assistant_api.settings")
    sys.exit(main(sys.argv[1:]))
