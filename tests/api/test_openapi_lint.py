"""The served OpenAPI description passes Redocly's linter (its recommended rules, with the
licence rule off: clients/openapi-lint/redocly.yaml), so generators and portals take it as is.

Node runs `@redocly/cli`, pinned in clients/openapi-lint/package-lock.json (CI: `npm ci`).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess

import pytest

from tests.knowledge.catalog_files import ROOT

LINT = ROOT / "clients" / "openapi-lint"
NODE = shutil.which("node")


def node_version() -> tuple[int, ...]:
    if NODE is None:
        return ()
    text = subprocess.run([NODE, "--version"], capture_output=True, text=True).stdout
    return tuple(int(part) for part in text.strip().lstrip("v").split("."))


# @redocly/cli's own minimum (its package.json `engines`).
NODE_OK = node_version() >= (22, 12) or (20, 19) <= node_version() < (21,)
pytestmark = pytest.mark.skipif(
    not NODE_OK, reason="needs Node 20.19+ or 22.12+ for @redocly/cli (CI installs Node 20)"
)


@pytest.mark.django_db
def test_the_openapi_description_is_lint_clean(client, tmp_path):
    assert (LINT / "node_modules" / "@redocly" / "cli").is_dir(), (
        "Redocly's CLI is not installed: run `npm ci` in clients/openapi-lint"
    )
    schema = tmp_path / "openapi.json"
    schema.write_bytes(client.get("/v1/openapi.json").content)
    done = subprocess.run(
        [
            str(LINT / "node_modules" / ".bin" / "redocly"),
            "lint",
            str(schema),
            "--config",
            str(LINT / "redocly.yaml"),
            "--format",
            "summary",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        # No usage report and no update check: CI reaches only package registries.
        env={**os.environ, "REDOCLY_TELEMETRY": "off", "REDOCLY_SUPPRESS_UPDATE_NOTICE": "true"},
    )
    report = done.stdout + done.stderr
    assert done.returncode == 0, report
    # The summary's lines name each rule with a problem ("warning info-license: 1").
    problems = [
        line for line in report.splitlines() if re.match(r"(error|warning)\s+\S+: \d+", line)
    ]
    assert problems == [], report
    assert "Your API description is valid" in report


@pytest.mark.django_db
def test_what_the_linter_cannot_see_is_right_too(client):
    schema = client.get("/v1/openapi.json").json()
    assert schema["servers"]
    operations = [op for path in schema["paths"].values() for op in path.values()]
    public = [op for op in operations if op["operationId"].startswith("getPdpQuestionSet")]
    assert public and all(op["security"] == [] for op in public)
    assert all(op.get("security") for op in operations if op not in public)
    for scheme in schema["components"]["securitySchemes"].values():
        assert "bearerFormat" not in scheme  # keys and tokens are opaque
    components = schema["components"]["schemas"]
    assert components["MessageTypeEnum"]["enum"] == ["user", "assistant", "answer"]
    assert set(components["AvailabilityStatusEnum"]["enum"]) >= {"in_stock", "out_of_stock"}
