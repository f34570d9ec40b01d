"""Relevance of catalog search over the demo-shop feed (catalogs/), the same on both databases.

Each case: a shopper's query and products that must come first (in any order among
themselves). Covers stemming and plurals, case and accents, typos, brands and categories.
"""

from __future__ import annotations

import pytest
from django.db import transaction

from knowledge.search import product_search
from tests.factories import OrganizationFactory
from tests.knowledge.catalog_files import DEMO_CATALOGS, run_import

FEED = DEMO_CATALOGS / "demo-shop-products.tsv"

# (query, titles expected among the first len(titles) results)
CASES = [
    (
        "watches",
        [
            "Rolex Submariner Watch",
            "Women's Wrist Watch",
            "Brown Leather Belt Watch",
            "Watch Gold for Women",
        ],
    ),
    (
        "watch",
        [
            "Rolex Submariner Watch",
            "Women's Wrist Watch",
            "Brown Leather Belt Watch",
            "Watch Gold for Women",
        ],
    ),
    ("Rolex Datejust", ["Rolex Datejust", "Rolex Datejust Women"]),
    ("samsng", ["Samsung Galaxy S7", "Samsung Galaxy S8", "Samsung Galaxy S10"]),
    ("samsung phone", ["Samsung Galaxy S7", "Samsung Galaxy S8", "Samsung Galaxy S10"]),
    ("rollex submariner", ["Rolex Submariner Watch"]),
    ("iphnoe 13", ["iPhone 13 Pro"]),
    ("vivo phone", ["Vivo S1", "Vivo V9", "Vivo X21"]),
    ("apple laptop", ["Apple MacBook Pro 14 Inch Space Grey"]),
    ("MacBook", ["Apple MacBook Pro 14 Inch Space Grey"]),
    (
        "laptops",
        [
            "Asus Zenbook Pro Dual Screen Laptop",
            "New DELL XPS 13 9300 Laptop",
            "Lenovo Yoga 920",
            "Huawei Matebook X Pro",
            "Apple MacBook Pro 14 Inch Space Grey",
        ],
    ),
    ("dell xps", ["New DELL XPS 13 9300 Laptop"]),
    ("chanel perfume", ["Chanel Coco Noir Eau De"]),
    (
        "perfumes",
        [
            "Calvin Klein CK One",
            "Chanel Coco Noir Eau De",
            "Dior J'adore",
            "Dolce Shine Eau de",
            "Gucci Bloom Eau de",
        ],
    ),
    ("DIOR J'ADORE", ["Dior J'adore"]),
    ("mascara", ["Essence Mascara Lash Princess"]),
    ("red lipstick", ["Red Lipstick"]),
    ("nail polish", ["Red Nail Polish"]),
    ("sunglasses", ["Sunglasses"]),
    ("sun glasses", ["Black Sun Glasses", "Classic Sun Glasses"]),
    ("kawasaki", ["Kawasaki Z800"]),
    ("motorcycles", ["Generic Motorcycle", "Scooter Motorcycle", "Sportbike Motorcycle"]),
    ("office chair", ["Knoll Saarinen Executive Conference Chair"]),
    ("sofa", ["Annibale Colombo Sofa"]),
    ("sneakers", ["Sports Sneakers Off White & Red", "Sports Sneakers Off White Red"]),
    ("nike shoes", ["Nike Air Jordan 1 Red And Black", "Nike Baseball Cleats"]),
    ("tennis racket", ["Tennis Racket"]),
    ("Ténnis Bäll", ["Tennis Ball"]),
    ("cricket bat", ["Cricket Bat"]),
    ("womens handbag", ["Blue Women's Handbag", "Women Handbag Black"]),
    ("wireless earphones", ["Beats Flex Wireless Earphones"]),
    ("airpods", ["Apple Airpods", "Apple AirPods Max Silver"]),
    ("galaxy tab", ["Samsung Galaxy Tab S8 Plus Grey", "Samsung Galaxy Tab White"]),
    ("strawberries", ["Strawberry"]),
    ("knives", ["Knife"]),
    ("chopping board", ["Chopping Board"]),
    ("blenders", ["Boxed Blender", "Hand Blender"]),
    ("cat food", ["Cat Food"]),
    ("coffee", ["Nescafe Coffee"]),
    ("heels", ["Calvin Klein Heel Shoes"]),
    ("body wash", ["Olay Ultra Moisture Shea Butter Body Wash"]),
    ("oppo", ["Oppo A57", "Oppo F19 Pro Plus", "Oppo K1"]),
    ("frying pan", ["Pan", "Carbon Steel Wok"]),
]


@pytest.fixture(scope="module")
def demo_shop(committed_database, django_db_blocker):
    """The demo-shop feed imported once for the module, rolled back at its end."""
    with django_db_blocker.unblock():
        atomic = transaction.atomic()
        atomic.__enter__()
        try:
            organization = OrganizationFactory(name="Relevance Shop")
            summary, failed = run_import(str(organization.id), str(FEED))
            assert not failed and summary["created"] == 194
            yield organization
        finally:
            transaction.set_rollback(True)
            atomic.__exit__(None, None, None)


@pytest.mark.parametrize(("query", "expected"), CASES, ids=[case[0] for case in CASES])
def test_expected_products_come_first(db, demo_shop, query, expected):
    result = product_search(organization=demo_shop, query=query, limit=len(expected))

    assert sorted(product.title for product in result.products) == sorted(expected)


def test_title_matches_rank_above_description_matches(db, demo_shop):
    result = product_search(organization=demo_shop, query="leather", limit=20)

    titles = [product.title for product in result.products]
    in_title = [title for title in titles if "leather" in title.lower()]
    assert len(in_title) >= 4
    assert titles[: len(in_title)] == in_title
    assert result.total > len(in_title)  # descriptions match too, ranked lower


def test_typo_correction_reports_the_words_searched(db, demo_shop):
    result = product_search(organization=demo_shop, query="samsng galaxy")

    assert result.terms == ["samsung", "galaxy"]
    assert result.total == 5


def test_a_query_with_nothing_near_finds_nothing(db, demo_shop):
    result = product_search(organization=demo_shop, query="zzqxw")

    assert (result.products, result.total) == ([], 0)
