"""The real server with production settings behind a TLS proxy.

HTTPS redirect (health probes exempt), HSTS and the other security headers on API, admin and
error responses, the admin only behind a login with CSRF enforced, session and CSRF cookies
`Secure` and the session cookie `HttpOnly`. The proxy is played by sending
`X-Forwarded-Proto: https`, as a TLS-terminating proxy does (BEHIND_TLS_PROXY=1).
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterator
from http.cookies import SimpleCookie

import httpx
import pytest
from django.contrib.auth.models import User

from accounts.models import ApiKey
from tests.server import LiveServer, start_server

pytestmark = pytest.mark.e2e

PRODUCTION = {
    "DEBUG": "0",
    "SECRET_KEY": secrets.token_urlsafe(50),
    "SECURE_COOKIES": "",  # unset: production's default (secure)
    "SECURE_HSTS_SECONDS": "",
    "BEHIND_TLS_PROXY": "1",
    "ALLOWED_HOSTS": "127.0.0.1",
}


@pytest.fixture(scope="module")
def production(committed_database, django_db_blocker) -> Iterator[LiveServer]:
    with django_db_blocker.unblock(), start_server(**PRODUCTION) as server:
        yield server


def https_client(server: LiveServer) -> httpx.Client:
    origin = "https://" + server.url.removeprefix("http://")
    return server.client(
        headers={"X-Forwarded-Proto": "https", "Origin": origin, "Referer": origin + "/admin/"},
        follow_redirects=False,
    )


def cookies_set(response: httpx.Response) -> dict[str, str]:
    """name -> the whole Set-Cookie line, lowercased (attributes included)."""
    found = {}
    for line in response.headers.get_list("set-cookie"):
        name = next(iter(SimpleCookie(line)))
        found[name] = line.lower()
    return found


def cookie_header(*responses: httpx.Response) -> str:
    # By hand: httpx would not send Secure cookies back over the test's plain-HTTP socket.
    jar: dict[str, str] = {}
    for response in responses:
        for line in response.headers.get_list("set-cookie"):
            for name, morsel in SimpleCookie(line).items():
                jar[name] = morsel.value
    return "; ".join(f"{name}={value}" for name, value in jar.items())


def csrf_token(page: str) -> str:
    return re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)


def test_plain_http_is_redirected_to_https_but_health_probes_are_not(production):
    with production.client(follow_redirects=False) as client:
        response = client.get("/v1/chats/x")
        assert response.status_code == 301
        assert response.headers["location"].startswith("https://127.0.0.1:")
        assert client.get("/healthz").status_code == 200
        assert client.get("/readyz").status_code == 200


@pytest.mark.parametrize("path", ["/v1/chats/x", "/v1/nope", "/admin/login/", "/healthz"])
def test_security_headers_over_https(production, path):
    with https_client(production) as client:
        response = client.get(path)
    assert response.headers["strict-transport-security"] == (
        "max-age=31536000; includeSubDomains; preload"
    )
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["referrer-policy"] == "same-origin"
    assert response.headers["x-frame-options"] == "DENY"
    if path.startswith("/v1/"):
        # Errors are the documented JSON, never Django's debug page.
        assert response.headers["content-type"].startswith("application/json")
        assert set(response.json()) == {"message"}


def test_admin_is_behind_a_login_with_csrf_and_secure_cookies(production, transactional_db):
    User.objects.create_superuser("root", "root@example.com", "pw-root-1")
    with https_client(production) as client:
        # Only behind the login
        for path in ("/admin/", "/admin/accounts/apikey/", "/admin/chats/chat/"):
            response = client.get(path)
            assert response.status_code == 302 and "/admin/login/" in response.headers["location"]

        # The login form sets a Secure CSRF cookie; a POST without the token is refused
        form = client.get("/admin/login/")
        assert "secure" in cookies_set(form)["csrftoken"]
        credentials = {"username": "root", "password": "pw-root-1"}
        without = client.post(
            "/admin/login/", data=credentials, headers={"Cookie": cookie_header(form)}
        )
        assert without.status_code == 403 and "sessionid" not in cookies_set(without)

        # With the token the login works and the session cookie is Secure and HttpOnly
        login = client.post(
            "/admin/login/",
            data={**credentials, "csrfmiddlewaretoken": csrf_token(form.text)},
            headers={"Cookie": cookie_header(form)},
        )
        assert login.status_code == 302
        session = cookies_set(login)["sessionid"]
        assert "secure" in session and "httponly" in session and "samesite=lax" in session

        # A logged-in POST without the CSRF token changes nothing
        logged_in = {"Cookie": cookie_header(form, login)}
        assert client.get("/admin/", headers=logged_in).status_code == 200
        forged = client.post(
            "/admin/accounts/apikey/add/",
            data={"organization": "x", "environment": "staging", "name": "forged"},
            headers=logged_in,
        )
        assert forged.status_code == 403
    assert not ApiKey.objects.filter(name="forged").exists()
