#!/usr/bin/env bash
# Records sample_traces/ with the project's own CLI and the embedded SmolLM2-135M-Instruct
# (greedy, so a rerun gives the same text): two reasoning-gym environments scored with the
# arithmetic PRM on every step, then interventions on them, appended to the branches sidecars.
set -euo pipefail
cd "$(dirname "$0")/.."
LLENVS=.venv/bin/llenvs
OUT=sample_traces
rm -f "$OUT"/*.jsonl

"$LLENVS" evaluate --env basic_arithmetic --size 100 --seed 42 --num-tasks 8 --prm arithmetic \
    --max-tokens 160 --no-log -o "$OUT/basic_arithmetic-smollm2.jsonl"
"$LLENVS" evaluate --env leg_counting --size 100 --seed 42 --num-tasks 4 --prm arithmetic \
    --max-tokens 96 --no-log -o "$OUT/leg_counting-smollm2.jsonl"

# Interventions, as the workbench makes them; each is a new trace that names its parent.
# Task 0 computes -5 * -6 = -30: force the right step in its place.
"$LLENVS" intervene "$OUT/basic_arithmetic-smollm2.jsonl" --trace 1 --at 1 --prm arithmetic \
    --force "-5 * -6 = 30"
# Task 1 divides 965 by 5 and gets 212: feedback after that step.
"$LLENVS" intervene "$OUT/basic_arithmetic-smollm2.jsonl" --trace 2 --at 2 --prm arithmetic \
    --feedback "Check it: 5 * 212 = 1060, not 965. Divide again and give the answer in <answer></answer> tags."
# Task 5: keep the first step and finish the rest in one call.
"$LLENVS" intervene "$OUT/basic_arithmetic-smollm2.jsonl" --trace 6 --at 1 --prm arithmetic \
    --complete
# Leg counting, task 1: force a first step that names each animal's legs.
"$LLENVS" intervene "$OUT/leg_counting-smollm2.jsonl" --trace 2 --at 0 --prm arithmetic \
    --force "Sheep have 4 legs, dogs have 4 legs, and praying mantises have 6 legs. "
# Leg counting, task 0: eight samples from its second segment at temperature 0.8 (a resample set:
# the workbench shows its answer counts and success rate).
"$LLENVS" intervene "$OUT/leg_counting-smollm2.jsonl" --trace 1 --at 1 --prm arithmetic \
    --resample --samples 8 --temperature 0.8 --sampling-seed 0
