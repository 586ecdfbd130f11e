# The two commands of the README: `make run` and `make test`.
PYTHON ?= $(shell command -v python3.13 || command -v python3.12 || command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
DEV_ENV := DEBUG=True

.PHONY: run test venv demo clean

venv: $(VENV)/.installed

$(VENV)/.installed: requirements.txt requirements-dev.txt
	$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "HistoryHub needs Python 3.11 or newer"'
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements-dev.txt
	touch $@

demo: venv
	$(DEV_ENV) $(BIN)/python manage.py migrate --verbosity 0
	$(DEV_ENV) $(BIN)/python manage.py seed_demo

run: demo
	$(DEV_ENV) $(BIN)/python manage.py runserver 127.0.0.1:8000

test: venv
	$(BIN)/python -m pytest $(PYTEST_ARGS)

clean:
	rm -rf $(VENV) data staticfiles test-artifacts
