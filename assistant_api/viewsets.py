"""The base of the API's viewsets: DRF's request cycle, with the work that comes out the same
on every request done once.

On every request DRF makes new instances of the view's parser, renderer, authentication,
permission, throttle and negotiation classes, and works the `Allow` header out from the
view's methods. Ours keep no state between requests (each reads what it needs from the
request it is given), so a view class makes them once; `Allow` is worked out once per route.
On a cached GET chat that was a fifth of the view's time in DRF.
"""

from __future__ import annotations

import functools
from typing import Any

from rest_framework import viewsets

_made: dict[tuple[type, str], Any] = {}


def _once(view_class: type, part: str, classes: Any) -> list[Any]:
    """Instances of `classes`, made at the first request of `view_class`."""
    made = _made.get((view_class, part))
    if made is None:
        made = _made[(view_class, part)] = [cls() for cls in classes]
    return made


@functools.cache
def _allow(view_class: type, methods: frozenset[str]) -> str:
    """DRF's `Allow`: the route's methods and OPTIONS, in `http_method_names` order."""
    return ", ".join(
        name.upper()
        for name in view_class.http_method_names  # type: ignore[attr-defined]
        if name in methods or hasattr(view_class, name)
    )


class ApiViewSet(viewsets.GenericViewSet):
    def get_parsers(self) -> list[Any]:
        return _once(type(self), "parsers", self.parser_classes)

    def get_renderers(self) -> list[Any]:
        return _once(type(self), "renderers", self.renderer_classes)

    def get_authenticators(self) -> list[Any]:
        return _once(type(self), "authenticators", self.authentication_classes)

    def get_permissions(self) -> list[Any]:
        return _once(type(self), "permissions", self.permission_classes)

    def get_throttles(self) -> list[Any]:
        return _once(type(self), "throttles", self.throttle_classes)

    def get_content_negotiator(self) -> Any:
        return _once(type(self), "negotiator", [self.content_negotiation_class])[0]

    @property
    def default_response_headers(self) -> dict[str, str]:
        # A new dict each time: DRF takes `Vary` out of it. One renderer: no `Vary: Accept`.
        return {"Allow": _allow(type(self), frozenset(self.action_map))}
