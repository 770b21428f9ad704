r"""Answer extraction: where a response states its final answer.

The rule, in order: the last closed ``<answer>…</answer>``; else an unclosed ``<answer>`` to
the end of the text; a ``\boxed{…}`` inside the tag is unwrapped; with no tag at all, the last
``\boxed{…}``. The result is stripped (reasoning-gym's scorers give partial credit to an answer
with stray whitespace).

Example:
    >>> extract_answer("So 2 × 4 = 8. <answer> 8 </answer>")
    '8'
    >>> extract_answer("... m + n = 25.\n</think> \n<answer> \\boxed{25}")
    '25'
    >>> extract_answer("Thus \\(\\boxed{\\frac{1}{2}}\\) cups.")
    '\\frac{1}{2}'
    >>> extract_answer("no answer here") is None
    True

"""

from __future__ import annotations

import re

from llenvs.core import ANSWER_CLOSE, ANSWER_OPEN

__all__ = ["ANSWER_CLOSE", "ANSWER_OPEN", "extract_answer", "extract_boxed", "has_closed_answer"]

_CLOSED = re.compile(r"<answer>(.*?)</answer>", re.DOTALL)
_BOXED = re.compile(r"\\boxed\s*\{")


def extract_boxed(text: str) -> str | None:
    r"""The content of the last ``\boxed{…}`` with balanced braces, or None.

    Example:
        >>> extract_boxed(r"\boxed{1} then \boxed{x^{2}}")
        'x^{2}'
        >>> extract_boxed(r"\boxed{12") is None
        True

    """
    found: str | None = None
    for match in _BOXED.finditer(text):
        depth, position = 1, match.end()
        while position < len(text) and depth:
            char = text[position]
            if char == "\\":
                position += 2
                continue
            depth += {"{": 1, "}": -1}.get(char, 0)
            position += 1
        if depth == 0:
            found = text[match.end() : position - 1]
    return found


def extract_answer(text: str) -> str | None:
    """The final answer a response gives, stripped, or None when it gives none.

    Example:
        >>> extract_answer("<answer>1</answer> no, <answer>2</answer>")
        '2'
        >>> extract_answer("<answer>42")
        '42'

    """
    closed = _CLOSED.findall(text)
    if closed:
        content: str | None = closed[-1]
    elif ANSWER_OPEN in text:
        content = text[text.rindex(ANSWER_OPEN) + len(ANSWER_OPEN) :]
    else:
        content = None
    if content is not None:
        boxed = extract_boxed(content)
        return (boxed if boxed is not None else content).strip()
    boxed = extract_boxed(text)
    return None if boxed is None else boxed.strip()


def has_closed_answer(text: str) -> bool:
    """Whether the text contains a closed, non-empty ``<answer>…</answer>``.

    Example:
        >>> has_closed_answer("<answer>8</answer>"), has_closed_answer("<answer> </answer>")
        (True, False)

    """
    return any(content.strip() for content in _CLOSED.findall(text))
