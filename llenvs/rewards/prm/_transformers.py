"""``TransformersPRM``: a local transformers checkpoint as a PRM, in either published convention.

No checkpoint ships with llenvs and nothing is downloaded: ``from_pretrained`` loads a local
folder (``local_files_only``), such as a copy of Qwen/Qwen2.5-Math-PRM-7B (``QwenMathPRM``,
with ``trust_remote_code=True`` for its custom class) or peiyi9979/math-shepherd-mistral-7b-prm
(``MathShepherd``). Each trace is read in one forward pass; ``score_traces`` pads several traces
into one batch. This module imports torch; ``import llenvs.rewards`` does not import it.

Example:
    >>> TransformersPRM.from_pretrained("/no/such/folder", convention="math-shepherd")
    Traceback (most recent call last):
    ...
    FileNotFoundError: no local checkpoint at /no/such/folder: TransformersPRM loads local ...

"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch

from llenvs.rewards.prm._contract import Trace
from llenvs.rewards.prm._conventions import PRMConvention, convention_from_name

__all__ = ["TransformersPRM"]


class TransformersPRM:
    """A transformers model and tokenizer read the way its convention says.

    Arguments:
        model: a loaded model (a token-classification model for ``QwenMathPRM``, a causal LM
            for ``MathShepherd``), in eval mode.
        tokenizer: its tokenizer.
        convention: a ``PRMConvention`` or its name (``"qwen2.5-math-prm"``,
            ``"math-shepherd"``).
        batch_size: how many traces ``score_traces`` reads in one forward pass.

    Example:
        >>> TransformersPRM(model=None, tokenizer=None, convention="math-shepherd").batch_size
        8

    """

    def __init__(
        self,
        model: Any,
        tokenizer: Any,
        convention: PRMConvention | str,
        *,
        batch_size: int = 8,
    ) -> None:
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise ValueError(f"batch_size must be an int >= 1, got {batch_size!r}")
        self.model = model
        self.tokenizer = tokenizer
        if isinstance(convention, str):
            convention = convention_from_name(convention)
        self.convention = convention
        self.batch_size = batch_size

    @classmethod
    def from_pretrained(
        cls,
        path: str | Path,
        *,
        convention: PRMConvention | str,
        device: str | torch.device = "cpu",
        dtype: torch.dtype | None = None,
        trust_remote_code: bool = False,
        batch_size: int = 8,
    ) -> TransformersPRM:
        """Load a local checkpoint folder (never a hub name: nothing is downloaded).

        Example:
            >>> TransformersPRM.from_pretrained("/nope", convention="qwen2.5-math-prm")
            Traceback (most recent call last):
            ...
            FileNotFoundError: no local checkpoint at /nope: TransformersPRM loads local ...

        """
        from transformers import AutoTokenizer

        folder = Path(path)
        if not folder.is_dir():
            raise FileNotFoundError(
                f"no local checkpoint at {path}: TransformersPRM loads local folders only "
                "(nothing is downloaded)"
            )
        resolved = convention_from_name(convention) if isinstance(convention, str) else convention
        options: dict[str, Any] = {}
        if dtype is not None:
            options["dtype"] = dtype
        if trust_remote_code:
            options["trust_remote_code"] = True
        tokenizer = AutoTokenizer.from_pretrained(
            str(folder), local_files_only=True, trust_remote_code=trust_remote_code
        )
        model = resolved.load_model(str(folder), **options)
        model.to(device)
        model.eval()
        return cls(model, tokenizer, resolved, batch_size=batch_size)

    def score_steps(self, question: str, steps: Sequence[str]) -> list[float]:
        """One score per step, from one forward pass over the trace.

        Example:
            >>> TransformersPRM(None, None, "math-shepherd").score_steps("q", [])
            []

        """
        return self.score_traces([(question, steps)])[0]

    def score_traces(self, traces: Sequence[Trace]) -> list[list[float]]:
        """``score_steps`` of every trace, ``batch_size`` traces per forward pass.

        Example:
            >>> TransformersPRM(None, None, "qwen2.5-math-prm").score_traces([("q", []), ("r", [])])
            [[], []]

        """
        results: list[list[float]] = [[] for _ in traces]
        todo = [i for i, (_, steps) in enumerate(traces) if steps]
        for first in range(0, len(todo), self.batch_size):
            chunk = todo[first : first + self.batch_size]
            encoded = [self.convention.encode(self.tokenizer, *traces[i]) for i in chunk]
            logits = self._forward([ids for ids, _ in encoded])
            for row, (i, (_, positions)) in enumerate(zip(chunk, encoded, strict=True)):
                results[i] = self.convention.step_scores(logits[row], positions, self.tokenizer)
        return results

    def _forward(self, sequences: Sequence[Sequence[int]]) -> torch.Tensor:
        """Logits ``[batch, length, classes]`` of right-padded sequences."""
        length = max(len(ids) for ids in sequences)
        pad = self.tokenizer.pad_token_id
        pad = 0 if pad is None else int(pad)
        device = next(self.model.parameters()).device
        input_ids = torch.full((len(sequences), length), pad, dtype=torch.long)
        mask = torch.zeros((len(sequences), length), dtype=torch.long)
        for row, ids in enumerate(sequences):
            input_ids[row, : len(ids)] = torch.tensor(ids, dtype=torch.long)
            mask[row, : len(ids)] = 1
        with torch.inference_mode():
            output = self.model(input_ids=input_ids.to(device), attention_mask=mask.to(device))
        logits = getattr(output, "logits", None)
        if logits is None:
            logits = output[0]
        if not isinstance(logits, torch.Tensor):
            raise TypeError(f"the model returned no logits tensor, got {type(logits).__name__}")
        return logits

    def __repr__(self) -> str:
        model = type(self.model).__name__
        return f"TransformersPRM({model}, convention={self.convention.name!r})"
