"""The demo shop `make run` serves at /demo/ (setting `DEMO_SHOP`, off unless make run turns it
on): a list and product pages of the demo catalog, each with the chat widget, and the widget's
session endpoint, which a real shop writes in its own backend (examples/widget-session/).

The session endpoint mints client tokens for anyone who asks, so it must never be on in
production: it exists only when `DEMO_SHOP` is on.
"""

from __future__ import annotations

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_POST

from accounts.client_tokens import client_token_mint
from accounts.models import ApiKey, Chatbot, Organization
from chats.models import Chat
from chats.serializers import iso_timestamp
from chats.services import chat_create
from knowledge.demo import DEMO_CHATBOT, DEMO_ORGANIZATION
from knowledge.models import Product

NOT_SEEDED = "The demo shop is not set up: run `make run` (or `python manage.py seed_demo`)."
SESSION_CHAT = "demo_chat_id"


def demo_organization() -> Organization:
    organization = Organization.objects.filter(name=DEMO_ORGANIZATION).first()
    if organization is None:
        raise Http404(NOT_SEEDED)
    return organization


def demo_products(organization: Organization) -> list[Product]:
    """One product per family (variants share `item_group_id`), by title."""
    seen: set[str] = set()
    products = []
    for product in Product.objects.filter(organization=organization).order_by("title", "item_id"):
        family = product.item_group_id or product.item_id
        if family not in seen:
            seen.add(family)
            products.append(product)
    return products


@require_GET
def shop_list(request: HttpRequest) -> HttpResponse:
    organization = demo_organization()
    return render(request, "storefront/list.html", {"products": demo_products(organization)})


@require_GET
def shop_product(request: HttpRequest, item_id: str) -> HttpResponse:
    organization = demo_organization()
    product = Product.objects.filter(organization=organization, item_id=item_id).first()
    if product is None:
        raise Http404("No such product")
    variants = (
        Product.objects.filter(organization=organization, item_group_id=product.item_group_id)
        .exclude(pk=product.pk)
        .order_by("item_id")
        if product.item_group_id
        else []
    )
    return render(request, "storefront/product.html", {"product": product, "variants": variants})


@csrf_exempt  # called by the widget's fetch; it only creates a demo chat
@require_POST
def shop_session(request: HttpRequest) -> HttpResponse:
    """{chatId, token, expiresAt} for the widget: the visitor's chat (kept in their session),
    with a new client token minted by the demo organization's newest key."""
    organization = demo_organization()
    api_key = (
        ApiKey.objects.filter(
            organization=organization,
            revoked_at__isnull=True,
            environment=settings.ASSISTANT_ENVIRONMENT,
        )
        .order_by("-created_at")
        .first()
    )
    chatbot = Chatbot.objects.filter(organization=organization, name=DEMO_CHATBOT).first()
    if api_key is None or chatbot is None:
        return JsonResponse({"message": NOT_SEEDED}, status=503)
    known = request.session.get(SESSION_CHAT)
    chat = Chat.objects.filter(pk=known, organization=organization).first() if known else None
    if chat is None:
        chat = chat_create(organization=organization, chatbot_id=chatbot.id, user_id=None)
        request.session[SESSION_CHAT] = str(chat.id)
    minted = client_token_mint(
        api_key=api_key, chat_id=chat.id, ttl_seconds=settings.CLIENT_TOKEN_SECONDS
    )
    return JsonResponse(
        {
            "chatId": str(chat.id),
            "token": minted.token,
            "expiresAt": iso_timestamp(minted.expires_at),
        }
    )
