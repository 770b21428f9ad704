"""``TemplateValues``: what an intervention's text may name, for one parent and one segment.

A recipe's ``Force``, ``Feedback`` and ``Substitute`` texts are templates: ``{segment}`` (the
intervened segment's own text), ``{answer}`` (the parent's final answer), ``{expected}`` (the
task's answer) and ``{perturbed}`` (the segment with its first number changed: ``perturbed``).
Only these four are replaced; any other brace stays as written.

Example:
    >>> from llenvs.core._intervention import Feedback
    >>> values = TemplateValues(segment="So 8. ", answer="8", expected="100", perturbed="So 9. ")
    >>> values.intervention(Feedback("I think it is {expected}, not {answer}. {x}"))
    Feedback(text='I think it is 100, not 8. {x}')

"""

from __future__ import annotations

from dataclasses import dataclass, replace

from llenvs.core import Feedback, Force, Intervention, Substitute

__all__ = ["PLACEHOLDERS", "TemplateValues"]

PLACEHOLDERS = ("segment", "answer", "expected", "perturbed")
"""The names a template may use, each as ``{name}``."""


@dataclass(frozen=True)
class TemplateValues:
    """The values of the placeholders at one point (None: the parent has none)."""

    segment: str
    """The intervened segment's text."""
    answer: str | None
    """The parent's final answer."""
    expected: str | None
    """The task's expected answer."""
    perturbed: str | None
    """The segment with its first number changed (None: it has no number)."""

    def render(self, template: str) -> str | None:
        """``template`` with its placeholders filled; None when one it uses has no value.

        Example:
            >>> TemplateValues("x", None, "3", None).render("{perturbed}") is None
            True

        """
        text = template
        for name in PLACEHOLDERS:
            mark = "{" + name + "}"
            if mark in text:
                value = getattr(self, name)
                if value is None:
                    return None
                text = text.replace(mark, value)
        return text

    def intervention(self, what: Intervention) -> Intervention | None:
        """``what`` with its text rendered; None when a placeholder has no value here.

        A rendered text that is empty or blank cannot be a force or feedback: None too.
        """
        match what:
            case Force(text=template) | Feedback(text=template) | Substitute(text=template):
                text = self.render(template)
                if text is None or not text.strip():
                    return None
                return replace(what, text=text)
            case _:
                return what
