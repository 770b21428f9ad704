r"""Token healing: continue a text whose last token the model had written across its end.

A replayed prefix comes with the token ids the model generated for it, and those ids often run
past the kept text: a sentence segment ``"legs. "`` ends inside the model's next token
``" So"``. Re-encoding the tail (``" "`` alone) gives a token sequence the model never wrote, and
a greedy continuation then differs from the parent. Instead the backend feeds the ids up to the
last token that lies wholly inside the text and lets the model write the straddling part again,
restricted to tokens that spell the rest of the text (``" "``) and may go on past it: the
greedy choice is then the parent's own token, and a sampled one is drawn from the model's
distribution given the whole text. The healed characters are already in the continuation, so
they are cut from the generated text.

Example:
    >>> class Chars:  # a toy tokenizer: 0 -> "a", 1 -> " ", 2 -> " b", 3 -> "bc"
    ...     pieces = ["a", " ", " b", "bc"]
    ...     def decode(self, ids, **kwargs):
    ...         return "".join(self.pieces[i] for i in ids)
    >>> healer = TokenHealer(Chars(), vocabulary_size=4)
    >>> healer.allowed(" ")
    [1, 2]
    >>> healer.advance(" ", 2)
    ''

"""

from __future__ import annotations

from typing import Any

__all__ = ["TokenHealer"]


class TokenHealer:
    """Which tokens may start a continuation that must first spell a given text.

    Arguments:
        tokenizer: decodes one token id at a time (``decode([id])``).
        vocabulary_size: number of token ids (the model's logits width).

    The texts of all tokens are decoded once, on first use, and kept.

    Example:
        >>> class Chars:
        ...     def decode(self, ids, **kwargs):
        ...         return "".join("xyz"[i] for i in ids)
        >>> TokenHealer(Chars(), 3).allowed("yz")
        [1]

    """

    def __init__(self, tokenizer: Any, vocabulary_size: int) -> None:
        if vocabulary_size <= 0:
            raise ValueError(f"vocabulary_size must be > 0, got {vocabulary_size}")
        self.tokenizer = tokenizer
        self.vocabulary_size = vocabulary_size
        self._texts: list[str] | None = None

    def texts(self) -> list[str]:
        """The text of every token id, decoded alone (partial UTF-8 decodes to U+FFFD)."""
        if self._texts is None:
            self._texts = [
                str(self.tokenizer.decode([i], skip_special_tokens=False))
                for i in range(self.vocabulary_size)
            ]
        return self._texts

    def allowed(self, heal: str) -> list[int]:
        """Token ids whose text starts with ``heal`` or spells a non-empty start of it."""
        if not heal:
            raise ValueError("nothing to heal: heal must be a non-empty text")
        return [
            token
            for token, text in enumerate(self.texts())
            if text and "\ufffd" not in text and (text.startswith(heal) or heal.startswith(text))
        ]

    def advance(self, heal: str, token: int) -> str:
        """What is left of ``heal`` after the model chose ``token`` (one of ``allowed``)."""
        text = self.texts()[token]
        return "" if text.startswith(heal) else heal[len(text) :]
