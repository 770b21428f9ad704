"""Converting a GGUF: the reader against gguf's own, and the embedded model's folder against the
folder transformers' own GGUF loading gives (the conversion before it was read once).

The slow test converts the embedded GGUF into an empty cache both ways and compares every file
byte for byte, then greedy generations (token ids exact, log-probabilities within
``FLOAT_TOLERANCE``) and the teacher-forced scores of a text.
"""

from __future__ import annotations

from pathlib import Path

import gguf
import numpy as np
import pytest

from llenvs.core import GenerationRequest, Message, Prompt, SamplingParams
from llenvs.core.errors import BackendError
from llenvs.inference._backends.gguf_folder import llama_config, read_gguf
from tests.floats import assert_same_generations, close

Q = gguf.GGMLQuantizationType


@pytest.fixture
def small_gguf(tmp_path) -> tuple[Path, dict[str, np.ndarray]]:
    """A small GGUF written by gguf's own writer: one float32 and two quantised tensors."""
    rng = np.random.default_rng(0)
    weights = {
        "token_embd.weight": rng.standard_normal((4, 64)).astype(np.float32),
        "blk.0.attn_q.weight": rng.standard_normal((8, 64)).astype(np.float32),
        "blk.0.attn_k.weight": rng.standard_normal((2, 3, 64)).astype(np.float32),
    }
    path = tmp_path / "small.gguf"
    writer = gguf.GGUFWriter(str(path), "llama")
    writer.add_block_count(1)
    writer.add_string("general.name", "small")
    writer.add_array("tokenizer.ggml.tokens", ["a", "b", "c"])
    writer.add_array("llama.some_counts", [3, 1, 2])
    writer.add_float32("llama.rope.freq_base", 10000.0)
    writer.add_tensor("token_embd.weight", weights["token_embd.weight"])
    for name, kind in (("blk.0.attn_q.weight", Q.Q8_0), ("blk.0.attn_k.weight", Q.Q4_1)):
        writer.add_tensor(name, gguf.quants.quantize(weights[name], kind), raw_dtype=kind)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path, weights


def test_the_reader_reads_what_ggufs_own_reader_reads(small_gguf):
    path, weights = small_gguf
    found = read_gguf(path)
    assert found.metadata["general.name"] == "small"
    assert found.metadata["tokenizer.ggml.tokens"] == 3  # an array of strings: its length
    assert found.metadata["llama.some_counts"] == [3, 1, 2]
    assert found.metadata["llama.rope.freq_base"] == 10000.0
    assert [t.name for t in found.tensors] == list(weights)
    theirs = {t.name: t for t in gguf.GGUFReader(path).tensors}
    for tensor in found.tensors:
        mine = found.tensor(tensor)
        assert mine.shape == weights[tensor.name].shape
        assert mine.dtype == np.float32 and mine.flags.writeable
        expected = gguf.dequantize(theirs[tensor.name].data, theirs[tensor.name].tensor_type)
        assert np.array_equal(mine, expected.reshape(mine.shape)), tensor.name
    assert np.array_equal(found.tensor(found.tensors[0]), weights["token_embd.weight"])


def test_a_file_that_is_not_gguf_is_named(tmp_path, small_gguf):
    text = tmp_path / "model.gguf"
    text.write_text("not a model\n", encoding="utf-8")
    with pytest.raises(BackendError, match=r"model\.gguf is not a GGUF file"):
        read_gguf(text)
    cut = tmp_path / "cut.gguf"
    cut.write_bytes(small_gguf[0].read_bytes()[:100])
    with pytest.raises(BackendError, match=r"cut\.gguf is not a readable GGUF file"):
        read_gguf(cut)


def test_only_a_llama_gguf_is_converted(tmp_path):
    path = tmp_path / "phi.gguf"
    writer = gguf.GGUFWriter(str(path), "phi3")
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    with pytest.raises(BackendError, match="holds a 'phi3' model; only llama is converted"):
        llama_config(read_gguf(path))


def _transformers_folder(source: Path, folder: Path) -> None:
    """The folder transformers' own GGUF loading gives: what the conversion did before."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    loaded = AutoModelForCausalLM.from_pretrained(str(source.parent), gguf_file=source.name)
    tokenizer = AutoTokenizer.from_pretrained(str(source.parent), gguf_file=source.name)
    config = loaded.config
    del config.quantization_config
    model = AutoModelForCausalLM.from_config(config)
    model.load_state_dict(loaded.state_dict(), strict=False)
    model.save_pretrained(str(folder))
    tokenizer.save_pretrained(str(folder))


@pytest.mark.slow
def test_the_embedded_folder_is_the_one_transformers_gives(tmp_path, monkeypatch):
    from llenvs.inference._backends.embedded_model import embedded_model_path, find_embedded_gguf
    from llenvs.inference._backends.transformers_loading import load_backend

    source = find_embedded_gguf()
    monkeypatch.setenv("LLENVS_CACHE_DIR", str(tmp_path / "cache"))
    ours = embedded_model_path(progress=False)  # an empty cache: converts
    assert ours.parent == tmp_path / "cache" / "models"
    theirs = tmp_path / "transformers"
    _transformers_folder(source, theirs)

    files = sorted(p.name for p in theirs.iterdir())
    assert files == sorted(p.name for p in ours.iterdir() if p.name != "llenvs_source.json")
    for name in files:
        assert (ours / name).read_bytes() == (theirs / name).read_bytes(), name

    mine = load_backend(ours, name="ours", progress=False)
    reference = load_backend(theirs, name="theirs", progress=False)
    prompt = Prompt((Message("user", "How many legs do 3 dogs have? Think step by step."),))
    requests = [GenerationRequest(prompt, SamplingParams(temperature=0.0, logprobs=True), 24)]
    assert_same_generations(mine.generate(requests), reference.generate(requests))
    text = [(prompt, "Each dog has 4 legs, so 3 dogs have 12 legs.")]
    assert mine.capabilities.score is not None and reference.capabilities.score is not None
    [got], [want] = mine.capabilities.score(text), reference.capabilities.score(text)
    assert got.token_ids == want.token_ids
    assert list(got.logprobs) == close(list(want.logprobs))
