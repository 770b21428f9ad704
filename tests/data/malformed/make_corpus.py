"""Writes the corpus of tests/data/malformed/: good lines mixed with one bad line of each kind.

Run from the repository root: ``.venv/bin/python tests/data/malformed/make_corpus.py``. The
files it writes are committed; ``README.md`` beside it lists what each line holds, and
``tests/traces/test_malformed_inputs.py`` what each must give. The 50 MB line and the JSON
nested 100,000 deep are made by the tests themselves, never committed.
"""

import json
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent
BOM = b"\xef\xbb\xbf"


def dumps(obj) -> bytes:
    return json.dumps(obj, ensure_ascii=False).encode()


def corpus(good, wrong_types, name):
    """good(n) -> dict for a good row whose text says 'Good line n.'"""
    L = []
    L.append(BOM + dumps(good(1)) + b"\n")  # 1 BOM on line 1: accepted
    L.append(dumps(good(2)) + b"\r\n")  # 2 CRLF: accepted
    L.append(dumps(good(3))[:45] + b"\n")  # 3 truncated line
    L.append(b"\n")  # 4 blank: ignored
    L.append(b"\x00" * 24 + b"\n")  # 5 NUL bytes (zero-filled block)
    L.append(
        dumps(good(6)).replace(b"Good line 6.", b"Good line 6. caf\xff") + b"\n"
    )  # 6 invalid UTF-8
    L.append(dumps(good(7)) + b"\n")  # 7 good
    L.append(BOM + dumps(good(8)) + b"\n")  # 8 BOM not on line 1
    L.append(
        dumps(good(9)).replace(b"Good line 9.", b"Good line 9. \xc0\xaf") + b"\n"
    )  # 9 overlong UTF-8
    n = 10
    for bad in wrong_types:  # 10.. wrong field types
        L.append(dumps(bad) + b"\n")
        n += 1

    def put(raw: bytes):
        nonlocal n
        L.append(raw + b"\n")
        n += 1

    put(dumps(good(n))[:-1] + b', "extra_score": NaN}')  # NaN
    put(dumps(good(n))[:-1] + b', "extra_score": Infinity}')  # Infinity
    put(dumps(good(n))[:-1] + b', "extra_score": -Infinity}')  # -Infinity
    put(dumps(good(n))[:-1] + b', "extra_score": 1e400}')  # overflows a float
    put(dumps(good(n))[:-1] + b', "extra_score": 1, "extra_score": 2}')  # duplicate keys
    put(dumps(good(n)).replace(b"Good line", b"\\ud800 Good line"))  # lone surrogate
    put(json.dumps(good(n, "\U0001f600 "), ensure_ascii=True).encode())  # a valid pair: good
    put(b"[" * 50 + b"]" * 49)  # nested, unclosed
    put(b'{"unterminated": "string')  # not JSON
    put(dumps(good(n)))  # good
    L.append(dumps(good(n))[: len(dumps(good(n))) // 2])  # torn last line (no newline)
    (OUT / name).write_bytes(b"".join(L))


def main():
    from tests.traces.factories import make_trace

    def chat(n, p=""):
        return {
            "messages": [
                {"role": "user", "content": f"Question {n}?"},
                {"role": "assistant", "content": f"{p}Good line {n}. Done."},
            ]
        }

    corpus(
        chat,
        [
            {"messages": "Good line? a string"},
            {"messages": [{"role": "user", "content": 5}, {"role": "assistant", "content": "x"}]},
            {
                "messages": [
                    {"role": "robot", "content": "q"},
                    {"role": "assistant", "content": "x"},
                ]
            },
            {"choices": {"message": "not a list"}},
            {"custom_id": "c1", "response": None, "error": {"message": "rate limited"}},
            [1, 2, 3],
        ],
        "openai_chat.jsonl",
    )

    def gym(n, p=""):
        return {
            "source": f"runs/leg_counting.json results[{n}].completions[0]",
            "model": "m",
            "prompt": "How many legs?",
            "response": f"{p}Good line {n}. So 4.",
            "expected_answer": "4",
            "score_as_logged": 1.0,
        }

    corpus(
        gym,
        [
            {"source": "x", "prompt": "q", "response": 42},
            {"source": "x", "prompt": ["q"], "response": "r"},
            {"source": "x", "prompt": "q", "response": "r", "score_as_logged": "1.0"},
            {"dataset_name": "leg_counting", "results": [{"question": "q", "completions": ["r"]}]},
            {"dataset_name": "leg_counting", "results": "none"},
            "just a string",
        ],
        "reasoning_gym.jsonl",
    )

    def bench(n, p=""):
        return {
            "id": f"gsm8k-{n}",
            "problem": "2 + 2?",
            "steps": [f"{p}Good line {n}.", "So 4."],
            "label": -1,
            "final_answer_correct": True,
        }

    corpus(
        bench,
        [
            {"id": "a", "problem": "p", "steps": "one step"},
            {"id": "a", "problem": "p", "steps": ["s", 2]},
            {"id": "a", "problem": "p", "steps": ["s"], "labels": [1, 1]},
            {"id": "a", "problem": "p", "steps": ["s"], "label": "0"},
            {"id": "a", "problem": 7, "steps": ["s"]},
            {"id": "a", "problem": "p", "steps": ["s"], "prm_scores": [{"prm": "high"}]},
        ],
        "processbench.jsonl",
    )

    def prm(n, p=""):
        return {
            "question": {"problem": "2 + 2?", "ground_truth_answer": "4"},
            "label": {
                "steps": [
                    {
                        "completions": [{"text": f"{p}Good line {n}.", "rating": 1}],
                        "chosen_completion": 0,
                    }
                ],
                "finish_reason": "solution",
            },
        }

    corpus(
        prm,
        [
            {"question": "2 + 2?", "label": {"steps": []}},
            {"question": {"problem": "p"}, "label": {"steps": "s"}},
            {
                "question": {"problem": "p"},
                "label": {
                    "steps": [{"completions": [{"text": "s", "rating": 1}], "chosen_completion": 3}]
                },
            },
            {
                "question": {"problem": "p"},
                "label": {
                    "steps": [
                        {"completions": [{"text": "s", "rating": 1}], "chosen_completion": "0"}
                    ]
                },
            },
            {
                "question": {"problem": "p"},
                "label": {"steps": [{"completions": [{"text": "s", "rating": 5}]}]},
            },
            {"question": {"problem": "p"}, "label": {"steps": [{"completions": ["s"]}]}},
        ],
        "prm800k.jsonl",
    )

    def trace(n, p=""):
        data = make_trace(
            texts=(f"{p}Good line {n}. ", "So 8."),
            trace_id=f"good-{n}",
            created_at="2025-01-01T00:00:00+00:00",
        ).to_dict()
        # The corpus was written in schema version 1 and stays so (version 1 is still read).
        data["schema_version"] = 1
        del data["run"]["prm"], data["run"]["answer_opening"]
        return data

    bad_traces = []
    t = trace(0)
    t["task"]["task_index"] = "3"
    bad_traces.append(t)
    t = trace(0)
    t["segments"] = "abc"
    bad_traces.append(t)
    t = trace(0)
    t["success"] = "yes"
    bad_traces.append(t)
    t = trace(0)
    t["schema_version"] = "1"
    bad_traces.append(t)
    t = trace(0)
    t["schema_version"] = True
    bad_traces.append(t)
    t = trace(0)
    del t["response"]
    bad_traces.append(t)
    t = trace(0)
    t["colour"] = "blue"
    bad_traces.append(t)
    t = trace(0)
    t["segments"][0]["end"] = 999
    bad_traces.append(t)
    bad_traces.append([1, 2])
    corpus(trace, bad_traces, "traces.jsonl")

    # An unknown schema version: refused, naming the line; the traces before it loaded.
    newer = trace(3)
    newer["schema_version"] = 99  # a version no llenvs writes yet
    (OUT / "traces_unknown_version.jsonl").write_bytes(
        dumps(trace(1))
        + b"\n"
        + dumps(trace(2))
        + b"\n"
        + dumps(newer)
        + b"\n"
        + dumps(trace(4))
        + b"\n"
    )


if __name__ == "__main__":
    sys.path.insert(0, str(OUT.parents[2]))
    main()
