"""The server-sent event stream of a chat (contract §5): view, per-process listener, framing."""
