r"""``Recipe``: an intervention experiment as one typed value: parents, where, what, how.

A recipe is recorded verbatim as the first line of its experiment file and can be written as
JSON or TOML (``to_json``, ``to_toml``; ``load_recipe`` reads either, by the file's suffix).
``what`` is the library's own ``Intervention`` (``Force``, ``Feedback``, ``COMPLETE``,
``Resample``); a force's or feedback's text is a template (``TemplateValues``).

Example:
    >>> from llenvs.core._intervention import Feedback
    >>> from llenvs.experiments._where import RelativePositions
    >>> recipe = Recipe("hint", ParentFilter(), RelativePositions((0.25, 0.5)),
    ...                 Feedback("The answer is {expected}."))
    >>> Recipe.from_record(recipe.to_record()) == recipe
    True
    >>> recipe_from_toml(recipe.to_toml()) == recipe
    True
    >>> print(recipe.to_toml())
    name = "hint"
    <BLANKLINE>
    [parents]
    outcome = "all"
    <BLANKLINE>
    [where]
    rule = "relative"
    fractions = [0.25, 0.5]
    <BLANKLINE>
    [what]
    kind = "feedback"
    text = "The answer is {expected}."
    <BLANKLINE>
    [how]
    samples = 1
    seed = 0
    <BLANKLINE>

"""

from __future__ import annotations

import json
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

from llenvs.core import (
    INTERVENTION,
    RECORD,
    Intervention,
    Resample,
    Text,
    read_record,
    record_dict,
)
from llenvs.experiments._how import How
from llenvs.experiments._parent_filter import ParentFilter
from llenvs.experiments._where import WHERE_RECORD, Where

__all__ = ["Recipe", "load_recipe", "recipe_from_toml"]


@dataclass(frozen=True)
class Recipe:
    """What an experiment does to every parent (see the module).

    Example:
        >>> Recipe.from_record({"where": {"rule": "every"}, "what": {"kind": "force"}})
        Traceback (most recent call last):
        ...
        llenvs.core.errors.RecordFormatError: recipe.what.text: a force intervention needs a text, got null

    """  # noqa: E501

    __pydantic_config__ = RECORD

    name: Text
    """A short name, shown and recorded (a recipe file without one: ``experiment``)."""
    parents: ParentFilter
    """Which traces of the file are branched (a recipe file without them: every root trace)."""
    where: Annotated[Where, WHERE_RECORD]
    """Which segments of each parent are intervened on: `rule` and its fields (below)."""
    what: Annotated[Intervention, INTERVENTION]
    """What is done there: an intervention as a branch records it (texts are templates)."""
    how: How = field(default_factory=How)
    """Samples per point, seeds, model and sampling."""

    def __post_init__(self) -> None:
        if not self.name.strip():
            raise ValueError("a recipe needs a name")

    @property
    def samples_per_point(self) -> int:
        """Branches made at each point: ``how.samples`` times a resample's ``n``.

        Example:
            >>> from llenvs.experiments._where import EveryBoundary
            >>> Recipe("r", ParentFilter(), EveryBoundary(), Resample(3),
            ...        How(samples=2)).samples_per_point
            6

        """
        n = self.what.n if isinstance(self.what, Resample) else 1
        return self.how.samples * n

    def to_record(self) -> dict[str, Any]:
        """The JSON object the experiment file's first line holds."""
        return record_dict(self)

    @classmethod
    def from_record(cls, record: object) -> Recipe:
        """The recipe of a JSON (or TOML) object; a ``ValueError`` naming what is wrong, where.

        A recipe written by hand may leave out its ``name`` and its ``parents``.
        """
        if isinstance(record, Mapping):
            record = {"name": "experiment", "parents": {}, **record}
        return read_record(cls, record, "recipe")

    def to_json(self) -> str:
        """The recipe as one line of JSON."""
        return json.dumps(self.to_record(), ensure_ascii=False)

    def to_toml(self) -> str:
        """The recipe as a TOML document (nulls left out: TOML has none)."""
        record = self.to_record()
        lines = [f"name = {_toml_value(record.pop('name'))}", ""]
        for table, values in record.items():
            lines.extend(_toml_table(table, values))
        return "\n".join(lines)


def recipe_from_toml(text: str) -> Recipe:
    """The recipe of a TOML document (``Recipe.to_toml``'s, or written by hand)."""
    return Recipe.from_record(tomllib.loads(text))


def load_recipe(path: str | os.PathLike[str]) -> Recipe:
    """The recipe in a ``.toml`` or ``.json`` file; errors name the file.

    Example:
        >>> load_recipe("nope.yaml")
        Traceback (most recent call last):
        ...
        ValueError: nope.yaml: a recipe file is .toml or .json

    """
    where = Path(path)
    if where.suffix not in (".toml", ".json"):
        raise ValueError(f"{where}: a recipe file is .toml or .json")
    text = where.read_text(encoding="utf-8")
    try:
        if where.suffix == ".toml":
            return recipe_from_toml(text)
        return Recipe.from_record(json.loads(text))
    except (ValueError, TypeError) as error:  # json and toml decode errors are ValueErrors
        raise ValueError(f"{where}: {error}") from None


def _toml_value(value: Any) -> str:
    """A TOML value (strings as JSON writes them: TOML basic strings read them)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, str | int | float):
        return json.dumps(value, ensure_ascii=False)
    raise ValueError(f"cannot write {value!r} as TOML")


def _toml_table(name: str, values: Mapping[str, Any]) -> list[str]:
    """A table and its sub-tables, nulls left out."""
    lines = [f"[{name}]"]
    tables = []
    for key, value in values.items():
        if value is None:
            continue
        if isinstance(value, Mapping):
            tables.append((f"{name}.{key}", value))
        else:
            lines.append(f"{key} = {_toml_value(value)}")
    lines.append("")
    for table, inner in tables:
        lines.extend(_toml_table(table, inner))
    return lines
