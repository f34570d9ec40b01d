"""factory-boy factories for the models every feature's tests need."""

from __future__ import annotations

from decimal import Decimal

import factory

from accounts.models import Chatbot, Organization
from chats.models import Chat, Message, MessageType
from knowledge.models import Product, Store


class OrganizationFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Organization

    name = factory.Sequence(lambda n: f"Organization {n}")


class ChatbotFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Chatbot

    organization = factory.SubFactory(OrganizationFactory)
    name = factory.Sequence(lambda n: f"Chatbot {n}")


class ChatFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Chat

    chatbot = factory.SubFactory(ChatbotFactory)
    organization = factory.SelfAttribute("chatbot.organization")


class MessageFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Message

    chat = factory.SubFactory(ChatFactory)
    type = MessageType.USER
    content = factory.Sequence(lambda n: f"message {n}")


class StoreFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Store

    organization = factory.SubFactory(OrganizationFactory)
    code = factory.Sequence(lambda n: f"store-{n}")
    name = factory.Sequence(lambda n: f"Store {n}")


class ProductFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Product

    organization = factory.SubFactory(OrganizationFactory)
    item_id = factory.Sequence(lambda n: f"SKU-{n:05d}")
    title = factory.Sequence(lambda n: f"Product {n}")
    brand = "Acme"
    url = factory.Sequence(lambda n: f"https://shop.example/products/{n}")
    image_url = factory.Sequence(lambda n: f"https://cdn.shop.example/{n}.jpg")
    price = Decimal("19.99")
    currency = "EUR"
