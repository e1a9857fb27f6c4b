# Two set-up commands for a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PIP    := $(BIN)/python -m pip --disable-pip-version-check --quiet
MKDOCS := NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --site-dir site

.PHONY: demo test bench docs lint typecheck clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --upgrade pip

# The runtime install (what a user gets from `pip install evalsig-stats`). `evalsig` is the
# distribution's former name (and an unrelated project's on PyPI): a .venv made before the
# rename would keep it beside evalsig-stats, both writing the `evalsig` package.
$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(PIP) uninstall --quiet --yes evalsig
	$(PIP) install -e .
	@touch $@

# The development install: every extra, and the dev dependency group (tests, lint, docs).
$(VENV)/.installed-dev: pyproject.toml | $(BIN)/python
	$(PIP) install --upgrade 'pip>=25.1'
	$(PIP) uninstall --quiet --yes evalsig
	$(PIP) install -e '.[all]' --group dev
	@touch $@ $(VENV)/.installed

demo: $(VENV)/.installed
	$(BIN)/evalsig demo

# The documentation site builds (strictly: its warnings shown, INFO lines dropped) while the
# static checks run; then the tests, which inspect the site just built. The two test workers
# fill both cores, so each keeps OpenBLAS to one thread (two threads a worker would contend
# for the cores: small products wait on each other). Bytecode is written even where the
# environment says not to (PYTHONDONTWRITEBYTECODE): otherwise each worker re-rewrites every
# test module's asserts and each of the suite's command-line subprocesses recompiles evalsig.
test: $(VENV)/.installed-dev
	@log=$$(mktemp); ($(MKDOCS) >"$$log" 2>&1; echo $$? >"$$log.status") & \
	  $(BIN)/ruff check src tests benchmarks && $(BIN)/ruff format --check src tests benchmarks \
	    && $(BIN)/mypy && $(BIN)/lint-imports; checks=$$?; wait; \
	  grep -v '^INFO' "$$log"; docs=$$(cat "$$log.status"); rm -f "$$log.status"; \
	  mv -f "$$log" site/build.log 2>/dev/null || rm -f "$$log"; \
	  test $$checks -eq 0 && test $$docs -eq 0
	OPENBLAS_NUM_THREADS=1 EVALSIG_BUILT_SITE=site PYTHONDONTWRITEBYTECODE= \
	  $(BIN)/python -m pytest -n 2 --dist loadfile

bench: $(VENV)/.installed-dev
	$(PIP) install -r benchmarks/requirements.txt
	$(BIN)/python benchmarks/run.py

# The documentation site (docs/, mkdocs.yml), warnings as errors; open site/index.html.
# `make test` runs the same build and shows every line but the INFO ones; never --quiet,
# under which mkdocs neither shows warnings nor counts them against --strict.
docs: $(VENV)/.installed-dev
	$(MKDOCS)

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check --fix src tests benchmarks
	$(BIN)/ruff format src tests benchmarks

clean:
	rm -rf $(VENV) build dist .pytest_cache .mypy_cache .ruff_cache
