"""The shop assistant's fixed vocabulary: words for colours, sizes, materials, intents.

Catalog-specific words (brands, categories, attribute values) come from
`vocabulary.py`; these lists only say which words *may* mean a colour, a size or a wish.
"""

from __future__ import annotations

import re

COLORS = frozenset(
    [
        "black",
        "white",
        "red",
        "blue",
        "green",
        "yellow",
        "pink",
        "purple",
        "orange",
        "brown",
        "grey",
        "gray",
        "silver",
        "gold",
        "golden",
        "beige",
        "navy",
        "tan",
        "ivory",
        "cream",
        "maroon",
        "burgundy",
        "olive",
        "teal",
        "turquoise",
        "khaki",
        "charcoal",
        "lilac",
        "violet",
        "magenta",
        "coral",
        "mint",
        "plum",
        "rose",
    ]
)
# Spellings that mean the same colour: the catalog's own spelling wins (vocabulary.py).
COLOR_ALIASES = {"gray": "grey", "grey": "gray", "golden": "gold", "gold": "golden"}

MATERIALS = frozenset(
    [
        "leather",
        "cotton",
        "wool",
        "silk",
        "linen",
        "denim",
        "polyester",
        "steel",
        "wood",
        "wooden",
        "bamboo",
        "glass",
        "aluminium",
        "aluminum",
        "plastic",
        "ceramic",
        "cashmere",
        "suede",
        "canvas",
        "nylon",
        "rubber",
        "metal",
        "carbon",
        "titanium",
        "velvet",
        "porcelain",
        "marble",
        "oak",
        "walnut",
        "faux",
    ]
)
MATERIAL_ALIASES = {"aluminum": "aluminium", "aluminium": "aluminum", "wood": "wooden"}

# Letter sizes; the shopper's words for them.
LETTER_SIZES = ("xxs", "xs", "s", "m", "l", "xl", "xxl", "xxxl", "2xl", "3xl")
SIZE_WORDS = {
    "extra small": "XS",
    "small": "S",
    "medium": "M",
    "large": "L",
    "extra large": "XL",
    "x-large": "XL",
    "xx-large": "XXL",
}

GENDER_WORDS = {
    "men": "male",
    "mens": "male",
    "man": "male",
    "male": "male",
    "gents": "male",
    "women": "female",
    "womens": "female",
    "woman": "female",
    "female": "female",
    "ladies": "female",
    "lady": "female",
    "girls": "female",
    "boys": "male",
    "unisex": "unisex",
}

# Merchant Center's age groups (newborn, infant, toddler, kids, adult) a shopper's word may
# mean, best first: a catalog's own values decide which of them count (vocabulary.py).
AGE_GROUP_WORDS = {
    "newborn": ("newborn", "infant"),
    "newborns": ("newborn", "infant"),
    "baby": ("infant", "newborn", "toddler"),
    "babies": ("infant", "newborn", "toddler"),
    "infant": ("infant", "newborn"),
    "infants": ("infant", "newborn"),
    "toddler": ("toddler",),
    "toddlers": ("toddler",),
    "kid": ("kids",),
    "kids": ("kids",),
    "child": ("kids",),
    "children": ("kids",),
    "childrens": ("kids",),
    "adult": ("adult",),
    "adults": ("adult",),
}

# General shopping English: a shopper's word and the words shops name its category with. A
# target counts only when the catalog has a category level named by it, or ending in it
# ("earrings" finds a catalog's "Womens Jewellery" through "jewellery"): vocabulary.py.
CATEGORY_SYNONYMS = {
    "phone": ("smartphone", "phone", "mobile phone"),
    "cellphone": ("smartphone", "phone", "mobile phone"),
    "mobile": ("smartphone", "mobile phone"),
    "smartphone": ("smartphone", "phone"),
    "laptop": ("laptop", "notebook"),
    "notebook": ("laptop", "notebook"),
    "computer": ("computer", "laptop"),
    "perfume": ("perfume", "fragrance"),
    "fragrance": ("fragrance", "perfume"),
    "scent": ("fragrance", "perfume"),
    "cologne": ("fragrance", "perfume"),
    "couch": ("sofa", "couch"),
    "settee": ("sofa",),
    "bike": ("bicycle", "bike", "motorcycle"),
    "motorbike": ("motorcycle",),
    "car": ("car", "vehicle"),
    "shades": ("sunglass", "sunglasses", "eyewear"),
    "sunglass": ("sunglasses", "eyewear"),
    "grocery": ("grocery", "groceries", "food"),
    "food": ("food", "groceries", "grocery"),
    "veggie": ("vegetable",),
    "drink": ("beverage", "drink"),
    "makeup": ("makeup", "cosmetic", "beauty"),
    "cosmetic": ("cosmetic", "beauty", "makeup"),
    "watch": ("watch", "watches"),
    "earring": ("jewellery", "jewelry"),
    "necklace": ("jewellery", "jewelry"),
    "bracelet": ("jewellery", "jewelry"),
    "jewelry": ("jewelry", "jewellery"),
    "jewellery": ("jewellery", "jewelry"),
    "headphone": ("headphone", "audio"),
    "earbud": ("headphone", "earphone", "audio"),
    "handbag": ("bag", "handbag"),
    "purse": ("bag", "handbag"),
    "sneaker": ("sneaker", "footwear", "shoe"),
    "trainer": ("sneaker", "footwear", "shoe"),
    "shoe": ("footwear", "shoe"),
    "tee": ("t shirt", "tee"),
    "tshirt": ("t shirt",),
    "shirt": ("shirt", "t shirt"),
    "skincare": ("skin care",),
    "plant": ("plant",),
}

# General shopping English: where or how a product is used, and the other words product
# descriptions say it with ("a lovely house plant" is an indoor plant). Searched as either.
USE_SYNONYMS = {
    "indoor": ("indoors", "house", "interior"),
    "outdoor": ("outdoors", "outside", "patio"),
    "wireless": ("bluetooth", "cordless"),
    # The weather a product is for, and what descriptions say of such products.
    "winter": ("warm", "insulated", "thermal", "fleece", "wool"),
    "cold": ("warm", "insulated", "thermal", "fleece", "wool"),
    "snow": ("warm", "insulated", "thermal", "waterproof"),
    "summer": ("lightweight", "breathable", "linen"),
    "hot": ("lightweight", "breathable", "linen"),
    "rain": ("waterproof", "rainproof"),
    "wet": ("waterproof", "rainproof"),
}

# General shopping English: words for one kind of goods that catalogs title differently (the
# shopper's "headphones" are a catalog's "Earphones"). Searched as either, like USE_SYNONYMS.
KIND_SYNONYMS = {
    "headphone": ("headphones", "earphone", "earphones", "earbud", "earbuds"),
    "earphone": ("earphones", "headphone", "headphones", "earbud", "earbuds"),
    "earbud": ("earbuds", "earphone", "earphones", "headphone", "headphones"),
}

# When a product is for, never the product itself ("something warm for the winter"): searched
# only in a catalog whose products say them ("Girl Summer Dress"), left out elsewhere.
OCCASION_WORDS = frozenset(
    {
        "winter",
        "summer",
        "spring",
        "autumn",
        "season",
        "seasons",
        "weather",
        "weekend",
        "holiday",
        "holidays",
        "vacation",
        "morning",
        "mornings",
        "evening",
        "evenings",
        "night",
        "nights",
        "occasion",
        "occasions",
    }
)

# Words that say nothing about which product is wanted.
FILLER_WORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "but",
        "of",
        "for",
        "to",
        "in",
        "on",
        "at",
        "with",
        "from",
        "by",
        "about",
        "into",
        "than",
        "then",
        "as",
        "is",
        "are",
        "be",
        "was",
        "were",
        "am",
        "been",
        "being",
        "do",
        "does",
        "did",
        "have",
        "has",
        "had",
        "i",
        "me",
        "my",
        "mine",
        "we",
        "us",
        "our",
        "you",
        "your",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "them",
        "they",
        "there",
        "here",
        "what",
        "which",
        "who",
        "whom",
        "whose",
        "where",
        "when",
        "why",
        "how",
        "can",
        "could",
        "would",
        "should",
        "will",
        "shall",
        "may",
        "might",
        "must",
        "please",
        "pls",
        "plz",
        "show",
        "see",
        "find",
        "get",
        "give",
        "tell",
        "want",
        "wanted",
        "need",
        "needs",
        "looking",
        "going",
        "gonna",
        "loves",
        "likes",
        "enjoys",
        "adores",
        "look",
        "searching",
        "search",
        "buy",
        "purchase",
        "order",
        "recommend",
        "recommendation",
        "recommendations",
        "suggest",
        "suggestion",
        "suggestions",
        "something",
        "anything",
        "some",
        "any",
        "thing",
        "things",
        "item",
        "items",
        "product",
        "products",
        "stuff",
        "option",
        "options",
        "choice",
        "choices",
        "one",
        "ones",
        "kind",
        "sort",
        "type",
        "like",
        "also",
        "too",
        "just",
        "only",
        "really",
        "very",
        "good",
        "nice",
        "great",
        "maybe",
        "perhaps",
        "else",
        "other",
        "another",
        "got",
        "have",
        "offer",
        "sell",
        "selling",
        "carry",
        "available",
        "availability",
        "shop",
        "store",
        "catalog",
        "catalogue",
        "range",
        "selection",
        "let",
        "lets",
        "know",
        "think",
        "hey",
        "hi",
        "hello",
        "yes",
        "no",
        "ok",
        "okay",
        "im",
        "i'm",
        "id",
        "i'd",
        "ive",
        "i've",
        "gift",
        "gifts",
        "present",
        "idea",
        "ideas",
        "new",
        "all",
        "every",
        "per",
        "each",
        "much",
        "many",
        "more",
        "most",
        "less",
        "least",
        "few",
        "list",
        "browse",
        "check",
        "interested",
        "trying",
        "try",
        "around",
        "price",
        "priced",
        "prices",
        "cost",
        "costs",
        "costing",
        "pay",
        "spend",
        "money",
        "budget",
        "under",
        "below",
        "over",
        "above",
        "between",
        "dollars",
        "dollar",
        "euros",
        "euro",
        "eur",
        "usd",
        "bucks",
        "pounds",
        "gbp",
        "quid",
        "cheaper",
        "pricier",
        "bit",
        "little",
        "lot",
        "lots",
        "please",
        "thanks",
        "thank",
        "something's",
        "what's",
        "whats",
        "compare",
        "comparison",
        "versus",
        "vs",
        "difference",
        "differences",
        "between",
        "similar",
        "alternative",
        "alternatives",
        "instead",
        "cheaper",
        "expensive",
    ]
) | frozenset(
    [
        "now",
        "today",
        "tonight",
        "tomorrow",
        "currently",
        "right",
        "away",
        "soon",
        "asap",
        "quickly",
        "still",
        "yet",
        "ever",
        "there",
        "actually",
        "exactly",
        "kindly",
        "wondering",
        "wonder",
        "curious",
        "question",
        "quick",
    ]
)

GREETINGS = re.compile(
    r"^\s*(hi|hello|hey|heya|hiya|howdy|yo|good (morning|afternoon|evening|day)|greetings|hallo|"
    r"bonjour|hola|moin|servus)\b"
)
THANKS = re.compile(
    r"\b(thanks|thank you|thank u|thx|ty|cheers|appreciate it|much appreciated|great help|"
    r"perfect|awesome|that helps|that's helpful|helpful)\b"
)
GOODBYE = re.compile(
    r"\b(bye|goodbye|good bye|see you|see ya|have a nice day|that's all|that is all)\b"
)
HOW_ARE_YOU = re.compile(
    r"\b(how are you( doing)?|how's it going|how are things|how do you do|how have you been|"
    r"(how's|how is|how was) (your|the) (day|morning|afternoon|evening|night|week|weekend)"
    r"( going| been)?|hope (you're|you are) (well|good|fine|doing well))\b"
)
WHO_ARE_YOU = re.compile(
    r"\b(who are you|what are you|are you a (bot|robot|human|person|ai)|your name|"
    r"what can you do|how can you help|what do you do|help me|^help$|how does this work)\b"
)
# Questions a shop assistant is not there for.
OUT_OF_SCOPE = re.compile(
    r"\b(weather|forecast|news|politic\w*|election|president|prime minister|joke|poem|story|"
    r"song|lyrics|recipe|capital of|meaning of life|football score|match result|stock market|"
    r"bitcoin|crypto\w*|homework|translate|write (me )?(a|an|some)|code|programming|python|"
    r"javascript|horoscope|lottery|who won|movie|film|tv show|date today|what time is it|"
    r"time is it|tell me about yourself|(be|are you) my (girlfriend|boyfriend)|marry me|"
    r"(?<!my )(?<!my wife )(?<!she'd )(?<!he'd )love you)\b"
)

IN_STOCK = re.compile(
    r"\b(in stock|in-stock|available now|available today|ready to ship|ships today|"
    r"can i get (it|one) today|on hand|not sold out|only available|available ones|"
    r"that are available|which are available|currently available|"
    r"(sizes|colou?rs) (are |do you have |have you got )?left)\b"
)
ON_SALE = re.compile(
    r"\b(on sale|sale|discount(ed|s)?|deals?|special offers?|offers|promo(tion)?s?|reduced|"
    r"markdowns?|clearance|bargains?|price drops?|cheaper than usual|any savings)\b"
)
CHEAPEST = re.compile(
    r"\b(cheapest|cheap|lowest[- ]priced?|least expensive|most affordable|affordable|"
    r"inexpensive|budget|low[- ]cost|low price|lowest price|economical|bargain|"
    r"not (too |very |so |that )?(expensive|pricey|costly))\b"
)
# An amount the description states, asked least or most of ("low calorie", "high protein"):
# grocery descriptions give nutrition facts per 100 g ("61 kcal, protein 4 g").
FEWEST_CALORIES = re.compile(
    r"\b(low[- ]?cal(orie)?s?|low in calories|fewest calories|fewer calories|"
    r"least calories|light in calories)\b"
)
MOST_PROTEIN = re.compile(
    r"\b(high[- ]protein|high in protein|rich in protein|protein[- ]rich|lots of protein|"
    r"most protein|more protein)\b"
)
PRICIEST = re.compile(
    r"\b(most expensive|priciest|highest[- ]priced?|most premium|luxury|luxurious|premium|"
    r"high[- ]end|top[- ]end|fanciest|expensive)\b"
)
BEST = re.compile(
    r"\b(best|top|finest|greatest|recommended|most popular|popular|top[- ]rated|highest rated|"
    r"what would you recommend|which one should i)\b"
)
CHEAPER = re.compile(
    r"\b(cheaper|less expensive|lower[- ]priced|more affordable|lower price|"
    r"(?<!not )too expensive|(?<!not )too pricey|too much|over my budget|can't afford|"
    r"cannot afford|something less)\b"
)
PRICIER = re.compile(
    r"\b(more expensive|pricier|higher[- ]end|more premium|better quality|higher quality|"
    r"something better|fancier|nicer ones?)\b"
)
SHOW_MORE = re.compile(
    r"\b(show (me )?more|more (options|results|products|items|ones|of (them|those|these))|"
    r"any (more|others|other options)|other options|what else|anything else|next (ones|page)|"
    r"see more|load more|more please|keep going|others\??$|more$)\b"
)
# What to wear or use with a product: other shelves' products, not alternatives to it.
GOES_WITH = re.compile(
    r"\b((would |will |that |to )?go(es)? (well |nicely )?with( it| this| that)?|"
    r"match(es)? (with )?(it|this|that)|to match( it| this)?|pairs? (well )?with|"
    r"wear (it |this )?with|complete the (look|outfit)|style (it|this))\b"
)
SIMILAR = re.compile(
    r"\b(similar|alternatives?|something like (it|this|that)|like this one|like that one|"
    r"instead of (it|this|that)|other options like|comparable|equivalent|same kind)\b"
)
COMPARE = re.compile(
    r"\b(compare|comparison|versus|vs\.?|difference|differ|better than|which is better|"
    r"which (one )?is (cheaper|better|more expensive)|"
    r"which should i (buy|get|choose))\b"
)
DETAILS = re.compile(
    r"\b(tell me (more )?about|more (info|information|details) (about|on)|details (of|on|about)|"
    r"describe|what is (it|this|that)|what's (it|this|that)|what is the|info on|"
    r"learn more about|more about|features of|specs of|what kind of|about the|"
    r"what does (it|this) (do|look like)|is it good|is this good|worth it)\b"
)
AVAILABILITY = re.compile(
    r"\b(in stock|available|availability|stock|sold out|out of stock|have (it|one|any)|"
    r"left|pick (it )?up|pickup|collect|in store|at the store|get it today|how many|"
    r"do you have (it|this|that|any)|can i buy|can i get)\b"
)
PRICE_QUESTION = re.compile(
    r"\b(how much|price|cost|costs|on sale|discount|deal|cheaper|reduced|offer|what does it cost|"
    r"is it expensive|pricing|promotion)\b"
)
# "The size of the screen" asks a dimension; "which sizes of the sneaker" its sizes.
SIZE_QUESTION = re.compile(r"\b(sizes|size options|size(?! of the))\b")
COLOR_QUESTION = re.compile(r"\b(colou?rs?|shades?)\b")
# "does it come in ...": blanked with the questions, the value itself is read as size/colour.
COMES_IN = re.compile(r"\b(come in|comes in|available in|does it come|is there an?|have it in)\b")
MATERIAL_QUESTION = re.compile(
    r"\b(made of|made from|material|fabric|what is it made|composition)\b"
)
BRAND_QUESTION = re.compile(
    r"\b(brand|who makes|made by|manufacturer|who produces|which company|maker)\b"
)
CATEGORY_QUESTION = re.compile(r"\b(what (kind|type) of product|which category|what category)\b")
# Words that point back at a product already in the conversation.
PRONOUNS = re.compile(
    r"\b(it|this|that|this one|that one|the product|this product|this item|the item)\b"
)
PLURAL_REFERENCE = re.compile(r"\b(them|those|these|they|both|the two|ones)\b")

ORDINALS = {
    "first": 1,
    "1st": 1,
    "second": 2,
    "2nd": 2,
    "third": 3,
    "3rd": 3,
    "fourth": 4,
    "4th": 4,
    "fifth": 5,
    "5th": 5,
    "sixth": 6,
    "6th": 6,
    "last": -1,
}
NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}


# Questions about a detail the catalog may only state in the description: the pattern to
# recognise the question (its words are not searched) and the words to look for.
TOPICS: dict[str, tuple[re.Pattern[str], tuple[str, ...]]] = {
    "smell": (
        re.compile(r"\b(smells?( like)?|scents?|fragrance notes|notes|aroma)\b"),
        ("smell", "scent", "notes", "aroma", "fragrance"),
    ),
    "battery life": (
        re.compile(r"\b(battery( life)?|on a (single )?charge)\b"),
        ("battery", "hour", "charge"),
    ),
    "storage": (
        re.compile(r"\b(how much storage|storage( options)?|memory|capacity)\b"),
        ("storage", "gb", "tb", "ssd", "memory"),
    ),
    "dimensions": (
        re.compile(r"\b(dimensions?|measurements?|how big|how tall|how wide|how large)\b"),
        ("dimension", "cm", "mm", "inch", "width", "height", "depth", "size"),
    ),
    "compatibility": (
        re.compile(
            r"\b(which devices|what devices|compatible( with)?|compatibility|works? with)\b"
        ),
        (
            "compatible",
            "iphone",
            "android",
            "device",
            "usb",
            "bluetooth",
            "works with",
            "phone",
            "tablet",
            "laptop",
        ),
    ),
    "ingredients": (
        re.compile(r"\b(ingredients?|what is it made with|made with)\b"),
        ("ingredient", "made with", "contains", "organic", "natural"),
    ),
    "allergens": (
        re.compile(
            r"\b((contain|contains|any) (any )?(common )?allergens?|allergens?|allergy|gluten|lactose)\b"
        ),
        ("allergen", "nut", "gluten", "dairy", "soy", "lactose", "milk"),
    ),
    "suitability for sensitive skin": (
        re.compile(
            r"\b((suitable|good|ok|okay) for sensitive skin|sensitive skin|hypoallergenic|skin type)\b"
        ),
        ("sensitive", "skin", "gentle", "hypoallergenic", "dermatolog"),
    ),
    "warranty": (
        re.compile(r"\b(warranty|guarantee)\b"),
        ("warranty", "guarantee"),
    ),
    "capacity": (
        re.compile(r"\b(how many (people|persons|guests|seats)|(sleeps|seats) how many)\b"),
        ("person", "people", "guest", "seat", "sleeps"),
    ),
    "fit": (
        re.compile(
            r"\b(how (does|do) .{0,60}? fit|fits?|run(s)? true to size|true to size|run(s)? (small|large|big))\b"
        ),
        ("fit", "true to size", "slim", "regular fit", "loose", "stretch"),
    ),
}
# Words of a topic's question that are only said around it ("how long ... last").
TOPIC_EXTRA = {"battery life": re.compile(r"\b(how long|last)\b")}

# Facts no product feed holds (Merchant Center has no field for them): a question about one
# gets a sentence saying so and what can be answered instead, never a search for its words.
NOT_IN_FEED: dict[str, re.Pattern[str]] = {
    "ratings": re.compile(
        r"\b(ratings?|rated|reviews?|reviewed|reviewers?|stars?|testimonials?|"
        r"customer (opinions|feedback)|what (do )?(other )?(people|customers|buyers) (say|think))\b"
    ),
    "sales figures": re.compile(
        r"\b(best ?sell(ing|ers?)|sells? (the )?(most|best)|how many (have you )?sold)\b"
    ),
}

# Whole messages that only acknowledge ("ok", "cool").
ACKNOWLEDGE = re.compile(
    r"^\s*(ok|okay|k|cool|great|nice|alright|all right|sure|fine|got it|i see|yes|yeah|yep|no|"
    r"nope|hmm+|ah|oh|wow|good|perfect)[.!]*\s*$"
)
# Questions about the shop's service, which the catalog does not hold.
SHOP_POLICY = re.compile(
    r"\b(deliver(y|ies|ed)?|shipping|shipped|ship to|ships to|ship it|ship them|"
    r"how long (until|till|before) it arrives|when (will|would|does|do) (it|they|my order) arrive|"
    r"return(s| policy)?|refunds?|exchange policy|"
    r"payment( methods)?|pay with|paypal|credit card|opening hours|open(ing)? times|"
    r"when (are|do) you open|contact (you|support|customer service)|customer service|"
    r"phone number|track(ing)? my order|my order|order status|invoice|voucher|coupon code|"
    r"discount code|gift card)\b"
)
# A gift for someone: who it is for says nothing about which product.
GIFT = re.compile(r"\b(gift|present|birthday|anniversary|christmas|xmas|valentine'?s?)\b")
RECIPIENTS = {
    "wife": "female",
    "girlfriend": "female",
    "mom": "female",
    "mum": "female",
    "mother": "female",
    "sister": "female",
    "daughter": "female",
    "her": "female",
    "husband": "male",
    "boyfriend": "male",
    "dad": "male",
    "father": "male",
    "brother": "male",
    "son": "male",
    "him": "male",
    "friend": "",
    "kids": "",
    "kid": "",
    "child": "",
    "colleague": "",
    "teenager": "",
    "someone": "",
    "parents": "",
}
