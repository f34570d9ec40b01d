"""The server-sent event stream of a chat (docs/api.md#event-stream): view, per-process listener,
framing."""
