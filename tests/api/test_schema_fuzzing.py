"""Schema fuzzing: schemathesis against the schema the real server serves.

Every operation of /v1/openapi.json gets one well-formed request, which must succeed, then
valid and invalid requests (hypothesis, derandomized, a bounded number of examples); half of
them are aimed at real rows (a real chatbot, chat, organization and product page) so the
success paths run too, the others carry whatever key the generator made up. Which generated
requests succeed depends on what the generator draws (its draws were not the same on every
machine), so success is asserted for the well-formed request only. Then a stateful run follows
the links from Create Chat to the chat's operations. Every response must be no 5xx, a
documented status, the documented content type and match the documented body schema.

`FUZZ_EXAMPLES` sets the examples per operation (default 25; CI's budget is minutes, not hours).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from schemathesis import DataGenerationMethod
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)

from accounts.models import Organization
from accounts.services import api_key_issue
from chats.models import Message
from knowledge.canonical import canonicalize_url
from knowledge.pdp.services import question_set_get_or_generate
from tests.conftest import Tenant, make_tenant
from tests.factories import ChatFactory, MessageFactory, ProductFactory, StoreFactory
from tests.server import LiveServer, start_server

pytestmark = pytest.mark.e2e

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "25"))
CHECKS = (
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
)
OPERATION_IDS = [
    "createChat",
    "getChat",
    "listChatMessages",
    "addMessageToChat",
    "getPdpQuestionSet",
    "getPdpQuestionSetBodyForm",
    "getUsage",
    "getMessageEvents",
    "setMessageFeedback",
    "deleteMessageFeedback",
    "createClientToken",
    "uiChat",
    "uiChatResume",
    "putCatalogProduct",
    "patchCatalogProduct",
    "batchCatalogProducts",
    "putStoreStock",
    "deleteCatalogProduct",  # last: its well-formed request deletes the real product
]
CATALOG_OPERATIONS = {operation for operation in OPERATION_IDS if "Catalog" in operation} | {
    "putStoreStock"
}
# One well-formed request per operation (`aim` fills in the real rows), sent before the fuzzing:
# whatever the generator draws, every run checks the documented success response.
VALID_REQUESTS: dict[str, dict[str, Any]] = {
    "createChat": {"body": {"chatbotId": ""}},
    "getChat": {"path_parameters": {"chatId": ""}},
    "listChatMessages": {"path_parameters": {"chatId": ""}, "query": {"page": 1, "size": 5}},
    "addMessageToChat": {
        "path_parameters": {"chatId": ""},
        "body": {"message": "Do you have running shoes?", "currentUrl": ""},
    },
    "getPdpQuestionSet": {"path_parameters": {"organizationId": ""}, "query": {"url": ""}},
    "getPdpQuestionSetBodyForm": {"body": {"organizationId": "", "url": ""}},
    "getUsage": {},
    "getMessageEvents": {"path_parameters": {"chatId": ""}},
    "setMessageFeedback": {
        "path_parameters": {"chatId": "", "messageId": ""},
        "body": {"rating": "down", "reason": "wrong_products", "comment": "Not what I asked"},
    },
    "deleteMessageFeedback": {"path_parameters": {"chatId": "", "messageId": ""}},
    "createClientToken": {"path_parameters": {"chatId": ""}, "body": {"ttlSeconds": 600}},
    "uiChat": {
        "body": {
            "id": "",
            "messages": [{"id": "m1", "role": "user", "parts": [{"type": "text", "text": "Hi"}]}],
            "trigger": "submit-message",
            "currentUrl": "",
        }
    },
    # No reply of the chat is running then: 204.
    "uiChatResume": {"path_parameters": {"chatId": ""}},
    "putCatalogProduct": {
        "path_parameters": {"itemId": ""},
        "body": {
            "title": "Fuzz Shoe",
            "link": "https://shop.example/p/fuzz-shoe",
            "price": "10.00 EUR",
            "availability": "in_stock",
        },
    },
    "patchCatalogProduct": {"path_parameters": {"itemId": ""}, "body": {"price": "9.99 EUR"}},
    "batchCatalogProducts": {
        "body": {"items": [{"method": "PATCH", "id": "", "product": {"quantity": "3"}}]}
    },
    "putStoreStock": {
        "path_parameters": {"storeCode": "", "itemId": ""},
        "body": {"availability": "in_stock", "quantity": "2"},
    },
    "deleteCatalogProduct": {"path_parameters": {"itemId": ""}},
}
HYPOTHESIS = {
    "deadline": None,
    "derandomize": True,
    "database": None,
    "suppress_health_check": list(HealthCheck),
    "phases": [Phase.explicit, Phase.generate],
}


@pytest.fixture(scope="module")
def fuzz_server(committed_database, django_db_blocker) -> Iterator[LiveServer]:
    # Its own server without rate limits: hundreds of requests from one address would
    # otherwise be refused with 429 (and use up the shared server's public budget).
    with (
        django_db_blocker.unblock(),
        # A stream ends after a second, so a request to it has a whole response to check.
        start_server(
            RATE_LIMIT_PER_KEY="off", RATE_LIMIT_PUBLIC="off", SSE_MAX_DURATION_SECONDS="1"
        ) as server,
    ):
        yield server


@pytest.fixture(scope="module")
def fuzz_schema(fuzz_server):
    schema = schemathesis.from_uri(f"{fuzz_server.url}/v1/openapi.json", base_url=fuzz_server.url)
    create_chat = schema["/v1/chats"]["POST"]
    for target in ("getChat", "listChatMessages", "addMessageToChat"):
        schema.add_link(
            source=create_chat,
            target=schema.get_operation_by_id(target),
            status_code="201",
            parameters={"path.chatId": "$response.body#/id"},
        )
    schema.add_link(
        source=schema.get_operation_by_id("addMessageToChat"),
        target=schema.get_operation_by_id("listChatMessages"),
        status_code="201",
        parameters={"path.chatId": "$response.body#/chatId"},
    )
    return schema


@dataclass
class Target:
    """Real rows the aimed requests point at."""

    tenant: Tenant
    chat_id: str
    product_url: str
    answer_id: str  # a reply of the chat, which takes feedback
    item_id: str
    store_code: str
    catalog_key: str

    @property
    def headers(self) -> dict[str, str]:
        return {"x-api-key": self.tenant.key}

    def headers_for(self, operation_id: str) -> dict[str, str]:
        """A key of the operation's scope."""
        if operation_id in CATALOG_OPERATIONS:
            return {"x-api-key": self.catalog_key}
        return self.headers

    def restore_product(self, session: requests.Session, base_url: str) -> None:
        """The real product again (a fuzzed batch or delete may have removed it)."""
        product = {"title": "Fuzz Shoe", "link": self.product_url, "price": "19.99 EUR"}
        response = session.put(
            f"{base_url}/v1/catalog/products/{self.item_id}",
            json=product,
            headers={"x-api-key": self.catalog_key},
            timeout=30,
        )
        assert response.status_code in {200, 201}, response.text

    def aim(self, case: Any, *, keep: tuple[str, ...] = ()) -> None:
        """Points a generated request at real rows, keeping everything else it generated
        (and the `keep` fields, e.g. a chatId that a link filled in)."""
        organization_id = str(self.tenant.organization.id)
        real = {
            "chatId": self.chat_id,
            "id": self.chat_id,  # the AI SDK body's chat id
            "organizationId": organization_id,
            "chatbotId": str(self.tenant.chatbot.id),
            "url": self.product_url,
            "currentUrl": self.product_url,
            "messageId": self.answer_id,
            "itemId": self.item_id,
            "storeCode": self.store_code,
        }
        for name in keep:
            real.pop(name)
        for parameters in (case.path_parameters, case.query):
            if parameters:
                for name in parameters.keys() & real.keys():
                    parameters[name] = real[name]
        if isinstance(case.body, dict):
            for name in case.body.keys() & real.keys():
                case.body[name] = real[name]
            for batch_item in case.body.get("items") or []:
                if isinstance(batch_item, dict) and "id" in batch_item:
                    batch_item["id"] = self.item_id


@pytest.fixture(scope="module")
def target(fuzz_server, django_db_blocker) -> Iterator[Target]:
    """Committed for the server to see; deleted at the end (everything hangs off the
    organization), which is much cheaper than a transactional test's flush per operation."""
    with django_db_blocker.unblock():
        tenant = make_tenant()
        try:
            chat = ChatFactory(chatbot=tenant.chatbot)
            answer = MessageFactory(chat=chat, type="answer", content="Here are two.")
            product = ProductFactory(organization=tenant.organization)
            store = StoreFactory(organization=tenant.organization)
            catalog_key = api_key_issue(organization=tenant.organization, scope="catalog").key
            # The product page has a question set, so the public GET has one to return.
            question_set_get_or_generate(
                organization=tenant.organization, url=canonicalize_url(product.url)
            )
            yield Target(
                tenant=tenant,
                chat_id=str(chat.id),
                product_url=product.url,
                answer_id=str(answer.uuid),
                item_id=product.item_id,
                store_code=store.code,
                catalog_key=catalog_key,
            )
        finally:
            Organization.objects.filter(pk=tenant.organization.pk).delete()


def test_every_operation_of_the_schema_is_fuzzed(fuzz_schema):
    served = {
        operation.ok().definition.raw["operationId"]
        for operation in fuzz_schema.get_all_operations()
    }
    assert served == set(OPERATION_IDS)


@pytest.mark.parametrize("operation_id", OPERATION_IDS)
def test_operation_answers_valid_and_invalid_requests_as_documented(
    fuzz_schema, fuzz_server, target, operation_id
):
    operation = fuzz_schema.get_operation_by_id(operation_id)
    cases = st.one_of(
        operation.as_strategy(data_generation_method=DataGenerationMethod.positive),
        operation.as_strategy(data_generation_method=DataGenerationMethod.negative),
    )
    session = requests.Session()
    if operation_id in CATALOG_OPERATIONS:
        target.restore_product(session, fuzz_server.url)
    valid = operation.make_case(**VALID_REQUESTS[operation_id])
    target.aim(valid)
    headers = target.headers_for(operation_id)
    response = valid.call(session=session, headers=headers, timeout=30)
    assert response.status_code in {200, 201, 204}, response.text
    valid.validate_response(response, checks=CHECKS)

    @given(case=cases, aimed=st.booleans())
    @settings(max_examples=EXAMPLES, **HYPOTHESIS)
    def fuzz(case, aimed: bool) -> None:
        if aimed:
            target.aim(case)
        response = case.call(session=session, headers=headers if aimed else None, timeout=30)
        case.validate_response(response, checks=CHECKS)

    fuzz()


def test_stateful_flows_from_create_chat_follow_the_links(fuzz_schema, target, django_db_blocker):
    class ChatFlows(fuzz_schema.as_state_machine()):  # type: ignore[misc]
        def before_call(self, case):
            if case.method == "POST":  # a real chatbot; a real page URL for messages
                target.aim(case, keep=("chatId",))

        def _add_results_to_targets(self, targets, results):
            # schemathesis 3.39 files each response under its link's bundle by overriding
            # hypothesis' `_add_result_to_targets`, which newer hypothesis renamed to this;
            # without it no link would ever be followed.
            for result in results:
                bundle = self._get_target_for_result(result) if result is not None else None
                if bundle is not None:
                    super()._add_results_to_targets((bundle,), [result])

        def get_call_kwargs(self, case):
            return {"headers": target.headers, "timeout": 30}

        def validate_response(self, response, case, additional_checks=()):
            case.validate_response(response, checks=CHECKS)

    ChatFlows.run(
        settings=settings(max_examples=max(5, EXAMPLES // 3), stateful_step_count=5, **HYPOTHESIS)
    )
    # The links were followed: chats created in the run got messages posted to them.
    with django_db_blocker.unblock():
        created = Message.objects.filter(
            chat__organization=target.tenant.organization, type="user"
        ).exclude(chat_id=target.chat_id)
        assert created.exists()
