"""The shop backend's side of the chat widget, in a few lines (standard library only).

The widget asks `POST /assistant-session` for {chatId, token}. This backend creates the chat
and mints the token with the shop's API key (which never leaves the server), and keeps the
chat in the visitor's own cookie so the conversation continues across pages; a renewal
(expired token) mints a new token for the same chat.

    ASSISTANT_URL=http://127.0.0.1:8000 ASSISTANT_API_KEY=sk_stag_... \
    ASSISTANT_CHATBOT_ID=... python examples/widget-session/server.py   # then open :8001
"""

import json
import os
import secrets
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

API = os.environ.get("ASSISTANT_URL", "http://127.0.0.1:8000")
KEY = os.environ["ASSISTANT_API_KEY"]
CHATBOT = os.environ["ASSISTANT_CHATBOT_ID"]
chats: dict[str, str] = {}  # visitor cookie -> chat id (a real shop keeps it in its session)

PAGE = f"""<!doctype html><meta charset="utf-8"><title>My shop</title><h1>My shop</h1>
<script src="{API}/static/shop-assistant/shop-assistant.js" data-session-url="/assistant-session"
        defer></script>"""


def assistant(path: str, body: dict) -> dict:
    request = urllib.request.Request(
        API + path,
        data=json.dumps(body).encode(),
        headers={"x-api-key": KEY, "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)


class Shop(BaseHTTPRequestHandler):
    def do_GET(self):
        self.answer(200, PAGE.encode(), "text/html; charset=utf-8")

    def do_POST(self):
        if self.path != "/assistant-session":
            return self.answer(404, b"{}", "application/json")
        visitor = (self.headers.get("Cookie") or "").partition("visitor=")[2][:32]
        visitor = visitor or secrets.token_hex(16)
        if visitor not in chats:
            chats[visitor] = assistant("/v1/chats", {"chatbotId": CHATBOT})["id"]
        token = assistant(f"/v1/chats/{chats[visitor]}/client-tokens", {})
        body = json.dumps(token).encode()  # {"token", "chatId", "expiresAt"}
        self.answer(200, body, "application/json", f"visitor={visitor}; HttpOnly; SameSite=Lax")

    def answer(self, status, body, content_type, cookie=None):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        if cookie:
            self.send_header("Set-Cookie", cookie)
        self.end_headers()
        self.wfile.write(body)


if __name__ == "__main__":
    ThreadingHTTPServer(("127.0.0.1", int(os.environ.get("PORT", "8001"))), Shop).serve_forever()
