"""``JudgePRM``: a language model asked, step by step in context, whether each step is correct.

For step k the judge sees the question, steps 0..k-1 and step k, and is asked for one word, Yes
or No. Its reply is read in two ways (``llenvs.rewards.prm``):

* **from logprobs**, where the backend gives them and the reply opens with the verdict: the
  probability p of the reply's first token; P(correct) = p after Yes, 1 - p after No (the two
  answers taken as the only ones; a backend gives the chosen token's logprob only);
* **from the text** otherwise: 1.0 for Yes, 0.0 for No.

A reply that opens with no verdict counts when the rest of it names one verdict only (``The step is
correct.``). A step the judge does not rate (no verdict, two verdicts, a backend error, a blank
step) is **unrated**: ``score_steps`` / ``score_traces`` give None for it and ``judge_steps`` a
judgement scoring None with ``"verdict": "unrated"`` in its notes, never a guess (a trace stores no
PRM score for it; the workbench shows "–"). All the steps of the traces asked together go to the
backend in batches of ``batch_size`` requests, greedy.

Example:
    >>> judge = JudgePRM(get_backend("scripted", outputs=["Yes.", "No, 2 + 2 is 4.", "Hmm."]))
    >>> judge.rate_steps("2 + 2?", ["2 + 2 = 4.", "So 5.", "Done."])
    [1.0, 0.0, None]

"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from llenvs.core import (
    Generation,
    GenerationRequest,
    Message,
    ModelBackend,
    Prompt,
    SamplingParams,
)
from llenvs.core.errors import BackendError
from llenvs.rewards.prm._contract import StepScore, Trace
from llenvs.rewards.prm._judge_verdict import Verdict, read_verdict
from llenvs.rewards.prm._step_judgement import StepJudgement

__all__ = ["JUDGE_SYSTEM_PROMPT", "JudgePRM", "make_prm"]

JUDGE_SYSTEM_PROMPT = (
    "You check solutions to math problems one step at a time. Reply with one word: Yes if the "
    "last step is correct, No if it is not."
)
"""The system turn of every question the judge is asked."""


class JudgePRM:
    """A model judging each step in context; reads P(correct) from logprobs where it can.

    Arguments:
        backend: the model that judges (any backend: transformers, openai, scripted).
        max_tokens: most tokens of a reply (the verdict is its first word).
        batch_size: most questions sent to the backend in one ``generate`` call.

    Example:
        >>> judge = JudgePRM(get_backend("scripted", outputs=["No"]))
        >>> [j] = judge.judge_steps("2 + 2?", ["2 + 2 = 5."])
        >>> j.score, j.notes["verdict"], j.notes["source"]
        (0.0, 'incorrect', 'logprobs')

    """

    def __init__(self, backend: ModelBackend, *, max_tokens: int = 6, batch_size: int = 16) -> None:
        if not isinstance(backend, ModelBackend):
            raise TypeError(
                f"backend must be a ModelBackend (name, capabilities, generate), got {backend!r}"
            )
        if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens <= 0:
            raise ValueError(f"max_tokens must be an int > 0, got {max_tokens!r}")
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size <= 0:
            raise ValueError(f"batch_size must be an int > 0, got {batch_size!r}")
        self.backend = backend
        self.max_tokens = max_tokens
        self.batch_size = batch_size
        self.params = SamplingParams(max_tokens=max_tokens, temperature=0.0, logprobs=True)

    def verdicts(self, traces: Sequence[Trace]) -> list[list[Verdict]]:
        """Every step's verdict, for every trace: all the questions in batches of ``batch_size``.

        Example:
            >>> judge = JudgePRM(get_backend("scripted", outputs=["Yes", "No"]))
            >>> [[v.score for v in t] for t in judge.verdicts([("q", ["1 + 1 = 2"]), ("q", ["3"])])]
            [[1.0], [0.0]]

        """
        asked: list[tuple[int, int, GenerationRequest]] = []
        found: list[list[Verdict | None]] = []
        for t, (question, steps) in enumerate(traces):
            found.append([None] * len(steps))
            for k, step in enumerate(steps):
                if step.strip():
                    asked.append((t, k, self.request(question, steps[:k], step)))
                else:
                    found[t][k] = Verdict(None, {"verdict": "unrated", "why": "blank step"})
        for start in range(0, len(asked), self.batch_size):
            batch = asked[start : start + self.batch_size]
            for (t, k, _), verdict in zip(batch, self._ask([r for _, _, r in batch]), strict=True):
                found[t][k] = verdict
        return [[v for v in trace if v is not None] for trace in found]

    def rate_steps(self, question: str, steps: Sequence[str]) -> list[StepScore]:
        """P(correct) of every step; None for a step the judge does not rate.

        Example:
            >>> JudgePRM(get_backend("scripted", outputs=["I cannot say."])).rate_steps("q", ["a"])
            [None]

        """
        return [v.score for v in self.verdicts([(question, steps)])[0]]

    def judge_steps(self, question: str, steps: Sequence[str]) -> list[StepJudgement]:
        """One judgement per step; an unrated step scores None and its notes say why.

        Example:
            >>> [j] = JudgePRM(get_backend("scripted", outputs=["Hmm."])).judge_steps("q", ["a"])
            >>> j.score, j.notes["verdict"], j.notes["why"]
            (None, 'unrated', 'no verdict')

        """
        return [_judgement(v) for v in self.verdicts([(question, steps)])[0]]

    def score_steps(self, question: str, steps: Sequence[str]) -> list[StepScore]:
        """One score per step (``rate_steps``): None for a step the judge does not rate."""
        return self.rate_steps(question, steps)

    def score_traces(self, traces: Sequence[Trace]) -> list[list[StepScore]]:
        """``score_steps`` of every trace, all the questions asked together."""
        return [[v.score for v in trace] for trace in self.verdicts(traces)]

    def request(self, question: str, before: Sequence[str], step: str) -> GenerationRequest:
        """The question asked about ``step``, after the steps ``before`` it.

        Example:
            >>> r = JudgePRM(get_backend("scripted")).request("2 + 2?", ["Add."], "2 + 2 = 4.")
            >>> print(r.prompt.messages[1].content)
            Question:
            2 + 2?
            <BLANKLINE>
            Step 1:
            Add.
            <BLANKLINE>
            Step 2 (the last step):
            2 + 2 = 4.
            <BLANKLINE>
            Is the last step correct? Answer Yes or No.

        """
        shown = [f"Step {n}:\n{s.strip()}" for n, s in enumerate(before, start=1)]
        shown.append(f"Step {len(before) + 1} (the last step):\n{step.strip()}")
        body = "\n\n".join(
            [
                f"Question:\n{question.strip()}",
                *shown,
                "Is the last step correct? Answer Yes or No.",
            ]
        )
        messages = (Message("system", JUDGE_SYSTEM_PROMPT), Message("user", body))
        return GenerationRequest(Prompt(messages), self.params, self.max_tokens)

    def _ask(self, requests: list[GenerationRequest]) -> list[Verdict]:
        """One verdict per request; when the batch fails, each request alone, errors unrated."""
        try:
            return [read_verdict(g) for g in self._generate(requests)]
        except BackendError as error:
            if len(requests) == 1:
                return [_failed(error)]
        verdicts: list[Verdict] = []
        for request in requests:
            try:
                [generation] = self._generate([request])
            except BackendError as error:
                verdicts.append(_failed(error))
            else:
                verdicts.append(read_verdict(generation))
        return verdicts

    def _generate(self, requests: list[GenerationRequest]) -> list[Generation]:
        generations = self.backend.generate(requests)
        if len(generations) != len(requests):
            raise BackendError(
                f"{self.backend.name} gave {len(generations)} generations for "
                f"{len(requests)} requests"
            )
        return generations

    def __repr__(self) -> str:
        return f"JudgePRM(backend={self.backend.name!r})"


def _failed(error: BackendError) -> Verdict:
    return Verdict(None, {"verdict": "unrated", "why": "error", "error": str(error)})


def _judgement(verdict: Verdict) -> StepJudgement:
    return StepJudgement(verdict.score, verdict.notes)


def make_prm(*, backend: ModelBackend | None = None, **options: Any) -> JudgePRM:
    """The registry's factory: ``get_prm("judge", backend=...)``, or ``"judge:<backend name>"``.

    Example:
        >>> make_prm()
        Traceback (most recent call last):
        ...
        ValueError: the judge PRM needs backend= (the model that judges), or a backend name: judge:<backend>, e.g. judge:transformers

    """  # noqa: E501
    if backend is None:
        raise ValueError(
            "the judge PRM needs backend= (the model that judges), or a backend name: "
            "judge:<backend>, e.g. judge:transformers"
        )
    return JudgePRM(backend, **options)
