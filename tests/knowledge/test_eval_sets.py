"""The evaluation's catalogs, conversation sets and gate (eval/): what `make eval` measures.

The other catalogs and languages are tracked, not yet gated (eval/targets.yaml): their numbers
are reported, and a failing tracked conversation never fails the run while a gated one does.
"""

from __future__ import annotations

import csv
import importlib.util
from collections import Counter
from decimal import Decimal
from pathlib import Path

import pytest

from eval.checks import reply_language, ungrounded_facts
from eval.runner import SHOPS, Targets, load_conversations, run
from tests.factories import OrganizationFactory, ProductFactory
from tests.knowledge.catalog_files import ROOT, run_import

CATALOGS = ROOT / "eval" / "catalogs"


def _rows(path: Path) -> int:
    with path.open(encoding="utf-8", newline="") as handle:
        return sum(1 for _ in csv.DictReader(handle, delimiter="\t"))


@pytest.mark.django_db
@pytest.mark.parametrize("shop", ["vendure", "epicerie", "fashion"])
def test_each_eval_catalog_imports_without_a_rejected_row(shop):
    # Given the shop's three feeds and an organization
    products, inventory, stores = SHOPS[shop]
    organization = OrganizationFactory(name=f"{shop} shop")

    # When an operator imports them, strictly
    summary, failed = run_import(
        str(organization.id),
        str(products),
        "--inventory",
        str(inventory),
        "--stores",
        str(stores),
        "--strict",
    )

    # Then every row of every file is in, with no error or warning
    assert not failed, summary
    assert (summary["errorCount"], summary["warningCount"]) == (0, 0), summary
    assert summary["created"] == _rows(products)
    assert summary["inventory"]["created"] == _rows(inventory)
    assert summary["stores"]["created"] == _rows(stores)


def test_new_catalogs_are_of_other_kinds_with_variants_and_in_french():
    with (CATALOGS / "vendure-products.tsv").open(encoding="utf-8") as handle:
        vendure = list(csv.DictReader(handle, delimiter="\t"))
    with (CATALOGS / "epicerie-products.tsv").open(encoding="utf-8") as handle:
        epicerie = list(csv.DictReader(handle, delimiter="\t"))

    groups = Counter(r["item_group_id"] for r in vendure if r["item_group_id"])
    assert 80 <= len(vendure) <= 500 and 100 <= len(epicerie) <= 500
    assert groups["ultraboost-running-shoe"] == 4
    shoes = [r for r in vendure if r["item_group_id"] == "ultraboost-running-shoe"]
    assert sorted(r["size"] for r in shoes) == ["40", "42", "44", "46"]
    assert all("?size=" in r["link"] for r in shoes)
    assert {r["product_type"].split(" > ")[0] for r in vendure} == {
        "Electronics",
        "Sports & Outdoor",
        "Home & Garden",
    }
    assert all(r["price"].endswith(" EUR") for r in epicerie)
    assert "Valeurs nutritionnelles" in epicerie[0]["description"]
    for licence in ("LICENSE-vendure.txt", "LICENSE-open-food-calories.txt"):
        assert "Permission is hereby granted" in (CATALOGS / licence).read_text()


@pytest.mark.parametrize("script", ["convert_vendure", "convert_epicerie"])
def test_converters_rewrite_the_committed_feeds_from_the_committed_sources(script, tmp_path):
    # Given a converter, loaded from its file as `python eval/catalogs/<script>.py` runs it
    spec = importlib.util.spec_from_file_location(script, CATALOGS / f"{script}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)

    # When it converts into an empty folder
    if script == "convert_epicerie":
        module.main([], out=tmp_path)
    else:
        module.main(out=tmp_path)

    # Then it writes the committed feeds, byte for byte
    written = sorted(tmp_path.iterdir())
    assert len(written) == 3
    for path in written:
        assert path.read_bytes() == (CATALOGS / path.name).read_bytes(), path.name


def test_the_sets_cover_two_new_catalogs_and_four_other_languages():
    conversations = load_conversations()
    shops = Counter(c["shop"] for c in conversations)
    languages = Counter(c["language"] for c in conversations)
    ids = [c["id"] for c in conversations]

    assert len(ids) == len(set(ids))
    assert shops["vendure"] >= 40 and shops["epicerie"] >= 40
    assert sum(n for language, n in languages.items() if language != "en") >= 60
    for language in ("fr", "de", "es", "it"):
        assert languages[language] >= 12, language
    assert {c["shop"] for c in conversations} <= set(SHOPS)
    assert Targets.load().tracked <= {c["set"] for c in conversations}


@pytest.mark.parametrize(
    ("reply", "titles", "language"),
    [
        ("Here are two matches under $50:\n- Beats Flex Wireless Earphones: $49.99", [], "en"),
        ("Voici deux produits à moins de 50 € : Huile de colza et Huile de tournesol.", [], "fr"),
        ("Hier sind zwei Kopfhörer unter 100 Euro, beide auf Lager.", [], "de"),
        ("Aquí tienes dos auriculares por menos de 150 dólares.", [], "es"),
        ("Ecco due cuffie sotto i 100 euro, entrambe disponibili.", [], "it"),
        # The catalog's titles are not the reply's words
        ("Voici : Huile de colza, Huile de tournesol, Huile d'olive.", ["Huile d'olive"], "fr"),
        (
            "I found these oils for you: Huile de colza, Huile de tournesol.",
            ["Huile de colza", "Huile de tournesol"],
            "en",
        ),
        # Too few words of its own to tell
        ("Huile de colza: 4,73 €", ["Huile de colza"], None),
        ("ok", [], None),
    ],
)
def test_reply_language(reply, titles, language):
    assert reply_language(reply, titles) == language


@pytest.mark.django_db
def test_a_failing_tracked_set_is_reported_but_only_a_gated_one_fails_the_run():
    # Given one conversation that cannot pass (no such product) and one that does
    conversations = [
        {
            "id": "impossible",
            "set": "newset",
            "shop": "demo",
            "language": "en",
            "turns": [{"say": "laptops", "expect": {"first": "No Such Product"}}],
        },
        {
            "id": "possible",
            "set": "oldset",
            "shop": "demo",
            "language": "en",
            "turns": [{"say": "laptops", "expect": {"products": 1}}],
        },
    ]

    # When the failing one's set is tracked, and then when it is gated
    tracked = run(conversations, Targets(pass_share=0.95, tracked=frozenset({"newset"})))
    gated = run(conversations, Targets(pass_share=0.95, tracked=frozenset()))

    # Then only the gated run misses its targets; both report the failure and each set's share
    assert tracked.meets_targets and not gated.meets_targets
    assert (tracked.gated.passed, len(tracked.gated.results)) == (1, 1)
    text = tracked.text()
    assert "Passed: 1/1 (100.0%; target >= 95%) in gated sets; all sets 1/2 (50.0%)" in text
    assert "  newset: 0/1 (0.0%), 0 violations, 0 ungrounded [tracked, not yet gated]" in text
    assert "  demo: 1/2 (50.0%), 0 violations, 0 ungrounded [1 gated, 1 tracked]" in text
    assert "- impossible" not in text and "(1 failing conversations of tracked sets" in text
    assert "- impossible: FAIL" in tracked.text(verbose=True)
    assert "- impossible: FAIL" in gated.text()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("content", "problems"),
    [
        ("Huile de colza : 4,73\u202f€ (au lieu de 5,56\u202f€), 12 disponibles.", []),
        ("Huile de colza: 1.299,00 € (12 verfügbar)", ["price 1.299,00 €"]),
        ("Huile de colza : 4,37 €", ["price 4,37 €"]),
        ("Huile de colza: 4,73 € (nur noch 5 auf Lager)", ["stock figure nur noch 5"]),
        ("Huile de colza: 4,73 US$, ne restano solo 12", []),
        ("Huile de colza: meno di 6 €", []),  # the shopper's own figure
    ],
)
def test_ungrounded_facts_read_prices_and_stock_as_each_language_writes_them(content, problems):
    # Given a product at 5.56, on sale at 4.73, 12 in stock, and a shopper who said "6"
    product = ProductFactory(
        title="Huile de colza", price=Decimal("5.56"), sale_price=Decimal("4.73"), quantity=12
    )

    # When a reply names it with figures written the French, German or Italian way
    found = ungrounded_facts(product.organization, {"content": content}, ["moins de 6"], "", set())

    # Then only the figures the catalog does not back are reported
    assert [p.split(" is ")[0] for p in found] == problems


@pytest.mark.django_db
@pytest.mark.parametrize(
    "said",
    ["moins de cent euros", "unter hundert Euro", "menos de cien euros", "meno di cento euro"],
)
def test_an_amount_the_shopper_wrote_in_words_backs_the_same_figure_in_the_reply(said):
    product = ProductFactory(title="Huile de colza", price=Decimal("5.56"))

    found = ungrounded_facts(
        product.organization, {"content": "Huile de colza: moins de 100,00 €"}, [said], "", set()
    )

    assert found == []
