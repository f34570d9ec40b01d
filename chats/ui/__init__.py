"""The AI SDK UI message stream endpoints (docs/api.md, "Shop front-ends")."""
