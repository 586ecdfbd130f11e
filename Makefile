# The two commands of the README: `make run` and `make test`.
# The first Python 3.11+ that actually runs (a pyenv shim may name a version it cannot start).
PYTHON ?= $(shell for p in python3 python3.13 python3.12 python3.11; do \
	$$p -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null && { command -v $$p; break; }; done)
VENV := .venv
BIN := $(VENV)/bin
DEV_ENV := DEBUG=True
JS := clients/js
PY_CLIENT := clients/python
PY_CLIENT_VENV := $(PY_CLIENT)/.venv

.PHONY: run test test-server test-js test-python-client check stress api-check venv serving-venv node-modules demo bench bench-waits bench-insights clean

venv: $(VENV)/.installed

# What serving needs, and nothing else: `make run` installs only this (the test and benchmark tools come
# with `make test` / `make bench`).
serving-venv: $(VENV)/.serving

# The server installs the Python client package too (editable): /mcp serves its MCP tools.
$(VENV)/.serving: requirements.txt $(PY_CLIENT)/pyproject.toml
	@test -n "$(PYTHON)" || { echo "HistoryHub needs Python 3.11 or newer"; exit 1; }
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt
	touch $@

$(VENV)/.installed: $(VENV)/.serving requirements-dev.txt requirements-bench.txt
	$(BIN)/python -m pip install --quiet -r requirements-dev.txt
	touch $@

# The JavaScript client's dependencies, exactly as its lockfile pins them.
node-modules: $(JS)/node_modules/.installed

$(JS)/node_modules/.installed: $(JS)/package.json $(JS)/package-lock.json
	cd $(JS) && npm ci --no-audit --no-fund
	touch $@

demo: serving-venv
	$(DEV_ENV) $(BIN)/python manage.py migrate --verbosity 0
	$(DEV_ENV) $(BIN)/python manage.py seed_demo

# The ASGI app under uvicorn, as production serves it, restarting when Python code changes (templates are
# read anew on each request with DEBUG on, so they need no restart); beside it, as bin/start does, the
# notification worker and the sweep, each kept running by historyhub.serving.supervise and ended with the
# server (they run the code they started with: a change to them needs a new `make run`).
run: demo
	$(DEV_ENV) $(BIN)/python -m historyhub.serving.supervise sweep -- $(BIN)/python manage.py sweep --every 30 & \
	$(DEV_ENV) $(BIN)/python -m historyhub.serving.supervise deliver -- $(BIN)/python manage.py deliver --with-parent & \
	exec env $(DEV_ENV) $(BIN)/uvicorn historyhub.asgi:application --host 127.0.0.1 --port 8000 --reload --reload-dir historyhub --lifespan off

test: test-server
	$(MAKE) --no-print-directory test-js
	$(MAKE) --no-print-directory test-python-client

# The server's own suite (tests/), browser tests included: the first part of `make test`.
test-server: venv
	$(BIN)/python -m pytest $(PYTEST_ARGS)

# The JavaScript client against a live server run by this venv's Python, on DATABASE_URL's database.
test-js: venv node-modules
	cd $(JS) && PYTHON=$(abspath $(BIN)/python) npm test

# The JavaScript client's declarations (src/*.d.ts) compiled with test/types.check.ts, which uses them as an agent
# would (tsc --noEmit, no server needed); `npm test` runs it first as well.
.PHONY: typecheck-js
typecheck-js: node-modules
	cd $(JS) && npm run --silent typecheck

# The Python client package as an agent's project gets it: a fresh wheel in clients/python/dist, installed
# from that file with [agents] into clients/python/.venv (no Django there), which is made anew whenever the
# wheel or the test requirements change; the suite runs there against a server run by this venv's Python,
# on DATABASE_URL's kind of database (clients/python/tests/support/server.py).
test-python-client: venv
	rm -rf $(PY_CLIENT)/dist
	$(BIN)/python -m build --wheel --quiet --outdir $(PY_CLIENT)/dist $(PY_CLIENT)
	@set -e; wheel=$$(ls $(PY_CLIENT)/dist/*.whl); \
	installed="$$(sha256sum $$wheel $(PY_CLIENT)/requirements-test.txt)"; \
	if [ "$$installed" != "$$(cat $(PY_CLIENT_VENV)/.installed 2>/dev/null)" ]; then \
		echo "$(PY_CLIENT_VENV): a new virtualenv with $$wheel[agents,mcp,langgraph,verify]"; \
		rm -rf $(PY_CLIENT_VENV); \
		$(BIN)/python -m venv $(PY_CLIENT_VENV); \
		$(PY_CLIENT_VENV)/bin/python -m pip install --quiet "$$wheel[agents,mcp,langgraph,verify]" -r $(PY_CLIENT)/requirements-test.txt; \
		echo "$$installed" > $(PY_CLIENT_VENV)/.installed; \
	fi
	cd $(PY_CLIENT) && HISTORYHUB_SERVER_PYTHON=$(abspath $(BIN)/python) .venv/bin/python -m pytest

# Guard rails: lint, format, types (mypy, pyproject.toml: strict for lib/, audit/ and approvals/), migrations in
# step with the models, Django's system checks (mypy's Django plugin reads the settings, hence DEV_ENV), and the
# clients' types: the Python client's annotations (mypy --strict) and the JavaScript client's declarations
# against its code (tsc --noEmit).
check: venv
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(DEV_ENV) $(BIN)/mypy
	$(DEV_ENV) $(BIN)/python manage.py makemigrations --check --dry-run
	$(DEV_ENV) $(BIN)/python manage.py check
	$(MAKE) --no-print-directory mypy-client typecheck-js

# The Python client package's types: mypy --strict over historyhub_client, with the package's own config
# ($(PY_CLIENT)/pyproject.toml, [tool.mypy]), not the server's: no Django plugin, so no settings to load.
.PHONY: mypy-client
mypy-client: venv
	$(BIN)/mypy --config-file $(PY_CLIENT)/pyproject.toml $(PY_CLIENT)/src/historyhub_client

# Screenshots of the main pages with the demo data, 1280 px light and dark and 390 px, into docs/screenshots/
# (tests/browser/test_screenshots.py, which a test run points at test-artifacts/ instead).
.PHONY: screenshots
screenshots: venv
	SCREENSHOTS_DIR=docs/screenshots $(BIN)/python -m pytest -q -p no:cacheprovider tests/browser/test_screenshots.py

# HistoryHub side by side with the Agents SDK's stores (requirements-bench.txt, which the dev
# requirements include): one table, also written to bench/results/latest.md. Needs PostgreSQL on
# 127.0.0.1:5432 (user postgres; BENCH_POSTGRES_URL to change). BENCH_ARGS=--quick for a smoke run.
# Then Insights at scale (bench-insights below; a twentieth of its size with --quick, skipped with --sqlite-only).
bench: venv
	$(BIN)/python -m bench $(BENCH_ARGS)
ifeq ($(findstring --sqlite-only,$(BENCH_ARGS)),)
	$(MAKE) bench-insights BENCH_ARGS="$(if $(findstring --quick,$(BENCH_ARGS)),--scale 0.05)"
endif

# A thousand waits on the production server (PostgreSQL, then SQLite): prints the README's table.
bench-waits: venv
	$(BIN)/python bench/waits.py $(BENCH_ARGS)

# Insights at scale (100,000 sessions, 1,000,000 items, 100,000 decided actions) on PostgreSQL: the p50 and p90
# server time of every Insights page and API answer against the 150 ms target (docs/insights.md, "Performance").
# BENCH_ARGS=--keep keeps the seeded database for the next run.
bench-insights: venv
	DEBUG=True DATABASE_URL=$${BENCH_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432/hh_bench} $(BIN)/python bench/insights.py $(BENCH_ARGS)

# The production server under 16 clients while a worker is killed and PostgreSQL restarts (docs/stress.md).
STRESS_SECONDS ?= 60
stress: venv
	$(BIN)/python bench/stress.py --seconds $(STRESS_SECONDS)

# Schemathesis against /api/openapi.json of the production server on its own PostgreSQL (docs/stress.md).
API_CHECK_EXAMPLES ?= 200
api-check: venv
	$(BIN)/python bench/api_check.py --examples $(API_CHECK_EXAMPLES)
# Every dashboard page's server time with 100,000 sessions and 1,000,000 timeline rows, on PostgreSQL
# (database hh_bench_dashboard on BENCH_POSTGRES_URL's server, dropped and made again) and SQLite;
# seeds once per schema (docs/search.md). BENCH_ARGS=--help for the options.
.PHONY: bench-dashboard
bench-dashboard: venv
	$(BIN)/python bench/dashboard_pages.py $(BENCH_ARGS)

clean:
	rm -rf $(VENV) data staticfiles test-artifacts $(JS)/node_modules $(PY_CLIENT_VENV) $(PY_CLIENT)/dist

# Notifications on PostgreSQL with bin/start: open → webhook p50/p99, a burst to 3 channels, a SIGKILLed
# worker mid-burst, the retry schedule, healthy deliveries beside a dripping and a silent receiver
# (docs/notifications.md, "Measured"). BENCH_ARGS="--actions 100 --events 1000" or "--only isolation".
.PHONY: bench-notify
bench-notify: venv
	$(BIN)/python bench/notify.py $(BENCH_ARGS)

# Three bin/start app servers behind HAProxy, a PostgreSQL primary and a streaming standby, PgBouncer in
# transaction mode, from Debian's packages and deploy/cluster/ (docs/scaling.md); make cluster-stop removes it.
.PHONY: cluster cluster-stop cluster-test
CLUSTER_ARGS ?=
cluster: venv
	$(BIN)/python -m deploy.cluster start $(CLUSTER_ARGS)

cluster-stop: venv
	$(BIN)/python -m deploy.cluster stop $(CLUSTER_ARGS)

# The behaviours across servers, on a cluster of its own started and removed by the tests (tests/cluster/).
cluster-test: venv
	$(BIN)/python -m pytest -p no:cacheprovider -m cluster tests/cluster $(PYTEST_ARGS)

# One app server against three behind HAProxy on make cluster's deployment: writes/s, reads' and decisions'
# p50/p99, replica lag, CPU per part (docs/scaling.md, "Measured"). The issue's size by default (10,000 waits over
# 1,000 sessions, writers for 60 s a side); smaller: BENCH_ARGS="--seconds 60 --waits 2000 --sessions 200 --writers 6"
# (--help lists --waits-per-key, --decision-pause).
.PHONY: bench-cluster
bench-cluster: venv
	$(BIN)/python bench/cluster.py $(BENCH_ARGS)
