from django.apps import AppConfig


class StorefrontConfig(AppConfig):
    """What a shop's own pages use: the chat widget (static/shop-assistant/) and the demo
    shop `make run` serves at /demo/."""

    name = "storefront"
    verbose_name = "Storefront"
