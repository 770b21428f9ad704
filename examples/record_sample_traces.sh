#!/usr/bin/env bash
# Records sample_traces/ with the project's own CLI and the embedded SmolLM2-135M-Instruct
# (greedy, so a rerun gives the same text), every step scored by the arithmetic PRM (recorded in
# each trace's run.prm), and, where a response ends without an answer, the answer opening
# (--answer-opening forces "\n\nFinal answer: <answer>" as a segment flagged forced, and the
# model completes it):
# - basic_arithmetic and leg_counting at their default options, as they come (the model never
#   succeeds on them);
# - products, number_format and letter_counting with easy options: there the model succeeds on
#   16 of 42 tasks (4/14, 6/14, 6/14);
# then interventions on them, appended to the branches sidecars, and step values of one trace.
# The first two evaluations and their five interventions took 15 min on 2 CPU cores shared with
# other jobs (load average about 6).
set -euo pipefail
cd "$(dirname "$0")/.."
LLENVS=.venv/bin/llenvs
OUT=sample_traces
rm -f "$OUT"/*-smollm2*.jsonl  # examples/import_thought_anchors.sh writes the others

"$LLENVS" evaluate --env basic_arithmetic --size 100 --seed 42 --num-tasks 8 --prm arithmetic \
    --max-tokens 160 --answer-opening --no-log -o "$OUT/basic_arithmetic-smollm2.jsonl"
"$LLENVS" evaluate --env leg_counting --size 100 --seed 42 --num-tasks 4 --prm arithmetic \
    --max-tokens 96 --answer-opening --no-log -o "$OUT/leg_counting-smollm2.jsonl"

# Interventions, as the workbench makes them; each is a new trace that names its parent.
# Task 0 computes -5 * -6 = -30 and answers -30: force the right step in its place (it then
# answers 30, a success).
"$LLENVS" intervene "$OUT/basic_arithmetic-smollm2.jsonl" --trace 1 --at 1 --prm arithmetic \
    --force "-5 * -6 = 30"
# Task 5: keep the first step and finish the rest in one call.
"$LLENVS" intervene "$OUT/basic_arithmetic-smollm2.jsonl" --trace 6 --at 1 --prm arithmetic \
    --complete
# Task 1 divides 965 by 5 and gets 21 (segment 3): feedback after that step.
"$LLENVS" intervene "$OUT/basic_arithmetic-smollm2.jsonl" --trace 2 --at 4 --prm arithmetic \
    --feedback "Check it: 5 * 21 = 105, not 965. Divide again and give the answer in <answer></answer> tags."
# Leg counting, task 1: force a first step that names each animal's legs.
"$LLENVS" intervene "$OUT/leg_counting-smollm2.jsonl" --trace 2 --at 0 --prm arithmetic \
    --force "Sheep have 4 legs, dogs have 4 legs, and praying mantises have 6 legs. "
# Leg counting, task 0: eight samples from its second segment at temperature 0.8 (a resample set:
# the workbench shows its answer counts and success rate).
"$LLENVS" intervene "$OUT/leg_counting-smollm2.jsonl" --trace 1 --at 1 --prm arithmetic \
    --resample --samples 8 --temperature 0.8 --sampling-seed 0

# Easy options, where a 135M model both succeeds and fails: products of two one-digit numbers,
# the larger of two numbers written in different formats, a letter in one to three words.
"$LLENVS" evaluate --env products --size 100 --seed 42 --option min_terms=2 --option max_terms=2 \
    --option min_digits=1 --option max_digits=1 --num-tasks 14 --prm arithmetic \
    --max-tokens 80 --answer-opening --no-log -o "$OUT/products-smollm2.jsonl"
"$LLENVS" evaluate --env number_format --size 100 --seed 42 --option min_num_candidates=2 \
    --option max_num_candidates=2 --num-tasks 14 --prm arithmetic \
    --max-tokens 80 --answer-opening --no-log -o "$OUT/number_format-smollm2.jsonl"
"$LLENVS" evaluate --env letter_counting --size 100 --seed 42 --option min_words=1 \
    --option max_words=3 --num-tasks 14 --prm arithmetic \
    --max-tokens 80 --answer-opening --no-log -o "$OUT/letter_counting-smollm2.jsonl"

# Interventions that turn a failure into a success, or the reverse (the branches open a missing
# answer as their parent did, and are scored by the parent's PRM, as its run records).
# Letter counting, line 14 (answer 2; the model said 1): force its first sentence to say 2.
"$LLENVS" intervene "$OUT/letter_counting-smollm2.jsonl" --trace 14 --at 0 \
    --force "The answer to this question is 2."
# Line 10 (answer 1, which the model gave): the same forced sentence makes it fail.
"$LLENVS" intervene "$OUT/letter_counting-smollm2.jsonl" --trace 10 --at 0 \
    --force "The answer to this question is 2."
# Products, line 1 (4 * 3 = 12, right): a wrong first line, 4 * 3 = 7; the model recovers.
"$LLENVS" intervene "$OUT/products-smollm2.jsonl" --trace 1 --at 0 --force $'1. 4 * 3 = 7\n'
# Line 9 (5 * 3; the model went on to 15 * 3 = 45): feedback after its fourth line.
"$LLENVS" intervene "$OUT/products-smollm2.jsonl" --trace 9 --at 4 \
    --feedback "The question asks for 5 * 3 only. Give that product in <answer></answer> tags."
# Line 12 (8 * 7, the model says 54): forcing 8 * 7 = 56 does not hold; it goes back to 54.
"$LLENVS" intervene "$OUT/products-smollm2.jsonl" --trace 12 --at 0 --force $'1. 8 * 7 = 56\n'
# Line 2 (2 * 7): eight samples from its first segment at temperature 0.8 (a resample set).
"$LLENVS" intervene "$OUT/products-smollm2.jsonl" --trace 2 --at 0 \
    --resample --samples 8 --temperature 0.8 --sampling-seed 0
# Step values of products line 1 (the workbench's Step values panel reads them): 48 rollouts at
# temperature 0.7 from before every segment, and the forced-answer curve.
"$LLENVS" analyze "$OUT/products-smollm2.jsonl" --trace 1 --budget 48 --forced-answer
# The same trace under three segmenters (Compare segmenters and `--segmenters --budget 0` read
# it): 32 rollouts per cut, on the characters of the response.
"$LLENVS" analyze "$OUT/products-smollm2.jsonl" --trace 1 --segmenters steps sentence token:16 \
    --budget 32
