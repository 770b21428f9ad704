#!/usr/bin/env bash
# Records the sample experiments on 4 of the 14 traces of sample_traces/products-smollm2.jsonl
# (tasks 2, 3, 5 and 6: multiply two small numbers; 2 succeeded, 2 failed; none has other
# branches), with the embedded SmolLM2-135M-Instruct the traces were recorded with (greedy, each
# branch with the traces' own budget of 80 tokens):
# - examples/misleading_hint.toml: "Hint: the answer is not {expected}. Check your reasoning."
#   after 25, 50 and 75% of each trace's segments (12 branches);
# - examples/early_answering.toml (Lanham et al., 2023): the reasoning cut at 0, 25, 50 and 75%
#   and the answer opening forced there, so the model answers at once (16 branches).
# The branches are appended to products-smollm2.branches.jsonl (rerunning this script first
# takes out the ones an earlier run appended), each experiment's recipe and outcomes go to its
# NAME.experiment.jsonl; open them on the Experiments page ("Open a recorded experiment").
set -euo pipefail
cd "$(dirname "$0")/.."
LLENVS=.venv/bin/llenvs
PARENTS=sample_traces/products-smollm2.jsonl
SIDECAR=sample_traces/products-smollm2.branches.jsonl
# earlier runs' branches of these experiments out of the sidecar, their files out of the way
grep -v '"experiment": {"id"' "$SIDECAR" > "$SIDECAR.tmp" || true
mv "$SIDECAR.tmp" "$SIDECAR"
rm -f sample_traces/products-smollm2-*.experiment.jsonl
for recipe in misleading_hint early_answering; do
    "$LLENVS" experiment "$PARENTS" --recipe "examples/$recipe.toml" --no-progress \
        -o "sample_traces/products-smollm2-${recipe//_/-}"
done
