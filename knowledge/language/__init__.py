"""The shopper's language: which one a message is in (`detect`), its shopping phrases read as
the engine's canonical words (`reading`, data per language in `data/`), and amounts written as
that language writes them (`formatting`).

The languages the assistant serves are `LANGUAGES`; replies are translated with Django's
catalogs (`locale/<code>/LC_MESSAGES/django.po`).
"""

from __future__ import annotations

LANGUAGES = ("en", "fr", "de", "es", "it")
LANGUAGE_NAMES = {
    "en": "English",
    "fr": "French",
    "de": "German",
    "es": "Spanish",
    "it": "Italian",
}
# The languages whose noun phrases start with the noun ("Yaourt nature", "Zapatillas de
# running"); English and German end with it ("Compact Digital Camera", "Wasserdichte Jacke").
NOUN_FIRST = frozenset({"fr", "es", "it"})
