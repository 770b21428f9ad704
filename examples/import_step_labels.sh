#!/usr/bin/env bash
# Imports the 197 human-labelled solutions of ../shared/external/step_traces.jsonl (188 from
# ProcessBench, Apache-2.0; 9 PRM800K phase-2 records, MIT; see sample_traces/PROCESSBENCH.md)
# into sample_traces/processbench-prm800k.jsonl: one trace per solution, one segment per step,
# the human labels in the label store beside it (labeller processbench / prm800k), then stores
# ArithmeticPRM's scores of every step under the name `arithmetic`.
#
# With --judge it also stores the embedded SmolLM2-135M-Instruct's scores as a judge (JudgePRM,
# under the name `judge-smollm2`) for the 63 ProcessBench GSM8K traces, the ones bench/prm.py
# judges, the same way: the model served by the tests' vLLM server (.vllm-venv, `make
# vllm-server`; about 6 minutes on 2 busy CPU cores), else in process (`judge:transformers`,
# about half an hour; its scores can differ from the served model's in the last digits, and so
# the numbers from bench/prm.py's).
#
#   examples/import_step_labels.sh [--judge] [STEP_FILE]
set -euo pipefail
cd "$(dirname "$0")/.."
LLENVS=.venv/bin/llenvs
JUDGE=no
if [[ "${1:-}" == "--judge" ]]; then
    JUDGE=yes
    shift
fi
DATA=${1:-../shared/external/step_traces.jsonl}
OUT=sample_traces/processbench-prm800k.jsonl
rm -f "$OUT" "${OUT%.jsonl}.labels.jsonl"
"$LLENVS" import processbench "$DATA" -o "$OUT"
"$LLENVS" score "$OUT" --prm arithmetic
if [[ "$JUDGE" == yes ]]; then
    # The judge's scores, under one name whichever way the model is run.
    .venv/bin/python - "$OUT" <<'PYTHON'
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path.cwd()))
from llenvs.inference._backends.embedded_model import embedded_model_path

trace_file = sys.argv[1]
score = [".venv/bin/llenvs", "score", trace_file, "--name", "judge-smollm2",
         "--environment", "gsm8k"]
if not Path(".vllm-venv/bin/python").exists():
    subprocess.run([*score, "--prm", "judge:transformers"], check=True)
    raise SystemExit
from tests.vllm_server import SERVED_NAME, VLLMServer

folder = embedded_model_path(progress=False)
server = VLLMServer(folder)
server.start()
try:
    subprocess.run([*score, "--prm", "judge", "--backend", f"openai/{SERVED_NAME}",
                    "--base-url", server.base_url, "--tokenizer", str(folder)], check=True)
finally:
    server.stop()
PYTHON
fi
