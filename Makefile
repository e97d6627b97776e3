# Two entry points for a fresh Debian 12 machine: `make demo` and `make test`.
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test test-slow reproduce bench clean

$(STAMP): pyproject.toml scripts/setup-env.sh
	bash scripts/setup-env.sh
	touch $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/numag reproduce --quick

test: $(STAMP)
	$(PY) -m pytest -q

test-slow: $(STAMP)
	$(PY) -m pytest -q -m slow

reproduce: $(STAMP)
	$(VENV)/bin/numag reproduce --full

bench: $(STAMP)
	$(PY) -m pip install -q -e '.[bench]'
	for b in benchmarks/*.py; do $(PY) $$b || exit 1; done

clean:
	rm -rf $(VENV) studies/out .pytest_cache
