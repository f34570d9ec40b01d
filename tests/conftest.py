"""Fixtures shared by every feature's tests: API clients, keys and a real gunicorn server."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from django.conf import settings
from django.test import Client
from rest_framework.test import APIClient

from accounts.models import ApiKey, Chatbot, Organization
from accounts.roles import OPERATORS, SUPPORT
from accounts.services import api_key_issue
from chats.events import event_writer_close
from chats.stream.process_hub import shutdown_hub
from tests.factories import ChatbotFactory, OrganizationFactory
from tests.server import LiveServer, start_server

# Read before pytest-django points the settings at the test database.
CONFIGURED_DATABASE = settings.DATABASES["default"]["NAME"]


def pytest_collection_modifyitems(config, items):
    """Tests that restart shared services run only when asked (CI runs them in a step of
    their own, since they disturb every other test using that service meanwhile)."""
    if os.environ.get("RUN_DISRUPTIVE") == "1":
        return
    skip = pytest.mark.skip(reason="disruptive: set RUN_DISRUPTIVE=1 to run")
    for item in items:
        if "disruptive" in item.keywords:
            item.add_marker(skip)


@dataclass
class Tenant:
    """An organization with a chatbot and an authenticated client, as an integrator has."""

    organization: Organization
    chatbot: Chatbot
    api_key: ApiKey
    key: str
    client: APIClient


def make_tenant(**organization_fields) -> Tenant:
    organization = OrganizationFactory(**organization_fields)
    chatbot = ChatbotFactory(organization=organization)
    issued = api_key_issue(organization=organization)
    client = APIClient()
    client.credentials(HTTP_X_API_KEY=issued.key)
    return Tenant(organization, chatbot, issued.api_key, issued.key, client)


@pytest.fixture
def tenant(db) -> Tenant:
    return make_tenant()


@pytest.fixture
def other_tenant(db) -> Tenant:
    return make_tenant()


@pytest.fixture
def anonymous() -> APIClient:
    return APIClient()


def staff_client(group_name: str | None) -> Client:
    """A logged-in admin console client: a superuser (None) or a member of a role group."""
    from django.contrib.auth.models import Group, User

    username = (group_name or "root").lower()
    # Signed in by force_login, which needs no password: an unusable one spares each test a
    # password hash (0.4 s of CPU on a slow machine). Sign-in with a password is tested with
    # real ones (tests/accounts/test_admin_sign_in.py, tests/console/staff.py).
    if group_name is None:
        user = User.objects.create_superuser(username, f"{username}@example.com", None)
    else:
        user = User.objects.create_user(username, f"{username}@example.com", None, is_staff=True)
        user.groups.add(Group.objects.get(name=group_name))
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def superuser_client(db) -> Client:
    return staff_client(None)


@pytest.fixture
def operator_client(db) -> Client:
    return staff_client(OPERATORS)


@pytest.fixture
def support_client(db) -> Client:
    return staff_client(SUPPORT)


@pytest.fixture(autouse=True)
def _event_writer_connection_closed() -> Iterator[None]:
    """The process's event writer (chats/event_writer.py) keeps a connection of its own:
    closed after each test, so that no connection keeps the test database from being dropped."""
    yield
    event_writer_close()


def _process_connections_closed() -> None:
    """Closes what this process holds open on the test database besides Django's own
    connections, before the database is dropped at the end of the session: the event
    writer's connection and the stream listener's (the hub of in-process stream tests)."""
    event_writer_close()
    shutdown_hub(wait_seconds=settings.SSE_POLL_SECONDS + 5)


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup) -> Iterator[None]:
    """pytest-django's test database, with this process's own connections to it closed
    before it is dropped (a database still in use is not dropped, and pytest warns)."""
    yield
    _process_connections_closed()


@pytest.fixture(scope="session")
def committed_database(django_db_setup, django_db_blocker) -> Iterator[None]:
    """The test database, for module fixtures that commit rows for a server process to read.

    pytest-django creates it only when some selected test is marked `django_db` or uses `db`;
    a selection of tests that use only committed rows would otherwise run on the configured
    database. Then it is created here, and destroyed at the end of the session.
    """
    from django.test.utils import setup_databases, teardown_databases

    if settings.DATABASES["default"]["NAME"] != CONFIGURED_DATABASE:  # pytest-django made it
        yield
        return
    with django_db_blocker.unblock():
        created = setup_databases(verbosity=0, interactive=False, aliases={"default"})
    try:
        yield
    finally:
        _process_connections_closed()
        with django_db_blocker.unblock():
            teardown_databases(created, verbosity=0)


@pytest.fixture(scope="session")
def live_server_process(committed_database, django_db_blocker) -> Iterator[LiveServer]:
    """One real gunicorn server with gevent workers for the session, on the test database.

    Tests that use it need `transactional_db` so the server sees their committed rows.
    """
    with django_db_blocker.unblock(), start_server() as server:
        yield server


@pytest.fixture
def live(live_server_process, transactional_db) -> LiveServer:
    return live_server_process
