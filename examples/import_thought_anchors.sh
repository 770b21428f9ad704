#!/usr/bin/env bash
# Imports three of Thought Anchors' published traces (Bogdan et al., 2025, arXiv 2506.19143; MIT,
# see sample_traces/THOUGHT_ANCHORS.md) into sample_traces/, with their published step values:
# MATH problem 2189 (plate arrangement) solved correctly in 204 chunks and wrongly in 24, and the
# longest trace of the shared set, problem 4164 (a cubic with p(n) = 1/n^2) solved wrongly in 321
# chunks. DeepSeek-R1-Distill-Llama-8B wrote them; the accuracies come from ~100 continuations
# resampled from before every chunk at temperature 0.6. The data is read from
# ../shared/external/thought_anchors (a copy of the paper's site data), or from the folder given.
set -euo pipefail
cd "$(dirname "$0")/.."
LLENVS=.venv/bin/llenvs
DATA=${1:-../shared/external/thought_anchors}/deepseek-r1-distill-llama-8b
OUT=sample_traces/thought_anchors-r1-distill-llama-8b.jsonl
STAGE=$(mktemp -d)
trap 'rm -rf "$STAGE"' EXIT
for folder in correct_base_solution/problem_2189 incorrect_base_solution/problem_2189 \
    incorrect_base_solution/problem_4164; do
    mkdir -p "$STAGE/deepseek-r1-distill-llama-8b/$(dirname "$folder")"
    cp -r "$DATA/$folder" "$STAGE/deepseek-r1-distill-llama-8b/$folder"
done
rm -f "$OUT" "${OUT%.jsonl}.analysis.jsonl"
"$LLENVS" import thought-anchors "$STAGE" -o "$OUT" --prm arithmetic
