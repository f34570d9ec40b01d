"""Questions generated from a catalog product (docs/api.md#generated-questions): grounded, ranked, 3
to 6, unique."""

from __future__ import annotations

import csv
from decimal import Decimal

import pytest

from knowledge.canonical import canonicalize_url
from knowledge.models import Availability, StoreInventory
from knowledge.pdp.families import Family, family_of
from knowledge.pdp.generation import MAX_QUESTIONS, MIN_QUESTIONS, questions_generate
from tests.factories import OrganizationFactory, ProductFactory, StoreFactory
from tests.knowledge.catalog_files import DEMO_CATALOGS

pytestmark = pytest.mark.django_db

DEMO_FEED = DEMO_CATALOGS / "demo-shop-products.tsv"


def assert_well_formed(questions: list[str]) -> None:
    assert MIN_QUESTIONS <= len(questions) <= MAX_QUESTIONS
    assert len({q.lower() for q in questions}) == len(questions)
    assert all(q.endswith("?") and len(q) <= 300 and q[0].isupper() for q in questions)


@pytest.fixture
def shop():
    return OrganizationFactory()


def test_clothing_asks_about_sizes_and_colours_across_its_variants(shop):
    # Given a shirt in four sizes (XL sold out) and two colours, one product per variant
    variants = [
        ProductFactory(
            organization=shop,
            title="Oxford Shirt",
            product_type="Apparel > Shirts",
            item_group_id="OX",
            size=size,
            color=color,
            availability=availability,
        )
        for size, color, availability in [
            ("S", "White", Availability.IN_STOCK),
            ("M", "White", Availability.IN_STOCK),
            ("L", "Blue", Availability.IN_STOCK),
            ("XL", "Blue", Availability.OUT_OF_STOCK),
        ]
    ]

    questions = questions_generate(variants[0])

    assert_well_formed(questions)
    assert questions[0] == "Which sizes of the Oxford Shirt are in stock?"
    assert "What colours does the Oxford Shirt come in?" in questions
    # A size the shopper is not looking at, that the catalog has in stock.
    assert "Is the Oxford Shirt available in size L?" in questions
    assert not any("size XL" in q or "size S?" in q for q in questions)


def test_shoes_without_size_or_fit_data_get_no_question_the_catalog_cannot_answer(shop):
    product = ProductFactory(
        organization=shop,
        title="Trail Sneakers",
        product_type="womens shoes > footwear",
        description="Light sneakers for the city.",
    )
    questions = questions_generate(product)
    assert_well_formed(questions)
    # "Sneakers" is plural: the verbs agree.
    assert "Are the Trail Sneakers in stock?" in questions
    assert not any("size" in q or "fit" in q for q in questions)


def test_a_description_that_talks_about_fit_gets_a_fit_question(shop):
    product = ProductFactory(
        organization=shop,
        title="Linen Shirt",
        product_type="mens shirts > clothing",
        description="A relaxed fit for summer.",
        size="M",
    )
    questions = questions_generate(product)
    assert "How does the Linen Shirt fit?" in questions
    assert "Does the Linen Shirt come in sizes other than M?" in questions


def test_phones_ask_about_battery_and_storage_options(shop):
    phones = [
        ProductFactory(
            organization=shop,
            title="Pixel 9",
            product_type="smartphones > google",
            item_group_id="P9",
            size=size,
            description="A 6.3-inch phone. Its battery lasts up to 30 hours.",
        )
        for size in ("128GB", "256GB")
    ]
    silent = ProductFactory(organization=shop, title="Pixel 8", product_type="smartphones > google")
    questions = questions_generate(phones[0])
    assert_well_formed(questions)
    assert questions[0] == "Which storage options does the Pixel 9 come in?"
    assert "How long does the battery of the Pixel 9 last?" in questions
    assert "How much storage does the Pixel 9 have?" in questions
    # No battery or storage figure in its data: no question about them.
    assert not any("battery" in q or "storage" in q for q in questions_generate(silent))


def test_accessories_ask_about_compatibility_not_battery(shop):
    charger = ProductFactory(
        organization=shop,
        title="USB-C Charger 30W",
        product_type="mobile accessories > electronics",
        description="Fast charging for phones and tablets.",
    )
    questions = questions_generate(charger)
    assert_well_formed(questions)
    assert questions[0] == "Which devices is the USB-C Charger 30W compatible with?"
    assert not any("battery" in q or "storage" in q for q in questions)


def test_packaged_food_asks_for_ingredients_and_allergens_fresh_produce_does_not(shop):
    granola = ProductFactory(
        organization=shop,
        title="Honey Granola",
        product_type="groceries > cereals",
        description="Ingredients: oats, honey and almonds. Contains nuts.",
    )
    kiwi = ProductFactory(organization=shop, title="Kiwi", product_type="groceries > fruits")
    water = ProductFactory(organization=shop, title="Bottled Water", product_type="groceries")
    granola_questions = questions_generate(granola)
    assert granola_questions[:2] == [
        "What are the ingredients of the Honey Granola?",
        "Does the Honey Granola contain any common allergens?",
    ]
    for plain in (kiwi, water):
        questions = questions_generate(plain)
        assert_well_formed(questions)
        assert not any("ingredients" in q or "allergens" in q for q in questions)


def test_furniture_asks_for_dimensions_and_material(shop):
    table = ProductFactory(
        organization=shop,
        title="Dining Table",
        product_type="Furniture > Tables",
        description="Made of solid oak, 180 x 90 cm.",
    )
    oak = ProductFactory(
        organization=shop, title="Side Table", product_type="Furniture > Tables", material="Oak"
    )
    assert questions_generate(table)[:2] == [
        "What are the dimensions of the Dining Table?",
        "What material is the Dining Table made of?",
    ]
    assert "What is the Side Table made of?" in questions_generate(oak)


def test_beauty_and_fragrance(shop):
    lotion = ProductFactory(
        organization=shop,
        title="Body Lotion",
        product_type="skin care > personal care",
        description="Gentle enough for sensitive skin.",
    )
    perfume = ProductFactory(
        organization=shop,
        title="Bloom Eau de Parfum",
        product_type="fragrances > perfumes",
        description="Notes of jasmine and rose.",
    )
    assert questions_generate(lotion)[0] == "Is the Body Lotion suitable for sensitive skin?"
    assert questions_generate(perfume)[0] == "What does the Bloom Eau de Parfum smell like?"


def test_warranty_is_asked_only_where_the_catalog_states_one(shop):
    with_warranty = ProductFactory(
        organization=shop,
        title="Cordless Drill",
        product_type="Tools",
        description="Two batteries included. Comes with a 3 year warranty.",
    )
    without = ProductFactory(organization=shop, title="Hand Saw", product_type="Tools")
    assert "What warranty comes with the Cordless Drill?" in questions_generate(with_warranty)
    assert not any("warranty" in q for q in questions_generate(without))


def test_price_stock_and_stores_questions_follow_the_catalog(shop):
    on_sale = ProductFactory(
        organization=shop, title="Rain Jacket", price=Decimal("80"), sale_price=Decimal("60")
    )
    sold_out = ProductFactory(
        organization=shop, title="Wool Hat", availability=Availability.OUT_OF_STOCK
    )
    in_stores = ProductFactory(organization=shop, title="Scarf")
    StoreInventory.objects.create(
        product=in_stores,
        store=StoreFactory(organization=shop),
        availability="in_stock",
        quantity=3,
    )
    # Listed by a store that has none: the answer would be "in no store", so it is not asked
    gone_from_stores = ProductFactory(organization=shop, title="Mittens")
    StoreInventory.objects.create(
        product=gone_from_stores,
        store=StoreFactory(organization=shop),
        availability="out_of_stock",
        quantity=0,
    )

    assert "How much is the discount on the Rain Jacket?" in questions_generate(on_sale)
    sold_out_questions = questions_generate(sold_out)
    assert "Do you have something similar to the Wool Hat in stock?" in sold_out_questions
    assert "Is the Wool Hat in stock?" not in sold_out_questions
    assert "Which stores have the Scarf in stock?" in questions_generate(in_stores)
    assert "Which stores have the Mittens in stock?" not in questions_generate(gone_from_stores)
    assert "Are the Mittens in stock?" in questions_generate(gone_from_stores)


def test_comparison_names_a_product_of_the_same_kind(shop):
    red = ProductFactory(
        organization=shop, title="Red Running Shoes", product_type="shoes", price=Decimal("50")
    )
    ProductFactory(
        organization=shop, title="Blue Running Shoes", product_type="shoes", price=Decimal("55")
    )
    ProductFactory(
        organization=shop, title="Shoe Polish Kit", product_type="shoes", price=Decimal("50")
    )
    ProductFactory(
        organization=OrganizationFactory(), title="Green Running Shoes", product_type="shoes"
    )
    questions = questions_generate(red)
    comparisons = [q for q in questions if "compare" in q]
    assert comparisons == ["How do the Red Running Shoes compare to the Blue Running Shoes?"]


def test_long_titles_are_shortened_at_a_word(shop):
    product = ProductFactory(
        organization=shop,
        title="Ultra Comfortable Memory Foam Office Chair With Adjustable Lumbar Support And Headrest",
        product_type="Furniture > Chairs",
        description="The seat is 50 cm wide.",
    )
    questions = questions_generate(product)
    assert_well_formed(questions)
    assert "the Ultra Comfortable Memory Foam Office Chair With Adjustable?" not in questions
    assert all("Headrest" not in q for q in questions)
    assert questions[0] == (
        "What are the dimensions of the Ultra Comfortable Memory Foam Office Chair?"
    )


def test_generation_is_deterministic(shop):
    product = ProductFactory(organization=shop, title="Desk Lamp", product_type="home decor")
    assert questions_generate(product) == questions_generate(product)


@pytest.mark.parametrize(
    ("category", "title", "family"),
    [
        ("Apparel & Accessories > Shoes > Sneakers", "X", Family.SHOES),
        ("Apparel & Accessories > Jewelry > Rings", "X", Family.ACCESSORIES),
        ("Apparel & Accessories > Clothing > Shirts & Tops", "X", Family.APPAREL),
        ("mobile accessories > electronics", "Apple Watch", Family.ELECTRONICS),
        ("Food, Beverages & Tobacco > Beverages > Juice", "X", Family.GROCERIES),
        ("Furniture > Chairs", "X", Family.FURNITURE),
        ("Health & Beauty > Personal Care > Cosmetics", "X", Family.BEAUTY),
        ("kitchen accessories > kitchen appliances", "Blender", Family.APPLIANCES),
        ("groceries > household essentials", "Tissues", Family.GENERAL),
        ("", "Leather Handbag", Family.ACCESSORIES),
        ("", "Something", Family.GENERAL),
        ("groceries > pantry", "Pasta", Family.GROCERIES),
        ("laptops > apple", "MacBook", Family.ELECTRONICS),
    ],
)
def test_families(category, title, family):
    assert family_of(category=category, title=title) == family


def test_every_product_of_the_demo_catalog_gets_a_good_set(shop):
    # The demo-shop feed, loaded as plain products (the catalog import has its own tests).
    with DEMO_FEED.open(newline="") as feed:
        rows = list(csv.DictReader(feed, delimiter="\t"))
    products = [
        ProductFactory(
            organization=shop,
            item_id=row["id"],
            title=row["title"],
            description=row["description"],
            url=canonicalize_url(row["link"]),
            brand=row["brand"],
            price=Decimal(row["price"].split()[0]),
            sale_price=Decimal(row["sale_price"].split()[0]) if row["sale_price"] else None,
            product_type=row["product_type"],
            availability=row["availability"],
        )
        for row in rows
    ]
    for product in products:
        questions = questions_generate(product)
        assert_well_formed(questions)
        # Written for this product: its name is in the first question.
        assert product.title[:20] in questions[0], (product.title, questions)
