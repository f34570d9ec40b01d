# The two commands of the README: `make run` and `make test`. Everything else is optional.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell cat requirements-dev.lock pyproject.toml | cksum | cut -d' ' -f1)
HOST ?= 127.0.0.1
PORT ?= 8000
export HOST PORT

.PHONY: install clients run createsuperuser serve test lint format bench eval clean

$(STAMP): requirements-dev.lock pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check uv
	$(VENV)/bin/uv pip install --python $(PY) --quiet -r requirements-dev.lock
	$(VENV)/bin/uv pip install --python $(PY) --quiet --no-deps -e .
	rm -f $(VENV)/.installed-*
	touch $(STAMP)

install: $(STAMP)

# The npm packages some tests run (the AI SDK's parser, Redocly's OpenAPI linter), exactly as
# their package-lock.json pins them; npm ci writes node_modules/.package-lock.json last.
NPM_CLIENTS := $(patsubst %/package-lock.json,%/node_modules/.package-lock.json,$(wildcard clients/*/package-lock.json))
clients/%/node_modules/.package-lock.json: clients/%/package-lock.json
	cd clients/$* && npm ci --no-audit --no-fund --loglevel=error

clients: $(NPM_CLIENTS)

var/secret_key:
	mkdir -p var
	$(PY) -c "import secrets; print(secrets.token_urlsafe(50))" > var/secret_key
	chmod 600 var/secret_key

# The local key `make run` and `make createsuperuser` share, unless SECRET_KEY is set: settings
# read the environment only, so the Makefile hands the file's key to each command.
LOCAL_KEY := SECRET_KEY=$${SECRET_KEY:-$$(cat var/secret_key)}

# Set up, seed the demo shop, print how to call it, and serve with gunicorn + gevent (and the
# demo shop's pages at /demo/, DEMO_SHOP=1).
run: install var/secret_key
	$(LOCAL_KEY) $(PY) manage.py migrate --noinput
	$(LOCAL_KEY) $(PY) manage.py collectstatic --noinput -v 0
	$(LOCAL_KEY) $(PY) manage.py seed_demo --banner
	$(LOCAL_KEY) SECURE_COOKIES=$${SECURE_COOKIES:-0} \
		SECURE_HSTS_SECONDS=$${SECURE_HSTS_SECONDS:-0} DEMO_SHOP=$${DEMO_SHOP:-1} \
		$(VENV)/bin/gunicorn -c assistant_api/gunicorn.conf.py assistant_api.wsgi

# An admin console user in the `make run` database (migrated first, so it works before `make
# run` too). ARGS passes options, e.g. ARGS=--noinput with DJANGO_SUPERUSER_* set.
createsuperuser: install var/secret_key
	$(LOCAL_KEY) $(PY) manage.py migrate --noinput -v 0
	$(LOCAL_KEY) $(PY) manage.py createsuperuser $(ARGS)

# The production server only (expects a configured environment).
serve: install
	$(VENV)/bin/gunicorn -c assistant_api/gunicorn.conf.py assistant_api.wsgi

test: install clients
	$(PY) -m pytest

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	SECRET_KEY=lint $(VENV)/bin/mypy .
	$(VENV)/bin/lint-imports --no-cache --no-logo

# The assistant's labelled conversations (eval/): pass share, constraint violations and
# ungrounded facts per catalog, language and set; exits non-zero when the gated sets are below
# target (eval/targets.yaml lists the tracked ones, reported only). Runs in a scratch database beside the one
# DATABASE_URL or SQLITE_PATH names (`<name>_eval`, `<file>-eval.sqlite3`), dropped at the end.
# EVAL_ARGS passes the runner's options: `make eval EVAL_ARGS="--set NAME -v"`.
eval: install
	SECRET_KEY=$${SECRET_KEY:-eval-only} LOG_LEVEL=$${LOG_LEVEL:-ERROR} $(PY) -m eval.runner $(EVAL_ARGS)

format: install
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

# The overall benchmark: PostgreSQL database `bench`, Redis db 6, wrk; about 9 minutes.
# BENCH_SECONDS sets the seconds per point (default 10). Writes BENCHMARKS.md and bench/results.png.
bench: install
	$(PY) bench/run.py

clean:
	rm -rf $(VENV) var staticfiles
