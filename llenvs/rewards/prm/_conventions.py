r"""The two published ways a model PRM reads a trace, as strategy objects.

- ``QwenMathPRM`` (Qwen2.5-Math-PRM): a chat with the system prompt, the question as the user
  turn and the steps as the assistant turn, each step followed by a separator token
  (``<extra_0>``); the model has a 2-class head on every token; a step's score is the softmax's
  class 1 at its separator.
- ``MathShepherd`` (Math-Shepherd): ``question + " " + steps``, each step followed by `` ки``
  and joined by newlines; a causal LM; a step's score is P(``+``) of the softmax over the logits
  of the ``+`` and ``-`` tokens at its tag.

Steps are stripped of surrounding whitespace first (both conventions were trained on stripped
steps). Both read every step of a trace in one forward pass: causal attention makes each
step's score depend only on what precedes its separator or tag. Importing this module imports
neither torch nor transformers; loading a model does.

Example:
    >>> convention_from_name("math-shepherd").tag
    'ки'

"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from llenvs.core.errors import UnknownName

if TYPE_CHECKING:
    import torch

__all__ = [
    "CONVENTIONS",
    "MathShepherd",
    "PRMConvention",
    "QwenMathPRM",
    "convention_from_name",
]


class PRMConvention(Protocol):
    """How a model PRM reads a trace: its input, where to read each step, how to score it.

    Example:
        >>> isinstance(QwenMathPRM().name, str)
        True

    """

    @property
    def name(self) -> str:
        """The convention's name for the CLI and the app."""
        ...

    def encode(
        self, tokenizer: Any, question: str, steps: Sequence[str]
    ) -> tuple[list[int], list[int]]:
        """The token ids of the trace, and for each step the position to read its score at."""
        ...

    def step_scores(
        self, logits: torch.Tensor, positions: Sequence[int], tokenizer: Any
    ) -> list[float]:
        """The scores of the steps from one sequence's logits (``[length, classes]``)."""
        ...

    def load_model(self, path: str, **options: Any) -> Any:
        """Load a local checkpoint of this kind (``options`` go to ``from_pretrained``)."""
        ...


@dataclass(frozen=True)
class QwenMathPRM:
    r"""Qwen2.5-Math-PRM's convention: a separator after each step, a 2-class head.

    Loading: with ``trust_remote_code=True``, ``AutoModel`` (the published checkpoints ship a
    custom class through ``auto_map``); otherwise ``AutoModelForTokenClassification`` with
    ``num_labels == 2`` (any local token-classification checkpoint, e.g. a
    ``Qwen2ForTokenClassification``).

    Example:
        >>> QwenMathPRM().system_prompt
        'Please reason step by step, and put your final answer within \\boxed{}.'

    """

    separator: str = "<extra_0>"
    """The token after each step, where the step's score is read."""
    system_prompt: str = "Please reason step by step, and put your final answer within \\boxed{}."
    """The system message the published model was trained with."""
    positive_class: int = 1
    """Which class of the 2-class head means "this step is right"."""

    @property
    def name(self) -> str:
        """``"qwen2.5-math-prm"``."""
        return "qwen2.5-math-prm"

    def encode(
        self, tokenizer: Any, question: str, steps: Sequence[str]
    ) -> tuple[list[int], list[int]]:
        """The chat with every step followed by the separator, and the separators' positions."""
        separator = _single_token(tokenizer, self.separator, "separator")
        messages = [
            {"role": "system", "content": self.system_prompt},
            {"role": "user", "content": question},
            {"role": "assistant", "content": "".join(s.strip() + self.separator for s in steps)},
        ]
        if getattr(tokenizer, "chat_template", None) is None:
            raise ValueError("this tokenizer has no chat template: the Qwen convention needs one")
        text = tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=False)
        ids = list(tokenizer.encode(text))
        return ids, _positions(ids, separator, len(steps), self.separator)

    def step_scores(
        self, logits: torch.Tensor, positions: Sequence[int], tokenizer: Any
    ) -> list[float]:
        """Softmax of the 2-class head at each separator, class ``positive_class``."""
        import torch

        at = logits[list(positions)].float()
        scores: list[float] = torch.softmax(at, dim=-1)[:, self.positive_class].tolist()
        return scores

    def load_model(self, path: str, **options: Any) -> Any:
        """A token-classification model with 2 labels (or the checkpoint's own class)."""
        from transformers import AutoModel, AutoModelForTokenClassification

        if options.get("trust_remote_code"):
            return AutoModel.from_pretrained(path, local_files_only=True, **options)
        model = AutoModelForTokenClassification.from_pretrained(
            path, local_files_only=True, **options
        )
        if model.config.num_labels != 2:
            raise ValueError(
                f"{path}: a Qwen-style PRM has a 2-class head, this model has "
                f"{model.config.num_labels} labels"
            )
        return model


@dataclass(frozen=True)
class MathShepherd:
    """Math-Shepherd's convention: a tag after each step, P(``+``) over {``+``, ``-``}.

    Loading: ``AutoModelForCausalLM`` (any local causal LM checkpoint). The published model's
    steps were written ``Step 1: ...``; steps are passed as given (no prefix is added).

    Example:
        >>> MathShepherd().good, MathShepherd().bad
        ('+', '-')

    """

    tag: str = "ки"
    """The token after each step, where the step's score is read."""
    good: str = "+"
    """The token meaning "this step is right"."""
    bad: str = "-"
    """The token meaning "this step is wrong"."""

    @property
    def name(self) -> str:
        """``"math-shepherd"``."""
        return "math-shepherd"

    def encode(
        self, tokenizer: Any, question: str, steps: Sequence[str]
    ) -> tuple[list[int], list[int]]:
        """``question + " " + steps`` with the tags, and the tags' positions."""
        tag = list(tokenizer.encode(self.tag, add_special_tokens=False))[-1]
        text = f"{question} " + "\n".join(f"{s.strip()} {self.tag}" for s in steps)
        ids = list(tokenizer.encode(text))
        return ids, _positions(ids, tag, len(steps), self.tag)

    def candidates(self, tokenizer: Any) -> tuple[int, int]:
        """The ids of the ``good`` and ``bad`` tokens (as the published code finds them)."""
        ids = list(tokenizer.encode(f"{self.good} {self.bad}", add_special_tokens=False))
        if len(ids) != 2:
            raise ValueError(
                f"{self.good!r} and {self.bad!r} must be one token each, got ids {ids}"
            )
        return ids[0], ids[1]

    def step_scores(
        self, logits: torch.Tensor, positions: Sequence[int], tokenizer: Any
    ) -> list[float]:
        """P(good) of the softmax over the good and bad tokens' logits at each tag."""
        import torch

        good, bad = self.candidates(tokenizer)
        at = logits[list(positions)][:, [good, bad]].float()
        scores: list[float] = torch.softmax(at, dim=-1)[:, 0].tolist()
        return scores

    def load_model(self, path: str, **options: Any) -> Any:
        """A causal LM."""
        from transformers import AutoModelForCausalLM

        return AutoModelForCausalLM.from_pretrained(path, local_files_only=True, **options)


CONVENTIONS: dict[str, QwenMathPRM | MathShepherd] = {
    "qwen2.5-math-prm": QwenMathPRM(),
    "math-shepherd": MathShepherd(),
}
"""The conventions by name, with their published tokens."""


def convention_from_name(name: str) -> QwenMathPRM | MathShepherd:
    """A convention by name (``"qwen2.5-math-prm"`` or ``"math-shepherd"``).

    Example:
        >>> convention_from_name("qwen2.5-math-prm").separator
        '<extra_0>'
        >>> convention_from_name("nope")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        llenvs.core.errors.UnknownName: unknown PRM convention 'nope': choose one of: math-sh...

    """
    try:
        return CONVENTIONS[name]
    except KeyError:
        raise UnknownName("PRM convention", name, CONVENTIONS) from None


def _single_token(tokenizer: Any, text: str, what: str) -> int:
    ids = list(tokenizer.encode(text, add_special_tokens=False))
    if len(ids) != 1:
        raise ValueError(f"the {what} {text!r} must be one token of this tokenizer, got {ids}")
    return int(ids[0])


def _positions(ids: Sequence[int], marker: int, steps: int, text: str) -> list[int]:
    positions = [i for i, token in enumerate(ids) if token == marker]
    if len(positions) != steps:
        raise ValueError(
            f"found {len(positions)} {text!r} tokens for {steps} steps: the question or a step "
            f"contains {text!r}, or the tokenizer merges it with its neighbours"
        )
    return positions
