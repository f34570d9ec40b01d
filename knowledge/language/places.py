"""The names a city goes by in the five served languages, folded: a shopper writing German
says "München" of a store its retailer named "Munich Sendling", a Spanish one "Londres" of
"London Soho". General language (exonyms), never one catalog's stores."""

from __future__ import annotations

import functools

# One city a line: its names, as `fold` writes them (lower case, no accents).
_CITIES: tuple[tuple[str, ...], ...] = (
    ("munich", "munchen", "monaco", "monaco di baviera"),
    ("cologne", "koln", "colonia"),
    ("nuremberg", "nurnberg", "norimberga", "nuremberga"),
    ("hamburg", "hambourg", "amburgo", "hamburgo"),
    ("berlin", "berlino"),
    ("frankfurt", "francfort", "francoforte", "francfort sur le main"),
    ("dresden", "dresde", "dresda"),
    ("vienna", "wien", "vienne", "viena"),
    ("zurich", "zurigo"),
    ("geneva", "geneve", "genf", "ginevra", "ginebra"),
    ("basel", "bale", "basilea"),
    ("brussels", "brussel", "bruxelles", "brusel", "bruselas"),
    ("antwerp", "anvers", "antwerpen", "amberes", "anversa"),
    ("the hague", "la haye", "den haag", "la haya", "l aia"),
    ("paris", "parigi"),
    ("lyon", "lyons", "lione"),
    ("marseille", "marseilles", "marsiglia", "marsella"),
    ("strasbourg", "strassburg", "strasburgo", "estrasburgo"),
    ("london", "londres", "londra"),
    ("edinburgh", "edimbourg", "edimburgo"),
    ("dublin", "dublino"),
    ("lisbon", "lisbonne", "lissabon", "lisboa", "lisbona"),
    ("seville", "sevilla", "siviglia", "sevilha"),
    ("barcelona", "barcelone", "barcellona"),
    ("milan", "milano", "mailand"),
    ("rome", "rom", "roma"),
    ("florence", "firenze", "florenz", "florencia"),
    ("venice", "venezia", "venedig", "venise", "venecia"),
    ("naples", "napoli", "neapel", "napoles"),
    ("turin", "torino"),
    ("genoa", "genova", "genes", "genua"),
    ("copenhagen", "kopenhagen", "copenhague", "copenaghen"),
    ("stockholm", "stoccolma", "estocolmo"),
    ("prague", "prag", "praha", "praga"),
    ("warsaw", "warschau", "varsovie", "varsovia", "varsavia"),
    ("athens", "athen", "athenes", "atenas", "atene"),
    ("moscow", "moskau", "moscou", "moscu", "mosca"),
    ("new york", "nueva york"),
    # Written alike in the five languages: still cities, never goods.
    ("madrid",),
    ("valencia",),
    ("bilbao",),
    ("malaga",),
    ("zaragoza",),
    ("amsterdam",),
    ("rotterdam",),
    ("utrecht",),
    ("oslo",),
    ("helsinki",),
    ("stuttgart",),
    ("dusseldorf",),
    ("leipzig",),
    ("bremen",),
    ("hannover",),
    ("dortmund",),
    ("bonn",),
    ("mainz",),
    ("salzburg",),
    ("innsbruck",),
    ("graz",),
    ("bern",),
    ("lausanne",),
    ("luxembourg",),
    ("bordeaux",),
    ("toulouse",),
    ("lille",),
    ("nantes",),
    ("rennes",),
    ("montpellier",),
    ("grenoble",),
    ("bologna",),
    ("verona",),
    ("palermo",),
    ("bari",),
    ("pisa",),
)


@functools.cache
def _names() -> dict[str, frozenset[str]]:
    return {name: frozenset(city) for city in _CITIES for name in city}


def city_names(name: str) -> frozenset[str]:
    """The names the city `name` (folded) goes by, itself included; empty for another word."""
    return _names().get(name, frozenset())


def cities_in(text: str) -> list[str]:
    """The cities a folded text names ("store munich sendling": "munich"), as it names them."""
    words = text.split()
    return [
        name
        for size in (1, 2, 3, 4)
        for start in range(len(words) - size + 1)
        if (name := " ".join(words[start : start + size])) in _names()
    ]
