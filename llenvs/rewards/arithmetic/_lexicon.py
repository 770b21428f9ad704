r"""The arithmetic tokenizer's lexicon: what its scanner matches and what each match means.

The scanner's regular expression (``SCANNER``: one named group per kind of match), the spellings
of the operators (plain and LaTeX), the LaTeX commands that are fractions, skipped or breaks,
and the words that change the meaning of a number beside them (``tokenize`` makes them POISON).

Example:
    >>> OPERATORS["·"], COMMAND_OPERATORS["\\div"], "twice" in PREFIX_POISON_WORDS
    ('×', '÷', True)
    >>> SCANNER.match("17{,}745 kg").lastgroup
    'number'

"""

from __future__ import annotations

import re

__all__ = [
    "BREAK_COMMANDS",
    "COMMAND_OPERATORS",
    "FRACTIONS",
    "OPERATORS",
    "PREFIX_POISON_WORDS",
    "SCANNER",
    "SKIPPED_COMMANDS",
    "UNIT_POISON_WORDS",
]


SCANNER = re.compile(
    r"""
    (?P<nl>\n)
  | (?P<ws>[ \t\r\f\v\u00a0\u2009\u202f]+)
  | (?P<skip>\*\*|__|[$€£¥"'“”‘’`&\#•])
  | (?P<tag></?[A-Za-z][A-Za-z0-9_-]*\s*/?>)
  | (?P<text>\\(?:text|textbf|textit|textrm|textsf|textnormal|mathrm|mathit|mbox)\s*\{[^{}]*\})
  | (?P<number>
      (?P<num>(?:\d{1,3}(?:(?:,|\\,|\{,\})\d{3})+(?!\d|,\d)|\d+)(?:\.\d+)?|\.\d+)
      (?P<pct>[ ]?\\?%)?
    )
  | (?P<sup>[²³])
  | (?P<cmd>\\[A-Za-z]+|\\.)
  | (?P<word>[^\W\d_]+(?:['’][^\W\d_]+)*(?:[ ][^\W\d_]+(?:['’][^\W\d_]+)*)*)
  | (?P<rel>=>|<=|>=|!=|->|<-|[≠≈≤≥<>⇒⟹⟸→←↔∼~≡∝∴∵…—])
  | (?P<eq>==?)
  | (?P<op>[-+*/×÷·⋅∗^−])
  | (?P<open>\()
  | (?P<close>\))
  | (?P<lbrace>\{)
  | (?P<rbrace>\})
  | (?P<punct>[.,;:?!])
  | (?P<other>.)
    """,
    re.VERBOSE | re.DOTALL,
)
"""One match of a step's text at a time, its kind named by its group (``nl``, ``number``, ...)."""

OPERATORS = {"+": "+", "-": "-", "−": "-", "*": "×", "×": "×", "·": "×", "⋅": "×", "∗": "×"}
OPERATORS |= {"/": "/", "÷": "÷", "^": "^"}
"""Each operator character, normalised to one of ``+ - × ÷ / ^``."""
COMMAND_OPERATORS = {"\\times": "×", "\\cdot": "×", "\\ast": "×", "\\div": "÷"}
"""LaTeX commands that are operators, normalised as ``OPERATORS`` are."""
FRACTIONS = frozenset({"\\frac", "\\dfrac", "\\tfrac", "\\cfrac"})
"""LaTeX commands that are fractions (FRAC)."""
SKIPPED_COMMANDS = frozenset(
    {
        *"\\left \\right \\big \\Big \\bigg \\Bigg \\bigl \\bigr \\Bigl \\Bigr \\biggl".split(),
        *"\\biggr \\Biggl \\Biggr \\displaystyle \\textstyle \\boxed \\mathbf \\bm".split(),
        *"\\boldsymbol \\, \\; \\: \\! \\$ \\& \\#".split(),
        "\\ ",
    }
)
"""LaTeX commands that only change how a formula looks: skipped."""
BREAK_COMMANDS = frozenset(
    "\\\\ \\[ \\] \\( \\) \\quad \\qquad \\neq \\ne \\approx \\sim \\simeq \\cong \\le \\leq \\ge "
    "\\geq \\lt \\gt \\leqslant \\geqslant \\ll \\gg \\to \\rightarrow \\Rightarrow \\implies "
    "\\iff \\Leftrightarrow \\Longrightarrow \\longrightarrow \\impliedby \\Leftarrow "
    "\\therefore \\because \\ldots \\cdots \\dots \\vdots \\ddots \\in \\notin \\equiv \\propto "
    "\\mapsto \\gets \\hline \\newline \\begin \\end \\text \\label \\tag".split()
)
"""LaTeX commands no equation spans (relations, spaces, line and environment breaks): BREAK."""
PREFIX_POISON_WORDS = frozenset(
    "of half twice double triple thrice square cube sqrt root log ln lg exp sin cos tan cot sec "
    "csc arcsin arccos arctan sinh cosh tanh negative inverse reciprocal gcd lcm max min floor "
    "ceil abs det mod modulo base digit digits remainder".split()
)
"""Words that change the meaning of the number after them (``half of 10 = 5``)."""
UNIT_POISON_WORDS = frozenset(
    "times plus minus over divided multiplied mod modulo choose factorial squared cubed percent "
    "dozen dozens hundred hundreds thousand thousands million millions billion billions "
    "trillion trillions half halves third thirds quarter quarters fourth fourths fifth fifths "
    "point power powers".split()
)
"""Words that change the meaning of the number before them (``3 squared``, ``2 dozen``)."""
