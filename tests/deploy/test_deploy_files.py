"""deploy/compose.yaml read as Docker Compose would read it: Docker cannot run here, so these
checks keep it consistent with the Dockerfile, the nginx configuration the multi-instance tests
run (tests/cluster.py) and the README's deployment rules."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"


def compose() -> dict:
    return yaml.safe_load((DEPLOY / "compose.yaml").read_text())


def app_services(services: dict) -> dict[str, dict]:
    return {
        name: service
        for name, service in services.items()
        if "build" in service and service.get("command") is None
    }


def test_the_services_of_a_multi_instance_deployment():
    services = compose()["services"]

    apps = app_services(services)
    assert len(apps) >= 2
    assert {"postgres", "redis", "migrate", "nginx"} <= set(services)
    for service in [*apps.values(), services["migrate"]]:
        build = service["build"]
        assert (DEPLOY / build["context"] / build["dockerfile"]).resolve() == ROOT / "Dockerfile"


def test_redis_evicts_only_expiring_keys_within_its_memory():
    command = compose()["services"]["redis"]["command"]
    assert "--maxmemory" in command
    assert command[command.index("--maxmemory-policy") + 1] == "volatile-lru"


def test_migrations_run_once_before_the_instances():
    services = compose()["services"]
    migrate = services["migrate"]
    assert migrate["command"] == ["python", "manage.py", "migrate", "--noinput"]
    assert migrate["restart"] == "no"
    assert migrate["depends_on"]["postgres"]["condition"] == "service_healthy"
    for app in app_services(services).values():
        assert app["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
        assert app["environment"]["DATABASE_URL"] == migrate["environment"]["DATABASE_URL"]


def test_nginx_sends_to_every_instance_and_is_the_trusted_proxy():
    services = compose()["services"]
    nginx = services["nginx"]
    mounts = dict(volume.rsplit(":", 1)[0].split(":", 1) for volume in nginx["volumes"])
    for source in mounts:
        assert (DEPLOY / source).is_file(), source
    # The file tests/cluster.py runs, where the image's nginx.conf includes it.
    assert mounts["./nginx/assistant.conf"] == "/etc/nginx/conf.d/default.conf"
    site = (DEPLOY / "nginx" / "assistant.conf").read_text()
    upstream = re.search(r"upstream assistant_app \{(.*?)\n\}", site, re.S)
    assert upstream is not None
    port = re.search(r"^EXPOSE (\d+)$", (ROOT / "Dockerfile").read_text(), re.M)
    assert port is not None
    servers = re.findall(r"^\s*server (\S+?):(\d+)", upstream.group(1), re.M)
    assert {name for name, _ in servers} == set(app_services(services))
    assert {p for _, p in servers} == {port.group(1)}

    address = nginx["networks"]["backend"]["ipv4_address"]
    for app in app_services(services).values():
        assert app["environment"]["FORWARDED_ALLOW_IPS"] == address
        assert app["environment"]["TRUSTED_PROXIES"] == address


def test_the_stream_paths_are_not_buffered():
    site = (DEPLOY / "nginx" / "assistant.conf").read_text()
    stream = re.search(
        r"location ~ \^/v1/chats/\[\^/\]\+/\(messages/\)\?events\$ \{(.*?)\}", site, re.S
    )
    assert stream is not None
    assert re.search(r"proxy_buffering off;", stream.group(1))
    assert re.search(r"proxy_read_timeout 3700s;", stream.group(1))
    for path in ("/v1/chats/abc/events", "/v1/chats/abc/messages/events"):
        assert re.fullmatch(r"/v1/chats/[^/]+/(messages/)?events", path)
