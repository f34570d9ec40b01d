"""Django settings, read from the environment only (every variable is listed in the README)."""

from __future__ import annotations

import os
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("VAR_DIR", BASE_DIR / "var"))


def env_bool(name: str, default: bool = False) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str = "") -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


def env_int(name: str, default: int) -> int:
    value = os.environ.get(name, "")
    try:
        return int(value) if value.strip() else default
    except ValueError as exc:
        raise ImproperlyConfigured(f"{name} must be an integer, got {value!r}") from exc


DEBUG = env_bool("DEBUG")
SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY must be set unless DEBUG is on")
    SECRET_KEY = "insecure-development-key-do-not-use-in-production"

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")

# Which environment this deployment serves; keys of the other one are refused
# (docs/api.md#authentication).
ASSISTANT_ENVIRONMENT = os.environ.get("ASSISTANT_ENVIRONMENT", "staging").strip().lower()
ASSISTANT_ENGINE = os.environ.get("ASSISTANT_ENGINE", "catalog").strip().lower()
# Pause between two published text chunks of a catalog reply, so a UI shows it "typing".
ASSISTANT_STREAM_CHUNK_DELAY_MS = env_int("ASSISTANT_STREAM_CHUNK_DELAY_MS", 0)

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "corsheaders",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "axes",
    "assistant_api",
    "accounts",
    "chats",
    "knowledge",
    "insights",
    "storefront",
]

MIDDLEWARE = [
    "assistant_api.middleware.RequestIdMiddleware",
    "assistant_api.middleware.JsonErrorMiddleware",
    # django-cors-headers plus the per-organization allowed origins (docs/api.md#cors); outside
    # the size limit, so a public endpoint's 413 reaches the page's script too.
    "knowledge.pdp.cors.PdpCorsMiddleware",
    # CORS of client-token requests on the chat paths (chats/cors.py), also outside the limit.
    "chats.cors.ChatCorsMiddleware",
    "assistant_api.middleware.BodySizeLimitMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Django's session, login and message middleware, skipped on the API's paths.
    "assistant_api.browser_middleware.BrowserSessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "assistant_api.browser_middleware.BrowserAuthenticationMiddleware",
    "assistant_api.browser_middleware.BrowserMessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Answers a locked-out admin sign-in (accounts/sign_in.py); last, as django-axes requires.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "assistant_api.urls"
WSGI_APPLICATION = "assistant_api.wsgi.application"
APPEND_SLASH = False

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --- Database -------------------------------------------------------------------------------
# PostgreSQL in production; a SQLite file under var/ when DATABASE_URL is unset.
DATABASE_URL = os.environ.get("DATABASE_URL", "").strip()
DB_POOL_MAX_SIZE = env_int("DB_POOL_MAX_SIZE", 20)
DB_HEALTH_CHECKS = env_bool("DB_HEALTH_CHECKS", True)
DB_PREPARED_STATEMENTS = env_bool("DB_PREPARED_STATEMENTS", True)
if DATABASE_URL:
    _db = dj_database_url.parse(DATABASE_URL)
    if _db["ENGINE"] == "django.db.backends.postgresql":
        # Under gevent Django opens one connection per greenlet; persistent connections
        # (CONN_MAX_AGE > 0) would pile up, so each worker shares a bounded psycopg pool and
        # requests wait for a free connection instead of exhausting the server.
        _db["CONN_MAX_AGE"] = 0
        # Django's backend, but a connection the server closed is not lent (requests right
        # after a database restart get a fresh one, not a 503), found without the round
        # trip of the pool's own check (CONN_HEALTH_CHECKS): infrastructure/postgresql/.
        _db["ENGINE"] = "infrastructure.postgresql"
        _db["CONN_HEALTH_CHECKS"] = False
        _db.setdefault("OPTIONS", {})["pool"] = {
            "min_size": 1,
            "max_size": DB_POOL_MAX_SIZE,
            "timeout": env_int("DB_POOL_TIMEOUT", 10),
        }
        _db["OPTIONS"].setdefault("connect_timeout", 5)
        # Parameters bound by the server, so psycopg prepares a statement run five times on a
        # connection and the server plans it once: PostgreSQL's CPU per chat creation halves
        # (BENCHMARKS.md). Off behind a transaction-pooling PgBouncer older than 1.21,
        # which cannot keep a session's prepared statements.
        _db["OPTIONS"]["server_side_binding"] = DB_PREPARED_STATEMENTS
        _db["OPTIONS"]["prepare_threshold"] = 5 if DB_PREPARED_STATEMENTS else None
    DATABASES = {"default": _db}
else:
    VAR_DIR.mkdir(parents=True, exist_ok=True)
    _sqlite_path = os.environ.get("SQLITE_PATH", str(VAR_DIR / "db.sqlite3"))
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": _sqlite_path,
            # A file, not memory, so end-to-end tests can share it with a real server.
            "TEST": {"NAME": _sqlite_path.removesuffix(".sqlite3") + "-test.sqlite3"},
            "OPTIONS": {
                "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
                # Take the write lock at BEGIN so concurrent writers queue instead of failing.
                "transaction_mode": "IMMEDIATE",
                "timeout": 20,
            },
        }
    }
# The event stream's listener LISTENs, which needs a session of its own on PostgreSQL itself:
# behind a transaction-pooling PgBouncer this points past it (chats/stream/listener.py).
# Empty: the listener connects where DATABASE_URL does.
DATABASE_LISTEN_URL = os.environ.get("DATABASE_LISTEN_URL", "").strip()
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Cache ----------------------------------------------------------------------------------
REDIS_URL = os.environ.get("REDIS_URL", "").strip()
# A Redis that stops answering costs a request at most this, then it is served (fail open).
REDIS_SOCKET_OPTIONS = {"socket_connect_timeout": 1, "socket_timeout": 1}
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "OPTIONS": REDIS_SOCKET_OPTIONS,
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# --- Auth, i18n, static ---------------------------------------------------------------------
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LANGUAGE_CODE = "en-us"
# The assistant's reply texts per language (knowledge/language); the .mo files are committed,
# rebuilt from the .po files with `manage.py compile_translations` (Babel, no gettext tools).
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True
STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
# Tests and `runserver` find static files in the apps, no collectstatic needed.
WHITENOISE_USE_FINDERS = True

# --- Request limits (docs/api.md#limits: 413 above 64 KiB) ----------------------------------
MAX_BODY_BYTES = 64 * 1024
DATA_UPLOAD_MAX_MEMORY_SIZE = MAX_BODY_BYTES
# The admin's catalog import form uploads whole feeds.
FILE_UPLOAD_MAX_MEMORY_SIZE = 2_621_440
ADMIN_MAX_BODY_BYTES = env_int("ADMIN_MAX_UPLOAD_BYTES", 200 * 1024 * 1024)
# A request body must arrive within this (as long again per further 64 KiB), or 408; it is read
# before any database connection is taken (assistant_api/request_body.py).
REQUEST_BODY_TIMEOUT_SECONDS = float(os.environ.get("REQUEST_BODY_TIMEOUT_SECONDS", "10"))
if REQUEST_BODY_TIMEOUT_SECONDS <= 0:
    raise ImproperlyConfigured("REQUEST_BODY_TIMEOUT_SECONDS must be more than 0")
# The catalog API's batches: 1,000 products with descriptions.
CATALOG_MAX_BODY_BYTES = env_int("CATALOG_MAX_BODY_BYTES", 16 * 1024 * 1024)
# POST /v1/ui/chat: the AI SDK's transport sends the whole conversation (tool outputs too)
# with every message, though only the last one is read.
UI_CHAT_MAX_BODY_BYTES = env_int("UI_CHAT_MAX_BODY_BYTES", 1024 * 1024)
# The admin's catalog upload must arrive within this, however large.
ADMIN_MAX_UPLOAD_SECONDS = float(os.environ.get("ADMIN_MAX_UPLOAD_SECONDS", "600"))
if ADMIN_MAX_UPLOAD_SECONDS <= 0:
    raise ImproperlyConfigured("ADMIN_MAX_UPLOAD_SECONDS must be more than 0")

# --- Security -------------------------------------------------------------------------------
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
BEHIND_TLS_PROXY = env_bool("BEHIND_TLS_PROXY")
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if BEHIND_TLS_PROXY else None
SESSION_COOKIE_SECURE = env_bool("SECURE_COOKIES", not DEBUG)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0 if DEBUG else 31536000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = SECURE_HSTS_SECONDS > 0
# Sending the directive enrolls nothing; it lets the domain owner submit to the preload list.
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", SECURE_HSTS_SECONDS >= 31536000)
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", BEHIND_TLS_PROXY and not DEBUG)
# Load balancers probe health over plain HTTP.
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$"]
SILENCED_SYSTEM_CHECKS = env_list("SILENCED_SYSTEM_CHECKS")
# JSON with Django's reason, like every error (docs/api.md#errors), not Django's HTML page.
CSRF_FAILURE_VIEW = "assistant_api.views.csrf_failure"

# --- Admin sign-in: failed attempts lock a username out from an address (django-axes) --------
# Its backend goes first: it refuses a locked-out sign-in before the password is even checked.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = env_int("ADMIN_LOGIN_FAILURE_LIMIT", 5)
_lockout_minutes = env_int("ADMIN_LOGIN_LOCKOUT_MINUTES", 15)
# 0 failures would lock out every sign-in, the right ones too; 0 minutes would lock nothing.
if AXES_FAILURE_LIMIT < 1 or _lockout_minutes < 1:
    raise ImproperlyConfigured(
        "ADMIN_LOGIN_FAILURE_LIMIT and ADMIN_LOGIN_LOCKOUT_MINUTES must be at least 1"
    )
AXES_COOLOFF_TIME = timedelta(minutes=_lockout_minutes)
# Username and address together: a wrong password typed elsewhere, or someone guessing from
# another address, does not lock a colleague out.
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
# The same client address as the rate limits: REMOTE_ADDR, or X-Forwarded-For from
# TRUSTED_PROXIES only.
AXES_CLIENT_IP_CALLABLE = "assistant_api.throttling.client_address"
# JSON and Retry-After, like every error (docs/api.md#errors).
AXES_LOCKOUT_CALLABLE = "accounts.sign_in.locked_out_response"
AXES_VERBOSE = False  # no startup banner, and only the lockout parameters in its log lines

# --- CORS: only the public PDP endpoints (docs/api.md#cors) ---------------------------------
CORS_URLS_REGEX = r"^/v1/knowledge/pdp-questions/(?:[^/]+/public|public/get-questions)$"
CORS_ALLOW_ALL_ORIGINS = True
CORS_ALLOW_METHODS = ["GET", "POST", "OPTIONS"]
CORS_ALLOW_HEADERS = ["content-type"]
# What a page's script may read of a PDP answer (the ETag to revalidate with).
CORS_EXPOSE_HEADERS = ["ETag", "X-Request-Id", "Retry-After"]

# --- Django REST framework ------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["accounts.authentication.ApiKeyAuthentication"],
    # Every /v1 view needs a key of the chat scope unless it names another (accounts/scopes.py).
    "DEFAULT_PERMISSION_CLASSES": ["accounts.scopes.ChatScope"],
    "DEFAULT_RENDERER_CLASSES": ["assistant_api.renderers.JsonRenderer"],
    "DEFAULT_PARSER_CLASSES": ["assistant_api.parsers.JsonParser"],
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "assistant_api.negotiation.JsonFirstNegotiation",
    "DEFAULT_PAGINATION_CLASS": "chats.pagination.PageEnvelopePagination",
    "DEFAULT_THROTTLE_CLASSES": ["assistant_api.throttling.ApiKeyRateThrottle"],
    "EXCEPTION_HANDLER": "assistant_api.exception_handlers.exception_handler",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "UNAUTHENTICATED_USER": None,
    "PAGE_SIZE": 20,
    # The API speaks JSON only: DRF's `?format=` could only turn an existing resource into a
    # 404 (docs/api.md#query-parameters: 404 is for unknown resources), so the parameter is
    # ignored like any other unknown one.
    "URL_FORMAT_OVERRIDE": None,
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Conversational Shopping Assistant API",
    "DESCRIPTION": (
        "Chats, messages, the server-sent event stream of a chat, the public product "
        "question sets and the catalog API (keys of the catalog scope). The behaviour behind "
        "every field: docs/api.md in the repository."
    ),
    "VERSION": "0.0.1",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    "ENUM_NAME_OVERRIDES": {
        "MessageTypeEnum": "chats.models.MessageType",
        "AvailabilityStatusEnum": "knowledge.models.Availability",
        "UIMessageRoleEnum": "chats.ui.request.UI_ROLES",
        "UIChatTriggerEnum": "chats.ui.request.TRIGGERS",
    },
    # Where the paths are served: this deployment (a `servers` entry, as OpenAPI tools expect).
    "SERVERS": [{"url": "/", "description": "This deployment"}],
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "assistant_api.openapi.public_operations_without_security",
        "assistant_api.openapi.nullable_schemas_typed",
    ],
}

# --- Logging: one JSON object per line, with the request id ---------------------------------
LOG_LEVEL = os.environ.get("LOG_LEVEL", "INFO").upper()
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"request_id": {"()": "assistant_api.request_context.RequestIdLogFilter"}},
    "formatters": {
        "json": {
            "()": "pythonjsonlogger.json.JsonFormatter",
            "fmt": "%(asctime)s %(levelname)s %(name)s %(message)s %(request_id)s",
            "rename_fields": {"asctime": "time", "levelname": "level", "name": "logger"},
        }
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": "json",
            "filters": ["request_id"],
        }
    },
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
    "loggers": {
        # Errors are logged once, by our exception handler, with the request id.
        "django.request": {"handlers": ["console"], "level": "CRITICAL", "propagate": False},
        "django.server": {"handlers": ["console"], "level": "WARNING", "propagate": False},
    },
}

# --- Service tuning -------------------------------------------------------------------------
RATE_LIMIT_PER_KEY = os.environ.get("RATE_LIMIT_PER_KEY", "600/min")
RATE_LIMIT_PUBLIC = os.environ.get("RATE_LIMIT_PUBLIC", "120/min")
# Refused API keys and forged client tokens per client address; over it, 429 before any key
# or token is looked up.
RATE_LIMIT_FAILED_AUTH = os.environ.get("RATE_LIMIT_FAILED_AUTH", "60/min")
# A key matching no key is answered no sooner than this after its lookup began, so the time of
# a 401 does not tell whether its prefix exists (accounts/authentication.py).
FAILED_AUTH_MIN_SECONDS = float(os.environ.get("FAILED_AUTH_MIN_SECONDS", "0.02"))
if not 0 <= FAILED_AUTH_MIN_SECONDS <= 1:
    raise ImproperlyConfigured("FAILED_AUTH_MIN_SECONDS must be between 0 and 1")
# Seconds a worker may reuse an API key row it read (accounts/key_cache.py); 0 turns it off.
# docs/api.md#authentication: a revoked key is refused by every worker within 1 second.
API_KEY_CACHE_SECONDS = float(os.environ.get("API_KEY_CACHE_SECONDS", "0.5"))
if not 0 <= API_KEY_CACHE_SECONDS <= 1:
    raise ImproperlyConfigured(
        "API_KEY_CACHE_SECONDS must be between 0 and 1 (docs/api.md#authentication)"
    )
# The demo shop at /demo/ with its built-in token endpoint (storefront/demo.py): `make run`
# turns it on; never in production, where a shop's own backend mints tokens.
DEMO_SHOP = env_bool("DEMO_SHOP")
# Default lifetime of a chat's client token (POST /v1/chats/{chatId}/client-tokens).
CLIENT_TOKEN_SECONDS = env_int("CLIENT_TOKEN_SECONDS", 3600)
if not 60 <= CLIENT_TOKEN_SECONDS <= 86400:
    raise ImproperlyConfigured("CLIENT_TOKEN_SECONDS must be between 60 and 86400")
# Seconds a worker reuses a chat row it read for a read (chats/chat_cache.py).
CHAT_CACHE_SECONDS = float(os.environ.get("CHAT_CACHE_SECONDS", "60"))
# Seconds a chat's history pages may stay in Redis (chats/history_cache.py): a new message
# drops them at once; this bounds them if Redis missed that. 0 off; no cache without REDIS_URL.
HISTORY_CACHE_SECONDS = env_int("HISTORY_CACHE_SECONDS", 60)
if HISTORY_CACHE_SECONDS < 0:
    raise ImproperlyConfigured("HISTORY_CACHE_SECONDS must be 0 (off) or more")
TRUSTED_PROXIES = env_list("TRUSTED_PROXIES")
SSE_KEEPALIVE_SECONDS = float(os.environ.get("SSE_KEEPALIVE_SECONDS", "15"))
SSE_MAX_DURATION_SECONDS = float(os.environ.get("SSE_MAX_DURATION_SECONDS", "3600"))
# Open event streams per organization, across every worker sharing REDIS_URL (else per process).
EVENT_STREAMS_PER_ORGANIZATION = env_int("EVENT_STREAMS_PER_ORGANIZATION", 1000)
if EVENT_STREAMS_PER_ORGANIZATION < 1:
    raise ImproperlyConfigured("EVENT_STREAMS_PER_ORGANIZATION must be at least 1")
# A worker that died without closing its streams gives their places back after this.
EVENT_STREAM_LEASE_SECONDS = float(os.environ.get("EVENT_STREAM_LEASE_SECONDS", "30"))
if not 1 <= EVENT_STREAM_LEASE_SECONDS <= 60:
    raise ImproperlyConfigured("EVENT_STREAM_LEASE_SECONDS must be between 1 and 60")
SSE_POLL_SECONDS = float(os.environ.get("SSE_POLL_SECONDS", "1.0"))
# Publishing an event NOTIFYs the stream listeners (PostgreSQL); off: they find it by polling.
SSE_NOTIFY = env_bool("SSE_NOTIFY", True)
# A process's replies hand their events to its event writer, which writes every waiting
# reply's in one statement (chats/event_writer.py); off: each reply writes its own.
EVENT_GROUP_COMMIT = env_bool("EVENT_GROUP_COMMIT", True)
# After a statement several replies shared, the writer starts the next no sooner than this.
EVENT_COMMIT_DELAY_MS = float(os.environ.get("EVENT_COMMIT_DELAY_MS", "2"))
if not 0 <= EVENT_COMMIT_DELAY_MS <= 100:
    raise ImproperlyConfigured("EVENT_COMMIT_DELAY_MS must be between 0 and 100")
# How many messages a worker accepts at once, the others waiting in a line per organization
# (chats/message_turns.py); 0: no limit. A turn that lasts longer than MESSAGE_TURN_LEASE_MS
# no longer keeps the next message out.
MESSAGE_TURNS = env_int("MESSAGE_TURNS", 1)
MESSAGE_TURN_LEASE_MS = env_int("MESSAGE_TURN_LEASE_MS", 100)
if MESSAGE_TURNS < 0 or not 1 <= MESSAGE_TURN_LEASE_MS <= 60_000:
    raise ImproperlyConfigured(
        "MESSAGE_TURNS must be 0 or more and MESSAGE_TURN_LEASE_MS between 1 and 60000"
    )
# Server workers add PDP question-set request counts to the database this often (seconds);
# 0 writes each request's count at once (knowledge/pdp/counting.py).
PDP_COUNT_FLUSH_SECONDS = float(os.environ.get("PDP_COUNT_FLUSH_SECONDS", "1.0"))

# Scheduled feed fetches (`sync_catalogs`, knowledge/sources/fetch.py).
CATALOG_FETCH_TIMEOUT_SECONDS = float(os.environ.get("CATALOG_FETCH_TIMEOUT_SECONDS", "30"))
CATALOG_FETCH_MAX_SECONDS = float(os.environ.get("CATALOG_FETCH_MAX_SECONDS", "600"))
CATALOG_FETCH_MAX_BYTES = env_int("CATALOG_FETCH_MAX_BYTES", 1024 * 1024 * 1024)
CATALOG_FETCH_RETRIES = env_int("CATALOG_FETCH_RETRIES", 3)
CATALOG_FETCH_BACKOFF_SECONDS = float(os.environ.get("CATALOG_FETCH_BACKOFF_SECONDS", "2"))
# Feeds on loopback, private, link-local or reserved addresses (an on-premise feed server):
# refused unless set, since a feed URL could otherwise reach the deployment's own services.
CATALOG_FETCH_ALLOW_PRIVATE_ADDRESSES = env_bool("CATALOG_FETCH_ALLOW_PRIVATE_ADDRESSES")
# Hosts a feed may redirect to besides its own (a CDN), comma-separated.
CATALOG_FETCH_REDIRECT_HOSTS = env_list("CATALOG_FETCH_REDIRECT_HOSTS")

# The `openai` assistant engine: any server speaking the OpenAI Chat Completions protocol
# (README "Language-model engine"). An empty base URL means the client's default (OpenAI).
OPENAI_BASE_URL = os.environ.get("OPENAI_BASE_URL", "").strip()
OPENAI_API_KEY = os.environ.get("OPENAI_API_KEY", "").strip()
OPENAI_MODEL = os.environ.get("OPENAI_MODEL", "gpt-4o-mini").strip()
# The most one reply may wait for the model, across all of its tool rounds.
OPENAI_TIMEOUT_SECONDS = float(os.environ.get("OPENAI_TIMEOUT_SECONDS", "30"))
OPENAI_MAX_TOOL_ROUNDS = env_int("OPENAI_MAX_TOOL_ROUNDS", 4)
# Characters of earlier conversation sent to the model (newest first, about 4 per token).
OPENAI_HISTORY_CHARS = env_int("OPENAI_HISTORY_CHARS", 12000)
# What a reply does when the model fails: `catalog` answers with the catalog engine, `off` fails.
ASSISTANT_FALLBACK = os.environ.get("ASSISTANT_FALLBACK", "catalog").strip().lower() or "catalog"
if ASSISTANT_FALLBACK not in {"catalog", "off"}:
    raise ImproperlyConfigured(
        f"ASSISTANT_FALLBACK must be catalog or off, got {ASSISTANT_FALLBACK!r}"
    )

# The languages the console's insights tell shoppers' messages apart by (ISO 639-1 codes;
# fewer candidates make short messages more reliable).
INSIGHTS_LANGUAGES = env_list("INSIGHTS_LANGUAGES", "en,de,fr,es,it,nl,pt")
