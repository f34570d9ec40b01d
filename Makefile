# The two commands of the README: `make run` and `make test`. Everything else is optional.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell cat requirements-dev.lock pyproject.toml | cksum | cut -d' ' -f1)
HOST ?= 127.0.0.1
PORT ?= 8000
export HOST PORT

.PHONY: install run serve test lint format bench eval clean

$(STAMP): requirements-dev.lock pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check uv
	$(VENV)/bin/uv pip install --python $(PY) --quiet -r requirements-dev.lock
	$(VENV)/bin/uv pip install --python $(PY) --quiet --no-deps -e .
	rm -f $(VENV)/.installed-*
	touch $(STAMP)

install: $(STAMP)

var/secret_key:
	mkdir -p var
	$(PY) -c "import secrets; print(secrets.token_urlsafe(50))" > var/secret_key
	chmod 600 var/secret_key

# Set up, seed the demo shop, print how to call it, and serve with gunicorn + gevent (and the
# demo shop's pages at /demo/, DEMO_SHOP=1).
run: install var/secret_key
	SECRET_KEY=$${SECRET_KEY:-$$(cat var/secret_key)} $(PY) manage.py migrate --noinput
	SECRET_KEY=$${SECRET_KEY:-$$(cat var/secret_key)} $(PY) manage.py collectstatic --noinput -v 0
	SECRET_KEY=$${SECRET_KEY:-$$(cat var/secret_key)} $(PY) manage.py seed_demo --banner
	SECRET_KEY=$${SECRET_KEY:-$$(cat var/secret_key)} SECURE_COOKIES=$${SECURE_COOKIES:-0} \
		SECURE_HSTS_SECONDS=$${SECURE_HSTS_SECONDS:-0} DEMO_SHOP=$${DEMO_SHOP:-1} \
		$(VENV)/bin/gunicorn -c assistant_api/gunicorn.conf.py assistant_api.wsgi

# The production server only (expects a configured environment).
serve: install
	$(VENV)/bin/gunicorn -c assistant_api/gunicorn.conf.py assistant_api.wsgi

test: install
	$(PY) -m pytest

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	SECRET_KEY=lint $(VENV)/bin/mypy .

# The assistant's labelled conversations (eval/): pass share, constraint violations and
# ungrounded facts; exits non-zero below target. Uses DATABASE_URL, else the SQLite file.
eval: install
	SECRET_KEY=$${SECRET_KEY:-eval-only} LOG_LEVEL=$${LOG_LEVEL:-ERROR} $(PY) -m eval.runner

format: install
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

# The overall benchmark (issue 9): PostgreSQL database `bench`, Redis db 6, wrk; about 9 minutes.
# BENCH_SECONDS sets the seconds per point (default 10). Writes BENCHMARKS.md and bench/results.png.
bench: install
	$(PY) bench/run.py

clean:
	rm -rf $(VENV) var staticfiles
