# Two entry points for a fresh Debian 12 machine: `make demo` and `make test`.
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test test-slow reproduce bench record clean

$(STAMP): pyproject.toml scripts/setup-env.sh
	bash scripts/setup-env.sh
	touch $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/numag reproduce --quick

test: $(STAMP)
	$(PY) -m pytest -q

test-slow: $(STAMP)
	$(PY) -m pytest -q -m slow --durations=10

reproduce: $(STAMP)
	$(VENV)/bin/numag reproduce --full

bench: $(STAMP)
	$(PY) -m pip install -q -e '.[bench]'
	for b in $(filter-out benchmarks/report.py benchmarks/record.py,$(wildcard benchmarks/*.py)); do \
		$(PY) $$b || exit 1; done

# The measured figures the README quotes, each written with date, machine, load and commit to
# benchmarks/results/NAME.txt by benchmarks/record.py (minutes on an idle 2-core machine).
RECORD := $(PY) benchmarks/record.py
record: $(STAMP)
	$(RECORD) test -- make test
	$(RECORD) test-slow -- make test-slow
	rm -rf studies/out-record
	$(RECORD) reproduce-quick --attach studies/out-record/REPORT.md -- \
		$(VENV)/bin/numag reproduce --quick --out studies/out-record
	$(RECORD) certify -- $(PY) benchmarks/certify.py --systems cyclic-7,katsura-8
	$(RECORD) dimension-quick -- $(PY) benchmarks/dimension.py --quick
	$(RECORD) rank-margins-quick -- $(PY) benchmarks/rank_margins.py --quick

clean:
	rm -rf $(VENV) studies/out .pytest_cache
