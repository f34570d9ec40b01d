"""What each key scope may call: chat keys the chat operations, catalog keys the catalog API.

Checked after authentication, as DRF checks permissions: the DRF views name their scope in
`permission_classes` (the chat views by the project default), the plain views call
`scope_require` right after reading their key.
"""

from __future__ import annotations

from rest_framework import exceptions
from rest_framework.permissions import BasePermission
from rest_framework.request import Request

from accounts.models import ApiKey, Scope

SCOPE_FORBIDDEN = "This key's scope does not allow this operation"


def scope_require(api_key: ApiKey, scope: str) -> None:
    """Raises PermissionDenied (403) unless the key was issued for `scope`."""
    if api_key.scope != scope:
        raise exceptions.PermissionDenied(SCOPE_FORBIDDEN)


class _ScopePermission(BasePermission):
    scope: str = ""
    message = SCOPE_FORBIDDEN

    def has_permission(self, request: Request, view) -> bool:
        api_key = request.auth
        if not isinstance(api_key, ApiKey):
            # No key: DRF answers 401 (NotAuthenticated), as IsAuthenticated makes it.
            return False
        return api_key.scope == self.scope


class ChatScope(_ScopePermission):
    """The chat operations (chats, messages, the event stream): `chat` keys."""

    scope = Scope.CHAT


class CatalogScope(_ScopePermission):
    """The catalog API: `catalog` keys."""

    scope = Scope.CATALOG
