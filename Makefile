# The two commands of the README: `make run` and `make test`.
# The first Python 3.11+ that actually runs (a pyenv shim may name a version it cannot start).
PYTHON ?= $(shell for p in python3 python3.13 python3.12 python3.11; do \
	$$p -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null && { command -v $$p; break; }; done)
VENV := .venv
BIN := $(VENV)/bin
DEV_ENV := DEBUG=True
JS := clients/js

.PHONY: run test test-js check venv node-modules demo clean

venv: $(VENV)/.installed

$(VENV)/.installed: requirements.txt requirements-dev.txt
	@test -n "$(PYTHON)" || { echo "HistoryHub needs Python 3.11 or newer"; exit 1; }
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements-dev.txt
	touch $@

# The JavaScript client's dependencies, exactly as its lockfile pins them.
node-modules: $(JS)/node_modules/.installed

$(JS)/node_modules/.installed: $(JS)/package.json $(JS)/package-lock.json
	cd $(JS) && npm ci --no-audit --no-fund
	touch $@

demo: venv
	$(DEV_ENV) $(BIN)/python manage.py migrate --verbosity 0
	$(DEV_ENV) $(BIN)/python manage.py seed_demo

run: demo
	$(DEV_ENV) $(BIN)/python manage.py runserver 127.0.0.1:8000

test: venv
	$(BIN)/python -m pytest $(PYTEST_ARGS)
	$(MAKE) --no-print-directory test-js

# The JavaScript client against a live server run by this venv's Python, on DATABASE_URL's database.
test-js: venv node-modules
	cd $(JS) && PYTHON=$(abspath $(BIN)/python) npm test

# Guard rails: lint, format, migrations in step with the models, Django's system checks.
check: venv
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(DEV_ENV) $(BIN)/python manage.py makemigrations --check --dry-run
	$(DEV_ENV) $(BIN)/python manage.py check

# Every dashboard page's server time with 100,000 sessions and 1,000,000 timeline rows, on PostgreSQL
# (database hh_bench_dashboard on BENCH_POSTGRES_URL's server, dropped and made again) and SQLite;
# seeds once per schema (docs/search.md). BENCH_ARGS=--help for the options.
.PHONY: bench-dashboard
bench-dashboard: venv
	$(BIN)/python bench/dashboard_pages.py $(BENCH_ARGS)

clean:
	rm -rf $(VENV) data staticfiles test-artifacts $(JS)/node_modules
