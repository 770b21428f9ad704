"""Where a scored text's tokens are: the text read after its prompt, as the model reads it.

Both backends that score a text (teacher-forced log-probabilities after a prompt) tokenise the
open turn's text and the scored text together, as the model would read them, and take as the
text's tokens those that end inside it: the first may begin in the continuation, when the text
joins its last word. ``text_positions`` gives the whole id list and where the text's tokens
start; the transformers backend reads their log-probabilities from one prefill, the openai
backend from the server's prompt log-probabilities.

Example:
    >>> from llenvs.inference._backends.embedded_model import embedded_model_path
    >>> from transformers import AutoTokenizer
    >>> tokenizer = AutoTokenizer.from_pretrained(str(embedded_model_path()))
    >>> ids, at = text_positions(tokenizer, [1, 2], "One, two,", " three.")
    >>> ids[:2], tokenizer.decode(ids[at:])
    ([1, 2], ' three.')

"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["text_positions"]


def text_positions(
    tokenizer: Any, head: Sequence[int], continuation: str, text: str
) -> tuple[list[int], int]:
    """``(ids, at)``: ``head``, then ``continuation + text`` tokenised; ``ids[at:]`` spell the text.

    ``tokenizer`` is a fast Hugging Face tokenizer (it gives offsets); ``head`` the rendered
    turns before the open one.
    """
    whole = tokenizer(continuation + text, add_special_tokens=False, return_offsets_mapping=True)
    ends = [end for _, end in whole["offset_mapping"]]
    start = len(continuation)
    first = next((i for i, end in enumerate(ends) if end > start), len(ends))
    return list(head) + list(whole["input_ids"]), len(head) + first
