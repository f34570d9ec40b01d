"""Checks real responses against the schema the server serves at /v1/openapi.json."""

from __future__ import annotations

import re
from typing import Any

import jsonschema


def _json_schema(node: Any) -> Any:
    """OpenAPI 3.0 schema -> JSON Schema: `nullable: true` becomes a null alternative."""
    if isinstance(node, list):
        return [_json_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    converted = {key: _json_schema(value) for key, value in node.items() if key != "nullable"}
    if node.get("nullable"):
        return {"anyOf": [converted, {"type": "null"}]}
    return converted


class SchemaChecker:
    def __init__(self, openapi: dict[str, Any]) -> None:
        self.openapi = openapi
        self.components = _json_schema(openapi.get("components", {}))

    def operation(self, method: str, path: str) -> dict[str, Any]:
        for template, operations in self.openapi["paths"].items():
            pattern = "^" + re.sub(r"\{[^}]+\}", "[^/]+", template) + "$"
            if re.match(pattern, path) and method.lower() in operations:
                return operations[method.lower()]
        raise AssertionError(f"{method} {path} is not described in the schema")

    def validate(self, method: str, path: str, status: int, body: Any) -> None:
        responses = self.operation(method, path)["responses"]
        assert str(status) in responses, f"{method} {path}: status {status} not documented"
        content = responses[str(status)].get("content", {}).get("application/json")
        if content is None:
            return
        schema = {**_json_schema(content["schema"]), "components": self.components}
        jsonschema.validate(body, schema)
