"""The openai backend under faults: 429 and 5xx retried to the same result, keys never shown."""

from __future__ import annotations

import pytest

from llenvs.core import SamplingParams, SegmentedEnvironment, SentenceSegmenter
from llenvs.core.errors import PermanentBackendError
from llenvs.core.registry import environment_registry
from llenvs.evaluation import RetryPolicy, SegmentedTrajectoryRunner
from llenvs.inference import HTTPOptions, get_backend
from llenvs.inference._backends.embedded_model import embedded_model_path
from tests.inference.failing_proxy import FailingProxy
from tests.inference.test_openai_backend import QUESTIONS, _request

pytestmark = pytest.mark.vllm

TASKS = [0, 1, 2, 3]


def _backend(base_url, **options):
    folder = str(embedded_model_path(progress=False))
    return get_backend("openai/smollm2", base_url=base_url, tokenizer=folder, **options)


def _texts(backend):
    base = environment_registry.get(name="leg_counting", adapter="reasoning_gym", size=10, seed=42)
    env = SegmentedEnvironment(base, SentenceSegmenter())
    runner = SegmentedTrajectoryRunner(env, backend, SamplingParams(max_tokens=24))
    results = runner.run_batch(TASKS)
    assert all(r.error is None for r in results), [r.error for r in results]
    return [[t.action.text for t in r.trajectory] for r in results]


@pytest.mark.parametrize("retrier", ["sdk", "policy"])
def test_429_and_5xx_are_retried_and_the_result_equals_a_clean_run(vllm_server, retrier):
    clean = _backend(vllm_server.base_url)
    expected = _texts(clean)
    clean.close()
    # the probe is request 1; each trajectory is then one streamed request (5 requests in all
    # when nothing fails), so request 7 is met whatever order the threads send theirs
    failures = {2: 429, 3: 500, 5: 503, 7: 429}
    with FailingProxy(vllm_server.base_url, failures) as proxy:
        # more tries than failures: one request may meet every failure, in any order
        options = (
            {
                "retry": RetryPolicy(attempts=6, backoff_s=0.01, jitter=0.5),
                "http": HTTPOptions(max_retries=0),
            }
            if retrier == "policy"
            else {"http": HTTPOptions(max_retries=5)}
        )
        backend = _backend(proxy.base_url, **options)
        assert _texts(backend) == expected
        backend.close()
    assert sorted(proxy.failed) == [429, 429, 500, 503]


def test_a_401_is_permanent_and_the_key_is_not_in_the_error(vllm_server, monkeypatch):
    secret = "sk-never-shown-0042"
    monkeypatch.setenv("LLENVS_TEST_KEY", secret)
    with FailingProxy(vllm_server.base_url, {1: 401, 2: 401}) as proxy:
        backend = _backend(proxy.base_url, api_key_env="LLENVS_TEST_KEY", token_ids=True)
        with pytest.raises(PermanentBackendError) as caught:
            backend.generate([_request(QUESTIONS[0], max_tokens=4)])
        backend.close()
    message = str(caught.value)
    assert "HTTP 401" in message and proxy.base_url in message
    assert secret not in message and secret not in repr(caught.value)
    assert caught.value.__cause__ is None and caught.value.__suppress_context__
