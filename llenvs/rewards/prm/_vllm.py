"""``VllmPRM``: a process reward model served by vLLM, one HTTP request per trace.

vLLM serves a ``Qwen2ForProcessRewardModel`` checkpoint (Qwen2.5-Math-PRM) with
``vllm serve <folder> --runner pooling``; its pooling API (``POST /pooling``, beside ``/v1``)
takes the chat in the ``QwenMathPRM`` convention (the system prompt, the question, the steps each
followed by the separator ``<extra_0>``), applies the model's chat template, and returns, for
every separator token, the softmax of the 2-class head. A step's score is its row's positive
class, as ``TransformersPRM`` reads it in-process. The server must know the separator's id:
vLLM defaults to 151651 (Qwen's ``<extra_0>``); another tokenizer needs
``--pooler-config '{"step_tag_id": <id>}'``.

Many traces are in flight at once (``max_in_flight`` threads; vLLM batches them). Only the
standard library is used (``urllib``). Errors name the model and the endpoint.

Example:
    >>> prm = VllmPRM("Qwen2.5-Math-PRM-7B", "http://127.0.0.1:8000/v1")
    >>> prm.endpoint
    'http://127.0.0.1:8000/pooling'
    >>> prm.score_steps("2 + 2?", [])
    []

"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from llenvs.core.errors import BackendError, PermanentBackendError
from llenvs.rewards.prm._contract import Trace
from llenvs.rewards.prm._conventions import PRMConvention, QwenMathPRM, convention_from_name

__all__ = ["DEFAULT_BASE_URL", "PRM_BASE_URL_ENV", "VllmPRM"]

DEFAULT_BASE_URL = "http://127.0.0.1:8000/v1"
"""Where ``vllm serve`` listens unless told otherwise."""

PRM_BASE_URL_ENV = "LLENVS_PRM_BASE_URL"
"""An environment variable a user may set to name the server when no ``base_url`` is given
(``DEFAULT_BASE_URL`` without it). llenvs only reads it: ``--prm-base-url`` and the workbench
pass ``base_url`` to the PRM itself."""


class VllmPRM:
    """A PRM behind vLLM's pooling API, read in the ``qwen2.5-math-prm`` convention.

    Arguments:
        model: the served model's name (``--served-model-name``, else its path).
        base_url: the server's URL, with or without the OpenAI ``/v1`` suffix (default:
            ``$LLENVS_PRM_BASE_URL``, else ``DEFAULT_BASE_URL``).
        convention: a ``QwenMathPRM`` or its name (the only convention vLLM serves as a
            process reward model).
        max_in_flight: how many traces ``score_traces`` sends at once.
        timeout_s: seconds one request may take.

    Example:
        >>> VllmPRM("m", "http://h:8000/v1", convention="math-shepherd")
        Traceback (most recent call last):
        ...
        ValueError: VllmPRM reads the qwen2.5-math-prm convention (vLLM's Qwen2ForProcessRewardModel), got 'math-shepherd'

    """  # noqa: E501

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        *,
        convention: PRMConvention | str = "qwen2.5-math-prm",
        max_in_flight: int = 8,
        timeout_s: float = 120.0,
    ) -> None:
        if not isinstance(model, str) or not model:
            raise ValueError(f"model must be a non-empty string, got {model!r}")
        if base_url is None:
            base_url = os.environ.get(PRM_BASE_URL_ENV) or DEFAULT_BASE_URL
        if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
            raise ValueError(f"base_url must be an http(s) URL, got {base_url!r}")
        if isinstance(max_in_flight, bool) or not isinstance(max_in_flight, int):
            raise ValueError(f"max_in_flight must be an int >= 1, got {max_in_flight!r}")
        if max_in_flight < 1:
            raise ValueError(f"max_in_flight must be an int >= 1, got {max_in_flight!r}")
        if not timeout_s > 0:
            raise ValueError(f"timeout_s must be > 0, got {timeout_s!r}")
        resolved = convention_from_name(convention) if isinstance(convention, str) else convention
        if not isinstance(resolved, QwenMathPRM):
            raise ValueError(
                "VllmPRM reads the qwen2.5-math-prm convention (vLLM's "
                f"Qwen2ForProcessRewardModel), got {resolved.name!r}"
            )
        self.model = model
        self.base_url = base_url
        self.convention: QwenMathPRM = resolved
        self.max_in_flight = max_in_flight
        self.timeout_s = timeout_s

    @property
    def endpoint(self) -> str:
        """The pooling endpoint: ``/pooling`` at the server's root (not under ``/v1``)."""
        root = self.base_url.rstrip("/")
        root = root.removesuffix("/v1")
        return f"{root}/pooling"

    def request_body(self, question: str, steps: Sequence[str]) -> dict[str, Any]:
        """The JSON body scoring one trace: the convention's chat, the softmax asked for.

        Example:
            >>> body = VllmPRM("m").request_body("2 + 2?", [" 2 + 2 = 4. ", "So 4."])
            >>> body["messages"][2]
            {'role': 'assistant', 'content': '2 + 2 = 4.<extra_0>So 4.<extra_0>'}
            >>> body["model"], body["add_generation_prompt"], body["use_activation"]
            ('m', False, True)

        """
        separator = self.convention.separator
        return {
            "model": self.model,
            "messages": [
                {"role": "system", "content": self.convention.system_prompt},
                {"role": "user", "content": question},
                {"role": "assistant", "content": "".join(s.strip() + separator for s in steps)},
            ],
            "add_generation_prompt": False,
            "use_activation": True,
        }

    def parse_response(self, response: Any, steps: int) -> list[float]:
        """The step scores in a pooling response: the positive class of one row per separator.

        Example:
            >>> VllmPRM("m").parse_response({"data": [{"data": [[0.25, 0.75]]}]}, 1)
            [0.75]
            >>> VllmPRM("m").parse_response({"data": [{"data": [[0.25, 0.75]]}]}, 2)
            Traceback (most recent call last):
            ...
            ValueError: the PRM 'm' at http://127.0.0.1:8000/pooling returned 1 scores for 2 steps: a step or the question contains '<extra_0>', or the server's step_tag_id is not its id (vLLM: --pooler-config '{"step_tag_id": <id>}')

        """  # noqa: E501
        try:
            rows = response["data"][0]["data"]
        except (KeyError, IndexError, TypeError):
            raise ValueError(
                f"{self._who()} returned no pooling data: {str(response)[:200]}"
            ) from None
        if not isinstance(rows, list) or len(rows) != steps:
            count = len(rows) if isinstance(rows, list) else 0
            raise ValueError(
                f"{self._who()} returned {count} scores for {steps} steps: a step or the question "
                f"contains {self.convention.separator!r}, or the server's step_tag_id is not its "
                """id (vLLM: --pooler-config '{"step_tag_id": <id>}')"""
            )
        positive = self.convention.positive_class
        scores: list[float] = []
        for row in rows:
            if not isinstance(row, list) or len(row) != 2:
                raise ValueError(
                    f"{self._who()} returned a row {str(row)[:80]} where a 2-class softmax was "
                    "expected: is it a Qwen2ForProcessRewardModel served with --runner pooling?"
                )
            scores.append(float(row[positive]))
        return scores

    def score_steps(self, question: str, steps: Sequence[str]) -> list[float]:
        """One score per step, from one request for the whole trace.

        Example:
            >>> VllmPRM("m").score_steps("q", [])
            []

        """
        if not steps:
            return []
        body = self.request_body(question, steps)
        return self.parse_response(self._post(body), len(steps))

    def score_traces(self, traces: Sequence[Trace]) -> list[list[float]]:
        """``score_steps`` of every trace, ``max_in_flight`` requests at once, in order.

        Example:
            >>> VllmPRM("m").score_traces([("q", []), ("r", [])])
            [[], []]

        """
        todo = [i for i, (_, steps) in enumerate(traces) if steps]
        results: list[list[float]] = [[] for _ in traces]
        if not todo:
            return results
        with ThreadPoolExecutor(max_workers=min(self.max_in_flight, len(todo))) as pool:
            scored = pool.map(lambda i: self.score_steps(*traces[i]), todo)
            for i, scores in zip(todo, scored, strict=True):
                results[i] = scores
        return results

    def _post(self, body: dict[str, Any]) -> Any:
        """POST ``body`` to the endpoint; its JSON answer, or an error naming model and URL."""
        request = urllib.request.Request(
            self.endpoint,
            data=json.dumps(body).encode("utf-8"),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_s) as answer:
                return json.loads(answer.read().decode("utf-8"))
        except urllib.error.HTTPError as error:
            detail = _server_message(error)
            kind = PermanentBackendError if 400 <= error.code < 500 else BackendError
            hint = (
                " (is it served under this name, and with --runner pooling?)"
                if error.code == 404
                else ""
            )
            raise kind(f"{self._who()} answered HTTP {error.code}: {detail}{hint}") from None
        except (urllib.error.URLError, OSError) as error:
            reason = getattr(error, "reason", error)
            raise BackendError(
                f"{self._who()} cannot be reached: {reason} (is the vLLM server running?)"
            ) from None
        except json.JSONDecodeError as error:
            raise BackendError(f"{self._who()} answered with invalid JSON: {error}") from None

    def _who(self) -> str:
        return f"the PRM {self.model!r} at {self.endpoint}"

    def __repr__(self) -> str:
        return f"VllmPRM({self.model!r}, {self.base_url!r}, convention={self.convention.name!r})"


def _server_message(error: urllib.error.HTTPError) -> str:
    """The message in a vLLM error body (``{"error": {"message": ...}}``), else its text."""
    try:
        text = error.read().decode("utf-8", errors="replace")
    except OSError:
        return error.reason if isinstance(error.reason, str) else str(error.reason)
    try:
        payload = json.loads(text)
    except json.JSONDecodeError:
        return text[:300] or str(error.reason)
    if isinstance(payload, dict):
        inner = payload.get("error", payload)
        message = inner.get("message") if isinstance(inner, dict) else inner
        if message is None:
            message = payload.get("message") or payload.get("detail")
        if message is not None:
            return str(message)[:300]
    return text[:300]
