"""Admin console: API keys shown once, revocation, and what each role may see and do."""

from __future__ import annotations

import json
import re

import pytest

from accounts.keys import hash_key
from accounts.models import ApiKey, Organization
from tests.factories import ChatFactory, MessageFactory, OrganizationFactory

pytestmark = pytest.mark.django_db


def test_creating_a_key_shows_it_once_with_a_warning(operator_client, tenant):
    response = operator_client.post(
        "/admin/accounts/apikey/add/",
        {"organization": tenant.organization.pk, "environment": "staging", "name": "shop backend"},
    )

    assert response.status_code == 200
    page = response.content.decode()
    key = re.search(r'id="full-api-key"[^>]*>([^<]+)<', page).group(1)
    assert "will not be shown again" in page
    api_key = ApiKey.objects.get(name="shop backend")
    assert api_key.hashed_key == hash_key(key)
    assert key.startswith(api_key.prefix)
    # The key now works against the API ...
    assert tenant.client.get("/v1/chats/x", HTTP_X_API_KEY=key).status_code == 404
    # ... and no admin page shows it again.
    for url in ("/admin/accounts/apikey/", f"/admin/accounts/apikey/{api_key.pk}/change/"):
        assert key not in operator_client.get(url).content.decode()


def test_key_list_shows_its_columns(operator_client, tenant):
    page = operator_client.get("/admin/accounts/apikey/").content.decode()
    for column in (
        "Prefix",
        "Environment",
        "Name",
        "Created at",
        "Last used at",
        "Expires at",
        "Status",
    ):
        assert column in page
    assert tenant.api_key.prefix in page


def test_revoke_action_asks_first_then_refuses_the_key_for_good(operator_client, tenant):
    # Given the action chosen on the list: a confirmation page, nothing revoked yet
    chosen = {"action": "revoke_selected", "_selected_action": [tenant.api_key.pk]}
    confirm = operator_client.post("/admin/accounts/apikey/", chosen)
    assert confirm.status_code == 200
    assert "Yes, revoke" in confirm.content.decode()
    assert tenant.api_key.prefix in confirm.content.decode()
    tenant.api_key.refresh_from_db()
    assert tenant.api_key.revoked_at is None
    assert tenant.client.get("/v1/chats/x").status_code == 404

    # When confirmed
    response = operator_client.post(
        "/admin/accounts/apikey/", {**chosen, "post": "yes"}, follow=True
    )

    # Then the key is refused, and the list says so in words
    assert "Revoked 1 API key" in response.content.decode()
    assert tenant.client.get("/v1/chats/x").status_code == 401
    assert '<span class="key-status key-revoked">Revoked</span>' in response.content.decode()

    # A revoked key's page is read-only: a change cannot bring it back.
    change_url = f"/admin/accounts/apikey/{tenant.api_key.pk}/change/"
    operator_client.post(change_url, {"name": "again", "expires_at": ""})
    tenant.api_key.refresh_from_db()
    assert tenant.api_key.revoked_at is not None
    assert 'name="name"' not in operator_client.get(change_url).content.decode()


def test_a_key_page_revokes_after_confirmation_and_never_offers_delete(superuser_client, tenant):
    change_url = f"/admin/accounts/apikey/{tenant.api_key.pk}/change/"
    revoke_url = f"/admin/accounts/apikey/{tenant.api_key.pk}/revoke/"
    page = superuser_client.get(change_url).content.decode()
    assert revoke_url in page and "deletelink" not in page

    assert "Yes, revoke" in superuser_client.get(revoke_url).content.decode()
    assert superuser_client.post(revoke_url, {"post": "yes"}).status_code == 302
    tenant.api_key.refresh_from_db()
    assert tenant.api_key.revoked_at is not None

    page = superuser_client.get(change_url).content.decode()
    assert revoke_url not in page and "deletelink" not in page
    delete_url = f"/admin/accounts/apikey/{tenant.api_key.pk}/delete/"
    assert superuser_client.post(delete_url, {"post": "yes"}).status_code == 403
    listing = superuser_client.get("/admin/accounts/apikey/").content.decode()
    assert "delete_selected" not in listing
    assert ApiKey.objects.filter(pk=tenant.api_key.pk).exists()


def test_key_status_filter_reads_active_revoked_expired(operator_client, tenant):
    from django.utils import timezone

    from accounts.services import api_key_issue, api_key_revoke

    revoked = api_key_issue(organization=tenant.organization, name="old").api_key
    api_key_revoke(prefix=revoked.prefix)
    expired = api_key_issue(organization=tenant.organization, name="ended").api_key
    ApiKey.objects.filter(pk=expired.pk).update(expires_at=timezone.now())

    def listed(status: str) -> set[str]:
        page = operator_client.get("/admin/accounts/apikey/", {"status": status})
        return {k.prefix for k in ApiKey.objects.all() if k.prefix in page.content.decode()}

    assert listed("active") == {tenant.api_key.prefix}
    assert listed("revoked") == {revoked.prefix}
    assert listed("expired") == {expired.prefix}
    assert "By status" in operator_client.get("/admin/accounts/apikey/").content.decode()


def test_organization_page_links_to_its_keys_chatbots_catalog_usage_and_chats(
    operator_client, tenant
):
    page = operator_client.get(
        f"/admin/accounts/organization/{tenant.organization.pk}/change/"
    ).content.decode()
    filtered = f"?organization__id__exact={tenant.organization.pk}"
    for listing in (
        "/admin/accounts/apikey/",
        "/admin/accounts/chatbot/",
        "/admin/knowledge/product/",
        "/admin/chats/chat/",
    ):
        assert f'href="{listing}{filtered}"' in page
    assert f"/admin/accounts/organization/{tenant.organization.pk}/usage/" in page
    # The greeting is edited on the chatbot's own page, not in the organization's table.
    assert "chatbots-0-greeting" not in page


def test_console_names_itself_and_view_site_leads_to_the_api_reference(operator_client):
    page = operator_client.get("/admin/").content.decode()
    assert "Shopping assistant console" in page and "Django administration" not in page
    assert 'href="/docs/"' in page
    assert operator_client.get("/docs/").status_code == 200


def test_operator_manages_organizations_and_quotas(operator_client):
    response = operator_client.post(
        "/admin/accounts/organization/add/",
        {
            "name": "Shoe Shop",
            "language": "fr",
            "monthly_quota": "500",
            "allowed_origins": "[]",
            "chatbots-TOTAL_FORMS": "0",
            "chatbots-INITIAL_FORMS": "0",
        },
    )
    assert response.status_code == 302
    organization = OrganizationFactory._meta.model.objects.get(name="Shoe Shop")
    assert organization.monthly_quota == 500
    assert organization.language == "fr"  # its catalog's language (search, replies)


@pytest.mark.parametrize(
    "url",
    ["/admin/accounts/apikey/", "/admin/accounts/organization/", "/admin/accounts/chatbot/"],
)
def test_support_cannot_see_keys_or_quotas(support_client, tenant, url):
    assert support_client.get(url).status_code == 403


def test_support_reads_chats_but_cannot_change_them(support_client, tenant):
    chat = ChatFactory(chatbot=tenant.chatbot)
    MessageFactory(chat=chat, content="Do you have running shoes?")

    assert support_client.get("/admin/chats/chat/").status_code == 200
    page = support_client.get(f"/admin/chats/chat/{chat.pk}/change/").content.decode()
    assert "Do you have running shoes?" in page
    assert (
        support_client.post(f"/admin/chats/chat/{chat.pk}/delete/", {"post": "yes"}).status_code
        == 403
    )
    index = support_client.get("/admin/").content.decode()
    assert "API keys" not in index and "Organizations" not in index


def test_admin_requires_login(client):
    response = client.get("/admin/chats/chat/")
    assert response.status_code == 302
    assert "/admin/login/" in response["Location"]


def organization_form(**fields) -> dict:
    return {
        "name": "Origin Shop",
        "language": "en",
        "monthly_quota": "",
        "chatbots-TOTAL_FORMS": "0",
        "chatbots-INITIAL_FORMS": "0",
        **fields,
    }


@pytest.mark.parametrize(
    "origins",
    [
        '"https://shop.example"',  # a string, not a list
        '{"a": 1}',
        "[1, 2]",
        '["https://shop.example/products"]',  # a path: no browser sends that as Origin
        '["shop.example"]',
        '["ftp://shop.example"]',
    ],
)
def test_allowed_origins_that_no_browser_would_match_are_refused(operator_client, origins):
    response = operator_client.post(
        "/admin/accounts/organization/add/", organization_form(allowed_origins=origins)
    )
    assert response.status_code == 200
    assert "errorlist" in response.content.decode()
    assert not Organization.objects.filter(name="Origin Shop").exists()


@pytest.mark.parametrize(
    ("origins", "stored"),
    [
        ("null", []),  # was a 500: the column is NOT NULL
        ("", []),
        ('["https://shop.example", "http://localhost:8080/", "*"]', None),
    ],
)
def test_allowed_origins_lists_and_nothing_are_saved(operator_client, origins, stored):
    response = operator_client.post(
        "/admin/accounts/organization/add/", organization_form(allowed_origins=origins)
    )
    assert response.status_code == 302
    expected = stored if stored is not None else json.loads(origins)
    assert Organization.objects.get(name="Origin Shop").allowed_origins == expected


def test_a_new_key_cannot_be_issued_already_expired(operator_client, tenant):
    response = operator_client.post(
        "/admin/accounts/apikey/add/",
        {
            "organization": tenant.organization.pk,
            "environment": "staging",
            "name": "old",
            "expires_at_0": "2020-01-01",
            "expires_at_1": "00:00:00",
        },
    )
    assert response.status_code == 200
    assert "must expire in the future" in response.content.decode()
    assert not ApiKey.objects.filter(name="old").exists()


def test_organizations_and_chatbots_are_not_offered_for_deletion(superuser_client, tenant):
    organization, chatbot = tenant.organization, tenant.chatbot
    for url in (
        f"/admin/accounts/organization/{organization.pk}/delete/",
        f"/admin/accounts/chatbot/{chatbot.pk}/delete/",
    ):
        assert superuser_client.get(url).status_code == 403
    page = superuser_client.get(f"/admin/accounts/organization/{organization.pk}/change/")
    assert "deletelink" not in page.content.decode()
    assert Organization.objects.filter(pk=organization.pk).exists()


def test_the_chatbot_add_page_shows_no_id_it_would_not_keep(operator_client, tenant):
    page = operator_client.get("/admin/accounts/chatbot/add/").content.decode()
    assert "field-id" not in page


def test_sending_the_add_form_again_issues_no_second_key(operator_client, tenant):
    form = operator_client.get("/admin/accounts/apikey/add/").content.decode()
    token = re.search(r'name="issue_token" value="([0-9a-f]{32})"', form).group(1)
    fields = {
        "organization": tenant.organization.pk,
        "environment": "staging",
        "name": "reloaded",
        "issue_token": token,
    }
    first = operator_client.post("/admin/accounts/apikey/add/", fields).content.decode()
    # A reload of the page that showed the key sends the same form again
    again = operator_client.post("/admin/accounts/apikey/add/", fields).content.decode()

    assert 'id="full-api-key"' in first
    assert "already sent" in again and 'id="full-api-key"' not in again
    issued = ApiKey.objects.get(name="reloaded")
    assert issued.prefix in again
    # A new form (a new token) issues a new key
    fresh = operator_client.get("/admin/accounts/apikey/add/").content.decode()
    fields["issue_token"] = re.search(r'name="issue_token" value="([0-9a-f]{32})"', fresh).group(1)
    operator_client.post("/admin/accounts/apikey/add/", fields)
    assert ApiKey.objects.filter(name="reloaded").count() == 2


def test_role_groups_hold_exactly_their_permissions(db):
    from django.contrib.auth.models import Group

    from accounts.roles import OPERATOR_PERMISSIONS, OPERATORS, SUPPORT, SUPPORT_PERMISSIONS

    for name, grants in ((OPERATORS, OPERATOR_PERMISSIONS), (SUPPORT, SUPPORT_PERMISSIONS)):
        wanted = {
            f"{app}.{action}_{model}"
            for app, models in grants.items()
            for model, actions in models.items()
            for action in actions
        }
        held = {
            f"{p.content_type.app_label}.{p.codename}"
            for p in Group.objects.get(name=name).permissions.select_related("content_type")
        }
        assert held == wanted, name
    assert "chats.delete_chat" not in {
        f"{app}.{action}_{model}"
        for app, models in SUPPORT_PERMISSIONS.items()
        for model, actions in models.items()
        for action in actions
    }


def test_operators_erase_but_never_delete_a_chat_from_its_page(operator_client, tenant):
    chat = ChatFactory(chatbot=tenant.chatbot)
    page = operator_client.get(f"/admin/chats/chat/{chat.pk}/change/").content.decode()
    assert "deletelink" not in page
    response = operator_client.post(f"/admin/chats/chat/{chat.pk}/delete/", {"post": "yes"})
    assert response.status_code == 403
    assert "erase_users" in operator_client.get("/admin/chats/chat/").content.decode()
