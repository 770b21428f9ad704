"""An aligned diff reads the MiniLM vectors the meaning index holds instead of embedding again."""

from __future__ import annotations

import json

import numpy as np
import pytest

from llenvs.analysis.instruments import MiniLMSimilarity, align_traces
from llenvs.cli.main import main
from llenvs.traces import write_traces
from llenvs.workbench.search import StoredSimilarity, build_meaning_index, stored_vectors
from tests.helpers import leg_counting_trace

A = "Sheep have 4 legs. The farm has two sheep. Cows moo at dawn. So 8 legs. <answer>8</answer>"
B = "Sheep have 4 legs. There are 2 sheep on the farm. So 8 legs. <answer>8</answer>"


def test_no_meaning_index_means_no_stored_vectors_and_nothing_is_created(tmp_path):
    path = tmp_path / "t.jsonl"
    write_traces(path, [leg_counting_trace(A)])
    assert stored_vectors(path, 1) == {}
    assert not (tmp_path / ".llenvs-search").exists()


@pytest.mark.slow  # MiniLM embeds the folder
def test_the_stored_vectors_pair_the_steps_as_the_model_does(tmp_path, capsys):
    a, b = leg_counting_trace(A), leg_counting_trace(B)
    path = tmp_path / "t.jsonl"
    write_traces(path, [a, b])
    build_meaning_index([tmp_path])
    vectors = {**stored_vectors(path, 1), **stored_vectors(path, 2)}
    texts, others = [s.text for s in a.segments], [s.text for s in b.segments]
    assert set(vectors) == set(texts) | set(others)
    stored, fresh = StoredSimilarity(vectors), MiniLMSimilarity()
    assert np.allclose(stored.table(texts, others), fresh.table(texts, others), atol=0.02)
    assert stored.embedded_now == 0  # every text read from the index
    paired = [(s.op, s.a, s.b, s.method) for s in align_traces(a, b, stored).ops]
    assert paired == [(s.op, s.a, s.b, s.method) for s in align_traces(a, b, fresh).ops]
    assert ("changed", 1, 1, "all-MiniLM-L6-v2") in [(op.value, x, y, m) for op, x, y, m in paired]
    assert main(["diff", f"{path}:1", f"{path}:2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [(o["op"], o["a"], o["b"]) for o in out["ops"]] == [
        (op.value, x, y) for op, x, y, _ in paired
    ]
