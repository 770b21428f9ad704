"""One token budget for a trace that records no sampling: the library, the CLI and the workbench.

Issue 25: ``SamplingParams.max_tokens`` was 1024 while the CLI and the workbench's other panels
said 256, so a resample of such a trace got 1024 tokens from the library and the intervention
panel but 256 from ``llenvs intervene``.
"""

from __future__ import annotations

from dataclasses import replace

from llenvs.cli import _intervene_command as intervene_command
from llenvs.cli.main import main
from llenvs.core import DEFAULT_MAX_TOKENS, BackendCapabilities, Resample
from llenvs.evaluation import BranchRequest, intervene
from llenvs.inference import get_backend
from llenvs.traces import read_branches, read_traces, write_traces
from llenvs.ui.browse import _intervention_panel as intervention_panel
from tests.app.test_intervention import RIGHT, _open, _responses, folder, generate

__all__ = ["folder"]  # the fixture, shared with test_intervention


class Recording:
    """A backend that passes every request on and keeps each one's sampling budget."""

    def __init__(self, inner):
        self.inner = inner
        self.name = inner.name
        self.capabilities = BackendCapabilities()
        self.budgets: list[int] = []

    def generate(self, requests):
        self.budgets += [request.params.max_tokens for request in requests]
        return self.inner.generate(requests)


def _recorded(folder):
    return [child.run.spec.sampling.max_tokens for child in read_branches(folder / "lc.jsonl")]


def test_a_resample_of_a_trace_without_sampling_gets_one_budget_everywhere(
    folder, tmp_path, monkeypatch
):
    path = folder / "lc.jsonl"
    [parent] = read_traces(path)
    assert parent.run.spec.sampling is None  # a replay: nothing was sampled

    library = Recording(get_backend("scripted", outputs=[RIGHT]))
    intervene(path, BranchRequest(parent, 1, Resample()), library)

    cli = Recording(get_backend("scripted", outputs=[RIGHT]))
    monkeypatch.setattr(intervene_command, "recorded_backend", lambda *a, **k: cli)
    assert main(["intervene", str(path), "--at", "1", "--resample", "--no-progress"]) == 0

    panel = Recording(get_backend("scripted", outputs=[RIGHT]))
    monkeypatch.setattr(intervention_panel, "load_backend", lambda choice, key=None: panel)
    at = _open(folder, 1, _responses(tmp_path, RIGHT))
    at.radio(key="iv-action").set_value("Resample").run()
    generate(at)
    assert not at.exception

    budgets = {
        name: set(b.budgets)
        for name, b in [("library", library), ("cli", cli), ("workbench", panel)]
    }
    assert budgets == {key: {DEFAULT_MAX_TOKENS} for key in budgets}, budgets
    assert _recorded(folder) == [DEFAULT_MAX_TOKENS] * 3  # and each branch records it


def test_the_panel_turns_generate_off_for_a_trace_with_an_unknown_sampling_key(folder, tmp_path):
    path = folder / "lc.jsonl"
    [parent] = read_traces(path)
    odd = {"max_tokens": 64, "temperature": 0.7, "min_p": 0.05}  # a newer llenvs' record
    run = replace(
        parent.run,
        spec=replace(parent.run.spec, sampling=None),
        unknown={
            "sampling_params": odd  # as the reader keeps what SamplingParams refuses
        },
    )
    write_traces(path, [replace(parent, run=run)])
    at = _open(folder, 1, _responses(tmp_path, RIGHT))
    at.radio(key="iv-action").set_value("Resample").run()
    assert not at.exception
    assert any("min_p" in w.value and parent.trace_id in w.value for w in at.warning)
    assert at.button(key="iv-run").disabled
