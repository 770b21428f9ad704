"""Cold start benchmark: the first model action in a fresh process, cold against warm.

Run from the repository root::

    .venv/bin/python bench/cold_start.py                 # written to docs/benchmarks.md
    .venv/bin/python bench/cold_start.py --repeat 1 --samples 4 --no-write

The action is the workbench's first model action in the tour: the on-policy check of a forced
text (``on_policy``, ``--samples`` continuations), "The answer to this question is 2." forced as
segment 0 of letter_counting-smollm2.jsonl line 14, with the embedded SmolLM2-135M-Instruct
built as the workbench builds it (``build_backend`` of the choice's ``pool_spec``). Each run is
a fresh Python process that imports llenvs, torch and transformers, finds (or makes) the
converted model, loads it, runs the action and, in the same process, runs it again: warm. The
phases are timed in the process; the time to the first result counts from the process's start.
The cases, in turn, ``--repeat`` times each:

1. first use: an empty cache folder (``LLENVS_CACHE_DIR``), so the GGUF is converted first;
2. installed: the converted folder present, as ``make install`` leaves it;
3. the conversion alone as it was before (transformers' own GGUF loading, then
   ``save_pretrained``), in a fresh process, against case 1's conversion.

Every figure is the median of the runs, the fastest in brackets. The GGUF and the converted
files are in the OS page cache after the first run (a first start after a reboot reads them from
disk too). The machine's load average is printed: on a shared machine the runs are slower, and
the cold and warm figures of one row come from the same processes.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_common import ROOT, publish

HEADING = "## Cold start: the first model action (`bench/cold_start.py`)"
TRACE = ROOT / "sample_traces" / "letter_counting-smollm2.jsonl"
LINE = 14
TEXT = "The answer to this question is 2."
CASES = {
    "first-use": "first use: no converted model (the GGUF converted first)",
    "installed": "installed (`make install` converted the model)",
}
PHASES = ("imports", "convert", "load", "action", "first_result", "warm")


def child(case: str, launched: float, samples: int) -> dict[str, float]:
    """One fresh process's phases (run with ``--child``), in seconds."""
    seconds: dict[str, float] = {}
    mark = time.perf_counter()

    def lap(phase: str) -> None:
        nonlocal mark
        now = time.perf_counter()
        seconds[phase] = now - mark
        mark = now

    if case == "transformers-conversion":
        import torch
        import transformers

        lap("imports")
        _transformers_conversion(Path(tempfile.mkdtemp()))
        lap("convert")
        return seconds
    import torch  # noqa: F401 - imported here as the first model action imports it
    import transformers  # noqa: F401

    from llenvs.evaluation.branching import on_policy
    from llenvs.inference import build_backend
    from llenvs.inference._backends.embedded_model import embedded_model_path
    from llenvs.traces import read_traces
    from llenvs.workbench.models import ModelChoice, ModelKind, pool_spec

    lap("imports")
    embedded_model_path(progress=False)
    lap("convert")
    spec = pool_spec(ModelChoice(ModelKind.EMBEDDED))
    backend = build_backend(spec, progress=False)
    lap("load")
    trace = list(read_traces(TRACE))[LINE - 1]
    first = on_policy(trace, 0, TEXT, backend, samples=samples)
    lap("action")
    seconds["first_result"] = time.time() - launched
    again = on_policy(trace, 0, TEXT, backend, samples=samples)
    lap("warm")
    if again.sample_means != first.sample_means:  # the same seeds: the same samples
        raise SystemExit("the warm action differs from the cold one")
    return seconds


def _transformers_conversion(folder: Path) -> None:
    """The conversion before ``gguf_folder``: transformers' GGUF loading, then saved."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from llenvs.inference import quiet_transformers
    from llenvs.inference._backends.embedded_model import find_embedded_gguf

    source = find_embedded_gguf()
    with quiet_transformers():
        loaded = AutoModelForCausalLM.from_pretrained(str(source.parent), gguf_file=source.name)
        tokenizer = AutoTokenizer.from_pretrained(str(source.parent), gguf_file=source.name)
        config = loaded.config
        del config.quantization_config
        model = AutoModelForCausalLM.from_config(config)
        model.load_state_dict(loaded.state_dict(), strict=False)
        model.save_pretrained(str(folder))
        tokenizer.save_pretrained(str(folder))
    shutil.rmtree(folder)


def run_child(case: str, cache: Path, samples: int) -> dict[str, float]:
    """Start a fresh process for ``case`` with ``cache`` as ``LLENVS_CACHE_DIR``."""
    environment = dict(os.environ, LLENVS_CACHE_DIR=str(cache), PYTHONPATH=str(ROOT))
    command = [sys.executable, __file__, "--child", case, "--samples", str(samples)]
    command += ["--launched", repr(time.time())]
    done = subprocess.run(command, env=environment, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{case} run failed:\n{done.stderr[-3000:]}")
    seconds: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    print(f"{case}: " + ", ".join(f"{k} {v:.1f}" for k, v in seconds.items()), file=sys.stderr)
    return seconds


def measure(repeat: int, samples: int) -> tuple[dict[str, list[dict[str, float]]], float]:
    """Every case's runs (in turn, ``repeat`` times), and the seconds it all took."""
    started = time.perf_counter()
    root = Path(tempfile.mkdtemp(prefix="llenvs-cold-start-"))
    runs: dict[str, list[dict[str, float]]] = {case: [] for case in [*CASES, "transformers"]}
    try:
        installed = root / "installed"
        run_child("installed", installed, 1)  # converts once: the folder make install leaves
        for turn in range(repeat):
            runs["first-use"].append(run_child("first-use", root / f"empty-{turn}", samples))
            runs["installed"].append(run_child("installed", installed, samples))
            runs["transformers"].append(run_child("transformers-conversion", root, samples))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return runs, time.perf_counter() - started


def _figure(runs: list[dict[str, float]], phase: str) -> str:
    values = [run[phase] for run in runs]
    return f"{statistics.median(values):.1f} ({min(values):.1f})"


def section(
    runs: dict[str, list[dict[str, float]]], seconds: float, args: argparse.Namespace
) -> str:
    """The markdown section (see the module docstring)."""
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    command = " ".join(["bench/cold_start.py", *sys.argv[1:]]).strip()
    load = ", ".join(f"{x:.1f}" for x in args.load_before)
    load_after = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    lines = [
        HEADING,
        "",
        f"Command: `.venv/bin/python {command}` — run {now} on {platform.machine()}, Python "
        f"{platform.python_version()}, {os.cpu_count()} cores, load average {load} before and "
        f"{load_after} after, {seconds:.0f} s in all. The action: the on-policy check "
        f'({args.samples} samples) of "{TEXT}" forced as segment 0 of '
        f"`{TRACE.name}` line {LINE}, with the embedded SmolLM2-135M-Instruct, each run in a "
        "fresh process that then runs it again (warm). Figures: the median of the runs, the "
        "fastest in brackets; the files are in the OS page cache.",
        "",
        "| case | runs | imports s | conversion s | loading s | the action, cold s "
        "| to its result from the process's start s | the action again, warm s "
        "| first result / warm |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for case, title in CASES.items():
        rows = runs[case]
        ratio = statistics.median(r["first_result"] / r["warm"] for r in rows)
        figures = " | ".join(_figure(rows, phase) for phase in PHASES)
        lines.append(f"| {title} | {len(rows)} | {figures} | {ratio:.1f}x |")
    theirs, ours = runs["transformers"], runs["first-use"]
    lines += [
        "",
        f"The conversion alone, in a fresh process: {_figure(ours, 'convert')} s here "
        f"(`gguf_folder.save_llama_folder`: the file read once) against "
        f"{_figure(theirs, 'convert')} s as it was (transformers' own GGUF loading, which "
        f"parses the file three times; its imports, {_figure(theirs, 'imports')} s, apart). "
        "Warm is the same check again in the same process; the time to the first result adds "
        "what a fresh process pays before it: Python and the imports, the conversion, the "
        "loading, the first forward passes.",
        "",
    ]
    return "\n".join(lines)


def main() -> None:
    """Run the cases (or one fresh process's, with ``--child``) and publish the section."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs of each case")
    parser.add_argument("--samples", type=int, default=16, help="the check's samples")
    parser.add_argument("--no-write", action="store_true", help="print only")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--launched", type=float, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.launched, args.samples)))
        return
    args.load_before = os.getloadavg()
    runs, seconds = measure(args.repeat, args.samples)
    publish(HEADING, section(runs, seconds, args), write=not args.no_write)


if __name__ == "__main__":
    main()
