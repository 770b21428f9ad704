r"""The ``huggingface`` adapter: a question-answer dataset from the hub or from a local file.

``name`` is a hub dataset (``"HuggingFaceH4/aime_2024"``, loaded with ``datasets.load_dataset``
online or from the local cache) or a local file (``.jsonl``, ``.json``, ``.csv``, ``.parquet``,
chosen by extension). The question and answer columns default to the first present of
``QUESTION_COLUMNS`` and ``ANSWER_COLUMNS`` (``problem``/``question``/..., ``answer``/
``solution``/...); pass ``question_column=``/``answer_column=`` to choose. Answers are compared
with ``math-verify`` (``parse`` then ``verify``, so ``0.5`` matches ``\frac{1}{2}``), falling
back to a plain comparison (case, surrounding space and ``$`` ignored) when either side does not
parse. Needs the ``hf`` extra (``datasets``, ``math-verify``).

Example:
    >>> import json, tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "sums.jsonl"
    >>> _ = path.write_text(json.dumps({"problem": "1 + 1?", "answer": "2"}) + "\n")
    >>> env = make_environment(str(path))
    >>> from llenvs.core import Action
    >>> state, _ = env.reset(options={"task_index": 0})
    >>> env.step(state, Action("<answer>2.0</answer>")).rewards.as_dict()
    {'correctness': 1.0, 'format': 1.0}

"""

from __future__ import annotations

import math
import threading
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from llenvs.adapters._question_answer import DEFAULT_INSTRUCTION, QuestionAnswerEnvironment
from llenvs.adapters._task import Task
from llenvs.core import EnvSpec, RewardFunction

__all__ = [
    "ANSWER_COLUMNS",
    "LOCAL_FORMATS",
    "QUESTION_COLUMNS",
    "HuggingFaceEnvironment",
    "answers_match",
    "make_environment",
]

QUESTION_COLUMNS = ("problem", "question", "prompt", "input", "query")
"""Question columns tried in order when none is given."""
ANSWER_COLUMNS = ("answer", "final_answer", "solution", "target", "output", "label")
"""Answer columns tried in order when none is given."""
LOCAL_FORMATS = {".jsonl": "json", ".json": "json", ".csv": "csv", ".parquet": "parquet"}
"""Local file extensions and the ``datasets`` builder that reads each."""


def _datasets() -> Any:
    try:
        import datasets
    except ImportError as err:
        raise ImportError(
            "the huggingface adapter needs the 'hf' extra: pip install 'llenvs[hf]'"
        ) from err
    return datasets


def _load(name: str, split: str | None, config: str | None) -> Any:
    """The rows of ``split`` of a local file or a hub dataset."""
    datasets = _datasets()
    path = Path(name).expanduser()
    if path.suffix.lower() in LOCAL_FORMATS or path.exists():
        builder = LOCAL_FORMATS.get(path.suffix.lower())
        if builder is None:
            raise ValueError(f"{name!r}: local dataset files are .jsonl, .json, .csv or .parquet")
        if not path.is_file():
            raise ValueError(f"no local dataset file {name!r} (found no such file)")
        loaded = datasets.load_dataset(builder, data_files={"train": str(path)})
        return _split(loaded, name, split or "train")
    try:
        loaded = datasets.load_dataset(name, config)
    except Exception as err:
        raise ValueError(
            f"cannot load the Hugging Face dataset {name!r} ({type(err).__name__}: {err}). "
            "Without network only datasets already in the local cache load; download it where "
            "there is network, or load a local file instead: environment_registry.get("
            "name='path/to/tasks.jsonl', adapter='huggingface') (.jsonl, .json, .csv, .parquet)"
        ) from err
    return _split(loaded, name, split)


def _split(loaded: Any, name: str, split: str | None) -> Any:
    splits = list(loaded)
    if split is None:
        split = "train" if "train" in splits else ("test" if "test" in splits else splits[0])
    if split not in splits:
        raise ValueError(f"dataset {name!r} has no split {split!r}: choose one of {splits}")
    return loaded[split]


def _column(given: str | None, candidates: Sequence[str], columns: list[str], what: str) -> str:
    if given is not None:
        if given not in columns:
            raise ValueError(f"no {what} column {given!r}: the columns are {columns}")
        return given
    for candidate in candidates:
        if candidate in columns:
            return candidate
    raise ValueError(
        f"no {what} column found (tried {list(candidates)}): the columns are {columns}; "
        f"choose one with {what}_column="
    )


def _plain(text: str) -> str:
    return text.strip().strip("$").strip().casefold()


def answers_match(answer: str, expected: str) -> bool:
    r"""Whether ``answer`` equals ``expected``: math-verify first, then plain text.

    Example:
        >>> answers_match("0.5", "\\frac{1}{2}"), answers_match("Paris", " paris")
        (True, True)
        >>> answers_match("3", "4")
        False
        >>> answers_match("-\\dfrac{1}{4027}", "-\\frac{1} { 4027}")
        True

    """
    try:
        from math_verify import parse, verify
    except ImportError:  # pragma: no cover - the hf extra installs it
        return _plain(answer) == _plain(expected)

    def check() -> bool:
        # math-verify's own timeouts use SIGALRM (whole seconds), which only the main thread
        # may set
        main = threading.current_thread() is threading.main_thread()
        timeout = math.ceil(ANSWER_TIMEOUT_S) if main else None
        # a bare LaTeX answer parses wrongly without its dollars (``-\frac{1} { 4027}`` as
        # 4027), so both readings of each side are tried
        golds = [p for p in (parse(expected, parsing_timeout=timeout), parse(f"${expected}$")) if p]
        guesses = [p for p in (parse(answer, parsing_timeout=timeout), parse(f"${answer}$")) if p]
        return any(
            verify(gold, guess, timeout_seconds=timeout) for gold in golds for guess in guesses
        )

    try:
        if _within(check, ANSWER_TIMEOUT_S):
            return True
    except Exception:  # math-verify's own failures fall back to plain comparison
        pass
    return _plain(answer) == _plain(expected)


def _within(check: Callable[[], bool], seconds: float) -> bool:
    """``check()``, given at most ``seconds`` (False, with a warning, past them).

    Off the main thread (the workbench's jobs, where SIGALRM cannot be used) it runs in a
    thread of its own, abandoned after ``seconds``, so one pathological answer cannot hang a
    run.
    """
    if threading.current_thread() is threading.main_thread():
        return check()
    outcome: list[bool | BaseException] = []

    def run() -> None:
        try:
            outcome.append(check())
        except BaseException as error:  # handed to the caller below
            outcome.append(error)

    worker = threading.Thread(target=run, name="llenvs-answer-check", daemon=True)
    worker.start()
    worker.join(seconds)
    if not outcome:
        warnings.warn(
            f"math-verify took longer than {seconds} s to compare an answer; compared as "
            "plain text instead",
            RuntimeWarning,
            stacklevel=3,
        )
        return False
    if isinstance(outcome[0], BaseException):
        raise outcome[0]
    return outcome[0]


ANSWER_TIMEOUT_S = 5.0
"""Longest math-verify may take to compare one answer before plain comparison is used."""


class HuggingFaceEnvironment(QuestionAnswerEnvironment):
    """A question-answer dataset (hub or local file) as a single-turn environment.

    Example:
        >>> issubclass(HuggingFaceEnvironment, QuestionAnswerEnvironment)
        True

    """

    def __init__(
        self,
        name: str,
        *,
        split: str | None = None,
        config: str | None = None,
        question_column: str | None = None,
        answer_column: str | None = None,
        size: int | None = None,
        instruction: str = DEFAULT_INSTRUCTION,
        system_prompt: str | None = None,
        reward_functions: Sequence[RewardFunction] | None = None,
    ) -> None:
        rows = _load(name, split, config)
        columns = list(rows.column_names)
        self.question_column = _column(question_column, QUESTION_COLUMNS, columns, "question")
        self.answer_column = _column(answer_column, ANSWER_COLUMNS, columns, "answer")
        if size is not None:
            if isinstance(size, bool) or not isinstance(size, int) or size <= 0:
                raise ValueError(f"size must be a positive int, got {size!r}")
            rows = rows.select(range(min(size, len(rows))))
        self.rows = rows
        options = {"split": split, "config": config, "size": size}
        options |= {"question_column": self.question_column, "answer_column": self.answer_column}
        super().__init__(
            EnvSpec(name, "huggingface", options),
            instruction=instruction,
            system_prompt=system_prompt,
            reward_functions=reward_functions,
        )

    def __len__(self) -> int:
        return len(self.rows)

    def task(self, index: int) -> Task:
        """Row ``index``: its question and answer columns, and the whole row."""
        row = dict(self.rows[index])
        answer = row[self.answer_column]
        return Task(
            index,
            str(row[self.question_column]),
            None if answer is None else str(answer),
            row,
        )

    def score(self, answer: str | None, task: Task) -> float:
        """1.0 when the answer matches (``answers_match``), else 0.0."""
        if answer is None or task.answer is None:
            return 0.0
        return float(answers_match(answer, task.answer))


def make_environment(name: str, **kwargs: Any) -> HuggingFaceEnvironment:
    """The registry's factory: ``environment_registry.get(name=..., adapter="huggingface")``.

    Example:
        >>> make_environment("missing.jsonl")
        Traceback (most recent call last):
        ...
        ValueError: no local dataset file 'missing.jsonl' (found no such file)

    """
    return HuggingFaceEnvironment(name, **kwargs)
