"""What an import did: counts per file kind, bad rows and warnings, in the CLI's JSON shape."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

MAX_LISTED = 1000  # errors and warnings listed in a summary; the counts are always exact


@dataclass
class Counts:
    created: int = 0
    updated: int = 0
    removed: int = 0


@dataclass
class ImportReport:
    products: Counts = field(default_factory=Counts)
    inventory: Counts = field(default_factory=Counts)
    stores: Counts = field(default_factory=Counts)
    errors: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[dict[str, Any]] = field(default_factory=list)
    error_count: int = 0
    warning_count: int = 0
    failed_files: list[str] = field(default_factory=list)  # unreadable: nothing of them imported
    aborted: bool = False  # --strict and something was wrong: nothing imported at all
    # Pages of the products whose PDP questions may have changed (their sets follow).
    changed_urls: set[str] = field(default_factory=set, repr=False)

    @property
    def succeeded(self) -> bool:
        return not self.aborted and not self.failed_files

    def error(self, *, file: str, line: int | None, item_id: str = "", message: str) -> None:
        self.error_count += 1
        if len(self.errors) < MAX_LISTED:
            self.errors.append(_entry(file, line, item_id, message))

    def warning(self, *, file: str, line: int | None, item_id: str = "", message: str) -> None:
        self.warning_count += 1
        if len(self.warnings) < MAX_LISTED:
            self.warnings.append(_entry(file, line, item_id, message))

    def as_json(self) -> dict[str, Any]:
        """The `import_catalog --json` object (docs/api.md#operators-command-line; the first four
        keys first)."""
        return {
            "created": self.products.created,
            "updated": self.products.updated,
            "removed": self.products.removed,
            "errors": self.errors,
            "warnings": self.warnings,
            "errorCount": self.error_count,
            "warningCount": self.warning_count,
            "inventory": vars(self.inventory).copy(),
            "stores": {"created": self.stores.created, "updated": self.stores.updated},
            "aborted": self.aborted,
        }

    def as_text(self) -> str:
        lines = [
            f"Products: {self.products.created} created, {self.products.updated} updated,"
            f" {self.products.removed} removed."
        ]
        if any(vars(self.inventory).values()):
            lines.append(
                f"Inventory: {self.inventory.created} created, {self.inventory.updated} updated,"
                f" {self.inventory.removed} removed."
            )
        if self.stores.created or self.stores.updated:
            lines.append(f"Stores: {self.stores.created} created, {self.stores.updated} updated.")
        if self.aborted:
            lines.append("Import aborted (--strict): nothing was changed.")
        lines.extend(f"Failed: {name} (nothing of it imported)." for name in self.failed_files)
        lines.extend(f"Error   {_where(entry)}: {entry['message']}" for entry in self.errors)
        lines.extend(f"Warning {_where(entry)}: {entry['message']}" for entry in self.warnings)
        if self.error_count > len(self.errors) or self.warning_count > len(self.warnings):
            lines.append(f"({self.error_count} errors and {self.warning_count} warnings in all.)")
        return "\n".join(lines)


def _entry(file: str, line: int | None, item_id: str, message: str) -> dict[str, Any]:
    return {"file": file, "line": line, "id": item_id, "message": message}


def _where(entry: dict[str, Any]) -> str:
    place = entry["file"] + (f" line {entry['line']}" if entry["line"] else "")
    return place + (f" (id {entry['id']})" if entry["id"] else "")
