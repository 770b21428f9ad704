"""The documentation of the analysis sidecar and the experiment file, rendered from the code.

``docs/sidecars.md`` is this module's output (a test keeps it up to date); regenerate it with
``python -m llenvs.experiments._sidecar_doc > docs/sidecars.md``. Each kind of line is shown by an
example written by the library's own writer, then its fields: every record's table is rendered
from its declaration (``llenvs.core.record_schema``, by ``llenvs.traces.record_table``).

Example:
    >>> "| `boundary` |" in sidecar_markdown()
    True

"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from llenvs.adapters import ANSWER_OPEN
from llenvs.analysis import analysis_key, forced_answer_key
from llenvs.analysis.sampling import AnalysisParams, ForcedAnswer, Rollout, rollout_seed
from llenvs.analysis.sidecar import (
    ANALYSIS_SCHEMA_VERSION,
    ContentFound,
    ContentReturn,
    PublishedTally,
    PublishedValues,
    SegmenterValues,
    SidecarLine,
    analysis_path,
    append_content,
    append_forced_answers,
    append_published,
    append_returns,
    append_rollouts,
    append_segmenter_values,
    returns_key,
)
from llenvs.core import Force, SamplingParams, record_dict
from llenvs.experiments._branch_outcome import BranchOutcome
from llenvs.experiments._experiment_file import EXPERIMENT_VERSION, ExperimentHeader
from llenvs.experiments._how import How, SubstituteHow
from llenvs.experiments._parent_filter import ParentFilter, ParentOutcome
from llenvs.experiments._recipe import Recipe
from llenvs.experiments._where import WHERE_RULES, RelativePositions
from llenvs.traces import record_table

__all__ = ["EXAMPLES", "RECORDS", "sidecar_markdown"]

PARAMS = AnalysisParams(temperature=0.6, top_p=0.95, max_tokens=512, seed=0)
"""The example analysis: its key is what the example rollouts were made under."""

ROLLOUT = Rollout(
    3, 0, rollout_seed(0, 3, 0), True, "12", 41, " So 12 legs in all. <answer>12</answer>"
)
FORCED = ForcedAnswer(3, "12", True, "12</answer>")
RETURN = ContentReturn(3, 0, 0.912345, 1)
CUTS = (
    SegmenterValues("sentence", (0, 19, 46, 73), (0.25, 0.25, 0.875, 1.0), 24, 310),
    SegmenterValues("line:\\n\\n", (0, 46, 73), (0.25, 0.875, 1.0), 16, 205),
)
PUBLISHED = PublishedValues(
    "thought-anchors",
    "Thought Anchors (Bogdan et al., 2025), imported",
    "deepseek-r1-distill-qwen-14b",
    (PublishedTally(0, 61, 100, inferred=False), PublishedTally(1, 58, 100, inferred=False)),
    {"counterfactual_importance_accuracy": (0.03, -0.12)},
    {"temperature": 0.6, "top_p": 0.95},
)
RECIPE = Recipe("hint", ParentFilter(limit=5), RelativePositions((0.25, 0.5)), Force("Wait."))
HEADER = ExperimentHeader(RECIPE, "runs.jsonl", "5f0c2a9e41b7d386", "2026-12-06T20:00:00+00:00")
OUTCOME = BranchOutcome("a1b2c3", 4, 2, 2, 8, 0, 0, "d4e5f6", True, "12", False, "10", 0.71)

FOUND = ContentFound(1, 0, (1, 3))

RECORDS: tuple[tuple[str, type], ...] = (
    ("Every line of the analysis sidecar begins with: SidecarLine", SidecarLine),
    ('`rollouts[]` of a `"rollouts"` line (beside its `round`): Rollout', Rollout),
    ('`answers[]` of a `"forced_answers"` line: ForcedAnswer', ForcedAnswer),
    ('`published` of a `"published"` line: PublishedValues', PublishedValues),
    ("`published.tallies[]`: PublishedTally", PublishedTally),
    ('`returns[]` of a `"returns"` line: ContentReturn', ContentReturn),
    ('`segmenters[]` of a `"segmenters"` line: SegmenterValues', SegmenterValues),
    ('`found[]` of a `"content"` line: ContentFound', ContentFound),
    ("Line 1 of an experiment file: ExperimentHeader", ExperimentHeader),
    ("`recipe`: Recipe", Recipe),
    ("`recipe.parents`: ParentFilter (a field that is null is absent)", ParentFilter),
    ("`recipe.how`: How (a field that is null or 0 is absent)", How),
    ("`recipe.how.substitute`: SubstituteHow (substitutes instead of forced text)", SubstituteHow),
    ('Each later line, `"kind": "branch"`: BranchOutcome', BranchOutcome),
)
"""The records documented, in order, with their headings."""

EXAMPLES: dict[type, dict[str, Any]] = {
    Rollout: record_dict(ROLLOUT),
    ContentFound: record_dict(FOUND),
    ForcedAnswer: record_dict(FORCED),
    SidecarLine: record_dict(SidecarLine(kind="rollouts", trace_id="a1b2c3", key={})),
    PublishedValues: record_dict(PUBLISHED),
    PublishedTally: record_dict(PUBLISHED.tallies[0]),
    ContentReturn: record_dict(RETURN),
    SegmenterValues: record_dict(CUTS[0]),
    ExperimentHeader: record_dict(HEADER),
    Recipe: record_dict(RECIPE),
    ParentFilter: record_dict(ParentFilter("leg_counting", ParentOutcome.FAILED, (1, 2), 5)),
    How: record_dict(
        How(2, 0, "embedded", SamplingParams(), 256, on_policy=16, substitute=SubstituteHow())
    ),
    SubstituteHow: record_dict(SubstituteHow(8, 0.8, 1.0, "minilm")),
    BranchOutcome: record_dict(OUTCOME),
}
"""Each record as its writer stores it (a test checks that the tables name exactly these keys)."""

INTRO = """\
# Sidecar formats: the analysis sidecar and the experiment file

Generated by `python -m llenvs.experiments._sidecar_doc > docs/sidecars.md`; do not edit by
hand. The trace file itself is in [traces.md](traces.md); which file sits beside which is in
[architecture.md](architecture.md#files).

Both files are JSON Lines, written under the rules of trace files (one whole line appended
atomically under the file's lock; a torn last line is skipped with a warning naming file and
line).

## The analysis sidecar `X.analysis.jsonl`

Schema version {analysis_version}. `llenvs analyze`, the step-values panel and
`analyze_trace(..., store=analysis_path(trace_file))` keep their results next to the trace file:
`runs.jsonl` gets `runs.analysis.jsonl`; `llenvs import thought-anchors` adds a study's published
values. Every line holds `schema_version`, `kind`, `trace_id` and `key`, then the body of its
kind; only lines with the same key are read back together. The key of rollouts is the model
(the backend's name) and the sampling fields (`temperature`, `top_p`, `max_tokens` per rollout,
the run `seed`): budget, width and schedule are not in it, so a rerun with a larger budget
extends the stored rounds, and a run under another key never mixes with them. A `"rollouts"`
line is one round (`round`, 0-based); a rollout's `number` is never reused, so a resumed run
adds new ones. The key of forced answers is the model, the forced `opening` and
`forced_answer_tokens` (greedy decoding); a trace's curve is the last such line of its key. The
key of published values is the study, its model and its stated sampling; the last line of a key
wins. A `"returns"` line says, for rollouts of a key, whether the content of the step each one
replaced came back in it (`llenvs analyze --returns`, the panel's "Only rollouts where the
content did not return"); its key is the rollouts' key with the `similarity` that compared
them (`all-MiniLM-L6-v2` or `lexical`) and the `return_threshold`; the last finding of a
rollout wins. A `"segmenters"` line holds the step values of the trace under several
segmenters, on the characters of its response (`llenvs analyze --segmenters`, Compare
segmenters); its key is the rollouts' key with the `segmenters` compared; each cut's rollouts
are stored under the cut's own id (derived from the trace's and the segmenter). A `"content"`
line says, for rollouts of a key, which steps at or after each one's boundary it said again
(`llenvs analyze --matrix`, the step-to-step matrix), under the same key as `"returns"` lines;
the last finding of a rollout wins. A malformed
line is an `AnalysisFileError` naming the file and the line.

{analysis_examples}

## The experiment file `X-NAME.experiment.jsonl`

Layout version {experiment_version}. Line 1 is the header: the recipe verbatim, the parents'
file (relative to the experiment's folder) and a random id written into each branch's
metadata. Each later line is one finished branch, appended as it ends; a rerun of the same
recipe on the same parents skips the branches recorded (the first record of a branch wins),
and a file made by another recipe is refused. A malformed header is an `ExperimentError`
naming file and line 1; a malformed later line is skipped with a warning naming it. The
branch traces themselves go to the parents' `X.branches.jsonl`, as every intervention's do.

{experiment_examples}
"""


def _analysis_lines() -> list[str]:
    with tempfile.TemporaryDirectory() as folder:
        path = analysis_path(Path(folder) / "runs.jsonl")
        append_rollouts(path, "a1b2c3", analysis_key("embedded", PARAMS), 0, [ROLLOUT])
        forced_key = forced_answer_key("embedded", PARAMS, ANSWER_OPEN)
        append_forced_answers(path, "a1b2c3", forced_key, [FORCED])
        append_published(path, "a1b2c3", PUBLISHED)
        key = returns_key(analysis_key("embedded", PARAMS), "all-MiniLM-L6-v2", 0.8)
        append_returns(path, "a1b2c3", key, [RETURN])
        cuts_key = {**analysis_key("embedded", PARAMS), "segmenters": [c.spec for c in CUTS]}
        append_segmenter_values(path, "a1b2c3", cuts_key, CUTS)
        append_content(path, "a1b2c3", key, [FOUND])
        return path.read_text(encoding="utf-8").splitlines()


def _example(title: str, record: dict[str, Any]) -> list[str]:
    text = json.dumps(record, ensure_ascii=False, indent=2)
    return [f"{title}:", "", "```json", text, "```", ""]


def _where_table() -> list[str]:
    """Every rule's fields, each rule's rows led by its ``rule`` and what it picks."""
    lines = ["| `rule` | picks | field | JSON type | description |", "|---|---|---|---|---|"]
    for rule in WHERE_RULES:
        picks = (rule.__doc__ or "").strip().splitlines()[0].replace("|", "\\|")
        rows = [row for row in record_table(rule)[2:] if not row.startswith("| `rule` |")]
        for row in rows or ["| — | | |"]:
            lines.append(f"| `{rule.rule}` | {picks} {row}")
    return lines


def sidecar_markdown() -> str:
    """The markdown of ``docs/sidecars.md``: an example of every kind of line, then the tables.

    Example:
        >>> sidecar_markdown().startswith("# Sidecar formats")
        True

    """
    lines = [json.loads(line) for line in _analysis_lines()]
    rollouts, forced, published, returns, segmenters, content = lines
    analysis = [
        *_example('A round of rollouts (`"kind": "rollouts"`)', rollouts),
        *_example('A forced-answer curve (`"kind": "forced_answers"`)', forced),
        *_example('A study\'s published step values (`"kind": "published"`)', published),
        *_example('Whether resampled content came back (`"kind": "returns"`)', returns),
        *_example('Step values under several segmenters (`"kind": "segmenters"`)', segmenters),
        *_example('Which later steps\' content rollouts said (`"kind": "content"`)', content),
    ]
    experiment = [
        *_example("Line 1, the header", EXAMPLES[ExperimentHeader]),
        *_example('A finished branch (`"kind": "branch"`)', EXAMPLES[BranchOutcome]),
    ]
    lines = [
        INTRO.format(
            analysis_version=ANALYSIS_SCHEMA_VERSION,
            experiment_version=EXPERIMENT_VERSION,
            analysis_examples="\n".join(analysis).rstrip(),
            experiment_examples="\n".join(experiment).rstrip(),
        ),
        "## Fields",
        "",
    ]
    for heading, record in RECORDS:
        lines += [f"### {heading}", "", *record_table(record), ""]
    lines += ["### `recipe.where`: one rule, `rule` and its fields", "", *_where_table(), ""]
    lines += [
        "`recipe.what` is an intervention as a branch records it (`kind`, `text`, and a "
        "resample's fields: [traces.md](traces.md)); its texts are templates, filled per parent.",
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    print(sidecar_markdown(), end="")
