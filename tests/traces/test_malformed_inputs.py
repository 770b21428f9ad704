"""Issue 12 (item 3): malformed input gives file, line and reason, and the good lines load.

The committed corpus (``tests/data/malformed/``, see its README) mixes good lines with one bad
line of each kind, for the trace reader and for every importer. The 50 MB line and the JSON
nested 100,000 deep are generated here. A hypothesis fuzz test feeds arbitrary bytes (and
mutated good rows) to the reader and the importers and accepts only the documented outcomes:
lines skipped and reported, or, for the trace reader, ``TraceFormatError`` for an unknown
schema version.
"""

from __future__ import annotations

import copy
import json
import re
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from llenvs.core import JsonLineError, parse_json_text
from llenvs.traces import TraceFormatError, TraceImport, TraceReader, trace_line
from tests.traces.factories import make_trace

CORPUS = Path(__file__).resolve().parents[1] / "data" / "malformed"
FORMATS = ["openai_chat", "reasoning_gym", "processbench", "prm800k"]

LINE_FAULTS = {
    3: "not JSON",
    5: "NUL bytes",
    6: "not UTF-8 text (byte 0xff at column",
    8: "byte-order mark (U+FEFF) starts this line; only line 1",
    9: "not UTF-8 text (byte 0xc0 at column",
}
"""The bad lines every corpus file starts with (line 4 is blank, ignored)."""

JSON_FAULTS = [
    "not JSON: NaN is not a JSON number",
    "not JSON: Infinity is not a JSON number",
    "not JSON: -Infinity is not a JSON number",
    "not JSON: a number too large for a float",
    "duplicate key 'extra_score' in one object",
    "a lone surrogate escape (\\ud800) is not Unicode text",
    None,  # a good row with an escaped surrogate pair (an emoji): loaded
    "not JSON: Expecting ',' delimiter",  # 50 [ and 49 ]
    "not JSON: Unterminated string",
    None,  # a good row
]
"""The lines that follow the wrong-type rows, in order."""

WRONG_TYPES = {
    "openai_chat": [
        "'messages' must be a list, got a string",
        "messages[0] has no text content",
        "role must be system, user or assistant, got 'robot'",
        "'choices' must be a list, got an object",
        "a batch output line without response.body (the request failed",
        "expected a JSON object, got list",
    ],
    "reasoning_gym": [
        "'response' must be a string, got 42",
        "'prompt' must be a string, got ['q']",
        "a score must be a number, got '1.0'",
        "'results[0].completions[0]' must be an object, got a string",
        "'results' must be a list, got a string",
        "expected a JSON object, got str",
    ],
    "processbench": [
        "'steps' must be a list of strings",
        "'steps' must be a list of strings",
        "'labels' must be a list of 1 values",
        "'label' must be the earliest wrong step (an integer) or -1, got '0'",
        "'problem' must be a string, got 7",
        "a step's prm_scores must map names to numbers",
    ],
    "prm800k": [
        "'question' must be an object, got a string",
        "'label.steps' must be a list, got a string",
        "label.steps[0].chosen_completion 3 is out of range: the step has 1 completion",
        "label.steps[0].chosen_completion must be an integer or null, got '0'",
        "a label must be 1, 0, -1 or null, got 5",
        "'label.steps[0].completions[0]' must be an object, got a string",
    ],
    "traces": [
        "trace.task.task_index: expected an integer, got '3'",
        "trace.segments: expected a list, got 'abc'",
        "trace.success: expected true or false, got 'yes'",
        "trace.schema_version: expected an integer, got '1'",
        "trace.schema_version: expected an integer, got True",
        "trace.response: missing",
        "trace: unknown field(s): colour",
        "trace.segments[0]: span [0, 999)",
        "trace: expected an object, got [1, 2]",
    ],
}
"""The reason of each wrong-type row (lines 10, 11, ...), by corpus file."""


def _expected(name: str) -> tuple[list[int], dict[int, str]]:
    """The good lines of a corpus file, and each bad line's reason fragment."""
    bad: dict[int, str] = dict(LINE_FAULTS)
    good = [1, 2, 7]
    number = 10
    for reason in WRONG_TYPES[name]:
        bad[number] = reason
        number += 1
    for fault in JSON_FAULTS:
        if fault is None:
            good.append(number)
        else:
            bad[number] = fault
        number += 1
    bad[number] = "torn last line" if name == "traces" else "last line cut short (no newline)"
    return good, bad


def _good_line(text: str) -> int:
    found = re.search(r"Good line (\d+)\.", text)
    assert found, text
    return int(found[1])


def _check_skipped(path: Path, skipped, bad: dict[int, str]) -> None:
    assert [s.line for s in skipped] == sorted(bad)
    for line in skipped:
        assert str(line).startswith(f"{path}, line {line.line}: ")
        assert bad[line.line] in line.reason, (line.line, line.reason)


@pytest.mark.parametrize("format", FORMATS)
def test_each_importer_reports_every_bad_line_and_loads_the_good_ones(format):
    path = CORPUS / f"{format}.jsonl"
    imported = TraceImport(format, path)
    traces = list(imported)
    good, bad = _expected(format)
    assert [_good_line(t.response) for t in traces] == good
    assert "\U0001f600" in traces[3].response  # the escaped surrogate pair became the emoji
    _check_skipped(path, imported.skipped, bad)
    article = "an" if format[0] in "aeiou" else "a"
    assert all(
        s.reason.startswith(f"not {article} {format} row: ")
        for s in imported.skipped
        if 10 <= s.line < 10 + len(WRONG_TYPES[format])
    )


def test_the_trace_reader_reports_every_bad_line_and_loads_the_good_ones():
    path = CORPUS / "traces.jsonl"
    reader = TraceReader(path)
    with pytest.warns(UserWarning) as caught:
        traces = list(reader)
    good, bad = _expected("traces")
    assert [t.trace_id for t in traces] == [f"good-{n}" for n in good]
    assert "\U0001f600" in traces[3].response
    _check_skipped(path, reader.skipped, bad)
    assert [s.torn for s in reader.skipped] == [s.line == max(bad) for s in reader.skipped]
    first = reader.skipped[0]
    assert [str(w.message) for w in caught] == [  # one warning for the pass, not one per line
        f"{len(bad)} line(s) of {path} could not be read and were skipped; the first: "
        f"line {first.line}: {first.reason}"
    ]


def test_an_unknown_schema_version_stops_the_read_naming_file_and_line():
    path = CORPUS / "traces_unknown_version.jsonl"
    stream = iter(TraceReader(path))
    assert [next(stream).trace_id, next(stream).trace_id] == ["good-1", "good-2"]
    with pytest.raises(TraceFormatError) as error:
        next(stream)
    assert str(error.value).startswith(
        f"{path}, line 3: unknown trace schema_version 99: this llenvs reads versions 1, 2, 3, 4, 5"
    )


@pytest.mark.parametrize("name", ["traces", *FORMATS])
def test_crlf_line_ends_throughout_change_nothing(tmp_path, name):
    source = (CORPUS / f"{name}.jsonl").read_bytes()
    lines = source.split(b"\n")
    crlf = b"\r\n".join(line.removesuffix(b"\r") for line in lines[:-1]) + b"\r\n" + lines[-1]
    path = tmp_path / f"{name}.jsonl"
    path.write_bytes(crlf)
    good, bad = _expected(name)
    if name == "traces":
        reader = TraceReader(path)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert [t.trace_id for t in reader] == [f"good-{n}" for n in good]
        skipped = reader.skipped
    else:
        imported = TraceImport(name, path)
        assert [_good_line(t.response) for t in imported] == good
        skipped = imported.skipped
    _check_skipped(path, skipped, bad)


# ---- generated: a 50 MB line, JSON nested 100,000 deep ----------------------------------------

FIFTY_MB = 50 * 1024 * 1024


def _good_row(format: str, number: int) -> dict:
    text = f"Good line {number}. So 4."
    return {
        "openai_chat": {
            "messages": [{"role": "user", "content": "Q?"}, {"role": "assistant", "content": text}]
        },
        "reasoning_gym": {"prompt": "Q?", "response": text, "score_as_logged": 1.0},
        "processbench": {"id": f"x-{number}", "problem": "Q?", "steps": [text]},
        "prm800k": {
            "question": {"problem": "Q?"},
            "label": {"steps": [{"completions": [{"text": text, "rating": 1}]}]},
        },
    }[format]


def _row_line(format: str, number: int) -> bytes:
    return (json.dumps(_good_row(format, number)) + "\n").encode()


def _trace_line(number: int, text: str = "") -> bytes:
    return trace_line(make_trace(texts=(f"Good line {number}. {text}",), trace_id=f"good-{number}"))


def _read_traces(path: Path) -> tuple[list[str], list]:
    reader = TraceReader(path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ids = [t.trace_id for t in reader]
    return ids, reader.skipped


def test_the_trace_reader_reads_a_50_mb_line_and_skips_a_50_mb_bad_one(tmp_path):
    path = tmp_path / "big.jsonl"
    with open(path, "wb") as handle:
        handle.write(_trace_line(1))
        handle.write(_trace_line(2, "x" * FIFTY_MB))  # a good 50 MB trace
        handle.write(b'{"response": "' + b"y" * FIFTY_MB + b"\n")  # 50 MB, not JSON
        handle.write(_trace_line(4))
    ids, skipped = _read_traces(path)
    assert ids == ["good-1", "good-2", "good-4"]
    assert [(s.line, s.reason[:28]) for s in skipped] == [(3, "not JSON: Unterminated strin")]


@pytest.mark.parametrize("format", FORMATS)
def test_each_importer_skips_a_50_mb_bad_line_and_loads_the_rest(tmp_path, format):
    path = tmp_path / "big.jsonl"
    with open(path, "wb") as handle:
        handle.write(_row_line(format, 1))
        handle.write(b'{"steps": 5, "messages": 5, "response": 5, "x": "' + b"z" * FIFTY_MB)
        handle.write(b'"}\n')  # a 50 MB row of the wrong shape
        handle.write(b"w" * FIFTY_MB + b"\n")  # 50 MB, not JSON
        handle.write(_row_line(format, 4))
    imported = TraceImport(format, path)
    assert [_good_line(t.response) for t in imported] == [1, 4]
    assert [s.line for s in imported.skipped] == [2, 3]
    assert imported.skipped[1].reason.startswith("not JSON")


DEEP = 100_000
DEEP_LINES = [
    b"[" * DEEP + b"]" * DEEP,
    b'{"a": ' * DEEP + b"1" + b"}" * DEEP,
    b'{"messages": ' + b"[" * DEEP + b"]" * DEEP + b"}",
]


def test_the_trace_reader_reports_json_nested_100000_deep(tmp_path):
    path = tmp_path / "deep.jsonl"
    path.write_bytes(_trace_line(1) + b"\n".join(DEEP_LINES) + b"\n" + _trace_line(5))
    ids, skipped = _read_traces(path)
    assert ids == ["good-1", "good-5"]
    assert [s.line for s in skipped] == [2, 3, 4]
    assert all(s.reason.startswith("nested too deeply") for s in skipped)


@pytest.mark.parametrize("format", FORMATS)
@pytest.mark.parametrize("first", [False, True], ids=["middle", "first-line"])
def test_each_importer_reports_json_nested_100000_deep(tmp_path, format, first):
    path = tmp_path / "deep.jsonl"
    deep = b"\n".join(DEEP_LINES) + b"\n"
    good = _row_line(format, 1 if not first else 4)
    path.write_bytes(deep + good if first else good + deep)
    imported = TraceImport(format, path)
    assert [_good_line(t.response) for t in imported] == [4 if first else 1]
    assert [s.line for s in imported.skipped] == ([1, 2, 3] if first else [2, 3, 4])
    assert all("nested too deeply" in s.reason for s in imported.skipped)


@pytest.mark.parametrize("depth", [50, 400, 800, 950, 990, 1100, 5000])
def test_deep_metadata_is_loaded_or_reported_never_raised(tmp_path, depth):
    line = _trace_line(1).rstrip(b"\n").replace(b'"trace_id": "good-1"', b'"trace_id": "deep"')
    start = line.index(b'"metadata": {') + len(b'"metadata": {')
    nested = b'"nested": ' + b"[" * depth + b"]" * depth + b", "
    line = line[:start] + nested + line[start:]
    path = tmp_path / "deep.jsonl"
    path.write_bytes(line + b"\n" + _trace_line(2))
    ids, skipped = _read_traces(path)
    assert ids[-1] == "good-2"
    if ids[0] != "deep":
        assert [(s.line, s.reason[:17]) for s in skipped] == [(1, "nested too deeply")]


# ---- fuzz: arbitrary bytes and mutated rows ------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=6),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=10,
)


def _paths(value, prefix=()):
    """Every key path into a JSON value."""
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _paths(item, (*prefix, index))


@st.composite
def mutated(draw, good: dict) -> bytes:
    """A good row with one value replaced (or removed), as a JSON line (NaN and all)."""
    row = copy.deepcopy(good)
    path = draw(st.sampled_from(list(_paths(row))[1:]))
    holder = row
    for key in path[:-1]:
        holder = holder[key]
    if draw(st.booleans()) and isinstance(holder, dict):
        del holder[path[-1]]
    else:
        holder[path[-1]] = draw(json_values)
    return json.dumps(row).encode()


GOOD_TRACE = make_trace().to_dict()


def _lines(good: dict):
    one = st.one_of(
        st.binary(max_size=60),
        st.just(json.dumps(good).encode()),
        mutated(good),
        json_values.map(lambda v: json.dumps(v).encode()),
        st.binary(max_size=200).map(lambda b: json.dumps(good).encode()[: len(b)] + b),
    )
    separators = st.sampled_from([b"\n", b"\r\n", b"\n\n", b"\r"])
    return st.lists(st.tuples(one, separators), max_size=5).map(
        lambda parts: b"".join(line + end for line, end in parts)
    )


FUZZ = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@FUZZ
@given(data=st.one_of(st.binary(max_size=400), _lines(GOOD_TRACE)), bom=st.booleans())
def test_fuzz_the_trace_reader_gives_only_documented_outcomes(tmp_path, data, bom):
    path = tmp_path / "fuzz.jsonl"
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + data)
    reader = TraceReader(path)
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        try:
            for trace in reader:
                trace_line(trace)  # whatever loads can be written back
        except TraceFormatError as error:
            assert "unknown trace schema_version" in str(error)
            assert str(error).startswith(f"{path}, line ")
    for line in reader.skipped:
        assert line.path == str(path) and line.line >= 1 and line.reason


@FUZZ
@given(
    format=st.sampled_from(FORMATS),
    data=st.data(),
    bom=st.booleans(),
)
def test_fuzz_the_importers_never_raise_on_content(tmp_path, format, data, bom):
    good = _good_row(format, 1)
    pretty = st.lists(st.just(good) | json_values, max_size=3).map(  # one JSON document
        lambda items: json.dumps(items if len(items) != 1 else items[0], indent=1).encode()
    )
    raw = data.draw(st.one_of(st.binary(max_size=400), _lines(good), pretty))
    path = tmp_path / "fuzz.jsonl"
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + raw)
    imported = TraceImport(format, path)
    for trace in imported:
        trace_line(trace)  # whatever loads can be written back
    for line in imported.skipped:
        assert line.path == str(path) and line.line >= 1 and line.reason


# ---- lines the corpus does not cover ------------------------------------------------------------


def _spliced(old: bytes, new: bytes) -> bytes:
    line = _trace_line(1)
    assert old in line
    return line.replace(old, new, 1)


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        (_spliced(b'"prefix_steps": 0', b'"prefix_steps": 0, "prefix_steps": 1'), "duplicate key"),
        (_spliced(b'"x": []', b'"x": [{"a": 1, "b": {"c": 2, "c": 3}}]'), "duplicate key 'c'"),
        (_spliced(b'"format": 1.0', b'"format": 1' + b"0" * 400), "a number out of range"),
        (_spliced(b'"format": 1.0', b'"format": 1e999'), "a number too large for a float"),
        (_spliced(b'"prefix_steps": 0', b'"a\\u003a": 1, "a:": 2'), "duplicate key 'a:'"),
        (_spliced(b'"prefix_steps": 0', b'"a\\u003a": 1, "b:": 2'), None),  # no duplicate
        (_spliced(b'"prefix_steps": 0', b'"k": "\\udc00"'), "a lone surrogate escape (\\udc00)"),
        (b"\xef\xbb\xbf\n", None),  # a second byte-order mark alone: not on line 1
    ],
)
def test_more_bad_lines_are_named_and_good_ones_load(tmp_path, line, reason):
    path = tmp_path / "more.jsonl"
    path.write_bytes(_trace_line(7) + line.rstrip(b"\n") + b"\n" + _trace_line(9))
    ids, skipped = _read_traces(path)
    if reason is None and not line.startswith(b"\xef"):
        assert ids == ["good-7", "good-1", "good-9"] and skipped == []
    elif reason is None:
        assert ids == ["good-7", "good-9"]
        assert [(s.line, s.reason[:16]) for s in skipped] == [(2, "a byte-order mar")]
    else:
        assert ids == ["good-7", "good-9"]
        assert [s.line for s in skipped] == [2] and reason in skipped[0].reason


keys = st.sampled_from(["a", "b", "a:", ":", "b::"])


@st.composite
def json_with_pairs(draw, depth=0):
    """JSON text whose objects may repeat a key (colons sometimes escaped), and whether one does."""
    kind = draw(st.sampled_from(["scalar", "list", "object"] if depth < 3 else ["scalar"]))
    if kind == "scalar":
        text = draw(st.sampled_from(["1", '"x:y"', "null", '"\\u003a"', "2.5"]))
        return text, False
    if kind == "list":
        items = draw(st.lists(json_with_pairs(depth + 1), max_size=3))
        return "[" + ", ".join(t for t, _ in items) + "]", any(d for _, d in items)
    pairs = draw(st.lists(st.tuples(keys, json_with_pairs(depth + 1)), max_size=4))
    rendered = []
    for key, (value, _) in pairs:
        escape = draw(st.booleans())
        shown = key.replace(":", "\\u003a") if escape else key
        rendered.append(f'"{shown}": {value}')
    names = [key for key, _ in pairs]
    twice = len(set(names)) != len(names) or any(d for _, (_, d) in pairs)
    return "{" + ", ".join(rendered) + "}", twice


@settings(max_examples=400, deadline=None)
@given(json_with_pairs())
def test_a_key_given_twice_is_found_exactly(case):
    text, twice = case
    if twice:
        with pytest.raises(JsonLineError, match="duplicate key"):
            parse_json_text(text)
    else:
        assert parse_json_text(text) == json.loads(text)
