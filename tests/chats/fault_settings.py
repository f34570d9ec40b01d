"""The project's settings, plus the engines of tests/chats/engines.py: for a live server
(`DJANGO_SETTINGS_MODULE`) whose chatbots may be given an engine that fails."""

from assistant_api.settings import *  # noqa: F403

ASSISTANT_ENGINES = {"faulty": "tests.chats.engines.FaultyEngine"}
