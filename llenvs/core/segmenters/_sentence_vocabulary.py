"""The words and characters the sentence rules know: end marks, quotes, abbreviations.

Example:
    >>> "approx" in ABBREVIATIONS, "step" in HEADING_WORDS, "?" in TERMINATORS
    (True, True, True)

"""

__all__ = [
    "ABBREVIATIONS",
    "CLOSERS",
    "HEADING_WORDS",
    "MONTH_ABBREVIATIONS",
    "NUMBER_ABBREVIATIONS",
    "OPENERS",
    "SENTENCE_STARTERS",
    "TERMINATORS",
]

TERMINATORS = ".!?…‽"
"""Characters that can end a sentence (a run of them ends it once: ``?!``, ``...``)."""
CLOSERS = "\"'”’»)]}"
"""Closing quotes and brackets that stay with the sentence they follow."""
OPENERS = "\"'“‘«([{"
"""Opening quotes and brackets that may come before the first word of a sentence."""
ABBREVIATIONS = frozenset(
    "mr mrs ms mx dr prof st mt gen gov sen rep rev hon capt lt col sgt cmdr adm pres supt "
    "fig figs eq eqs eqn thm lem prop cor def sec ch chap vol vols art ref refs "
    "approx vs e.g i.e cf viz al ca resp incl esp".split()
)
"""Words (lower case, inner periods kept) that a period never ends a sentence after."""
MONTH_ABBREVIATIONS = frozenset("jan feb mar apr jun jul aug sep sept oct nov dec".split())
"""Abbreviated months: before a day or year (``Jan. 5th``, ``Dec. 2024``) they end nothing."""
NUMBER_ABBREVIATIONS = frozenset("no nos nr n° nº p pp pg para".split()) | MONTH_ABBREVIATIONS
"""Words that are abbreviations when a number follows (``No. 5``, ``p. 55``, ``Jan. 5th``)."""
HEADING_WORDS = frozenset(
    "step case part problem question example exercise chapter section lemma theorem claim "
    "method stage phase".split()
)
"""Words that make ``<word> <number>.`` a heading (``Step 2. Add``) rather than a sentence end."""
SENTENCE_STARTERS = frozenset(
    "a an the this that these those there then thus so hence therefore however now next "
    "finally first second third also but and or if when while as after before since because "
    "he she it they we i you his her its their our my your in on at for from with by to "
    "what how why where who which let note each all some one yes no".split()
)
"""Words that start a sentence even after an abbreviation such as ``U.S.`` or ``a.m.``."""
