"""The workbench's model pool: at most ``max_models()`` loaded, least recently used out.

Four real local model folders (a tiny random-initialised Llama with the embedded model's
tokenizer, copied under four names) are opened in turn through ``load_backend``: at most two
stay alive (counted by weak references after garbage collection), and their memory goes back
(the weights alive are counted; the process's RSS is printed). A model a job holds is never
dropped: the pool goes over its bound and says so until the job ends. A model loaded in the
background (``warm``, as Browse's panel loads the embedded model) is the one a click during that
load waits for, not a second copy.
"""

from __future__ import annotations

import gc
import shutil
import threading
import weakref

import psutil
import pytest

from llenvs.ui.common import load_backend
from llenvs.workbench.files import TRACES_DIR_ENV
from llenvs.workbench.jobs import BackgroundJob, JobQueue
from llenvs.workbench.models import (
    MAX_MODELS_ENV,
    SETTINGS_FILE,
    ModelChoice,
    ModelKind,
    Settings,
    max_models,
    pool_spec,
    save_settings,
    shared_pool,
)


@pytest.fixture(scope="module")
def folders(tmp_path_factory, embedded_backend) -> list[str]:
    """Four folders of one tiny causal LM (about 25 MB of float32 weights each)."""
    from transformers import LlamaConfig, LlamaForCausalLM

    root = tmp_path_factory.mktemp("models")
    tokenizer = embedded_backend.tokenizer
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=1,
        num_attention_heads=2,
        num_key_value_heads=2,
        tie_word_embeddings=False,
    )
    first = root / "model-0"
    LlamaForCausalLM(config).save_pretrained(first)
    tokenizer.save_pretrained(first)
    for n in range(1, 4):
        shutil.copytree(first, root / f"model-{n}")
    return [str(root / f"model-{n}") for n in range(4)]


@pytest.fixture(autouse=True)
def empty_pool(monkeypatch, tmp_path):
    monkeypatch.setenv(TRACES_DIR_ENV, str(tmp_path))  # Settings of an empty folder: default
    monkeypatch.delenv(MAX_MODELS_ENV, raising=False)
    shared_pool().clear()
    yield
    shared_pool().clear()


def _weights(backend) -> int:
    return sum(p.numel() * p.element_size() for p in backend.model.parameters())


def _alive(refs: list[weakref.ref]) -> list:
    gc.collect()
    return [backend for ref in refs if (backend := ref()) is not None]


def test_opening_four_folders_in_turn_keeps_at_most_two_loaded(folders):
    assert max_models() == 2
    process = psutil.Process()
    before = process.memory_info().rss
    refs, most, size = [], 0, 0
    for folder in folders:
        backend = load_backend(ModelChoice(ModelKind.FOLDER, folder))
        size = _weights(backend)
        refs.append(weakref.ref(backend))
        del backend
        most = max(most, len(_alive(refs)))
    alive = _alive(refs)
    after = process.memory_info().rss
    print(
        f"\n4 folders opened: {most} at most alive, weights {size / 2**20:.1f} MiB each, "
        f"{sum(_weights(b) for b in alive) / 2**20:.1f} MiB alive at the end; "
        f"RSS {before / 2**20:.0f} -> {after / 2**20:.0f} MiB"
    )
    assert most == 2 and [b.name for b in alive] == [f"transformers/{f}" for f in folders[2:]]
    assert sum(_weights(b) for b in alive) == 2 * size
    del alive
    shared_pool().clear()
    assert _alive(refs) == []  # dropped models are freed, not merely forgotten


def test_the_same_folder_again_is_the_same_loaded_model(folders):
    choice = ModelChoice(ModelKind.FOLDER, folders[0])
    assert load_backend(choice) is load_backend(choice)
    assert len(shared_pool().loaded()) == 1


class Holding(BackgroundJob):
    """A job on a model, held at its gate until released."""

    def __init__(self, model, queue: JobQueue) -> None:
        self.gate, self.began = threading.Event(), threading.Event()
        super().__init__(name="holding", session="s", queue=queue, model=model)

    def work(self) -> None:
        self.began.set()
        self.gate.wait(60)


def test_a_model_a_job_holds_is_never_dropped_and_goes_when_the_job_ends(folders, monkeypatch):
    held = load_backend(ModelChoice(ModelKind.FOLDER, folders[0]))
    held_ref = weakref.ref(held)
    job = Holding(held, JobQueue(workers=1))
    del held
    assert job.began.wait(60)
    for folder in folders[1:3]:
        load_backend(ModelChoice(ModelKind.FOLDER, folder))
    names = [entry.name for entry in shared_pool().entries()]
    assert names == [f"transformers/{folders[0]}", f"transformers/{folders[2]}"]
    assert shared_pool().entries()[0].in_use

    monkeypatch.setenv(MAX_MODELS_ENV, "1")
    load_backend(ModelChoice(ModelKind.FOLDER, folders[3]))  # all but the new one held: over
    assert shared_pool().over_bound(1) and len(shared_pool().loaded()) == 2
    assert _alive([held_ref])

    job.gate.set()
    assert job.wait(60)
    assert [entry.name for entry in shared_pool().entries()] == [f"transformers/{folders[3]}"]
    assert _alive([held_ref]) == []  # dropped and freed: the ended job let it go too


def test_a_bad_bound_is_refused_with_the_valid_range(monkeypatch):
    monkeypatch.setenv(MAX_MODELS_ENV, "abc")
    with pytest.raises(ValueError, match=r"LLENVS_MAX_MODELS must be .* from 1 to 16, got 'abc'"):
        load_backend(ModelChoice(ModelKind.EMBEDDED))
    monkeypatch.setenv(MAX_MODELS_ENV, "0")
    with pytest.raises(ValueError, match="from 1 to 16, got '0'"):
        max_models()
    with pytest.raises(ValueError, match="max_models must be a whole number from 1 to 16"):
        Settings(max_models=17)


def test_the_bound_comes_from_settings_unless_the_variable_is_set(tmp_path, monkeypatch):
    save_settings(tmp_path, Settings(max_models=3))
    assert (tmp_path / SETTINGS_FILE).is_file() and max_models() == 3
    monkeypatch.setenv(MAX_MODELS_ENV, "5")
    assert max_models() == 5


def test_a_recorded_precision_and_the_default_are_one_pool_entry():
    """Browse's *Run again* asks for the trace's recorded float32; the panel for the default."""
    from llenvs.core.run_spec import ModelSpec
    from llenvs.workbench.models import ModelChoice, ModelKind

    recorded = ModelChoice.of_spec(ModelSpec.parse("transformers", dtype="float32"))
    assert pool_spec(recorded) == pool_spec(ModelChoice(ModelKind.EMBEDDED))
    assert pool_spec(ModelChoice.of_spec(ModelSpec.parse("transformers", dtype="bfloat16"))) != (
        pool_spec(ModelChoice(ModelKind.EMBEDDED))
    )
