import dataclasses
from pathlib import Path

from llenvs.experiments._sidecar_doc import EXAMPLES, RECORDS, sidecar_markdown
from llenvs.traces import attribute_docs

DOC = Path(__file__).resolve().parents[2] / "docs" / "sidecars.md"


def test_the_committed_doc_is_up_to_date():
    assert DOC.read_text(encoding="utf-8") == sidecar_markdown(), (
        "docs/sidecars.md is stale: run "
        "python -m llenvs.experiments._sidecar_doc > docs/sidecars.md"
    )


def test_every_field_has_a_one_line_description():
    for _, record in RECORDS:
        docs = attribute_docs(record)
        missing = [f.name for f in dataclasses.fields(record) if not docs.get(f.name)]
        assert missing == [], f"{record.__name__} fields without a docstring: {missing}"


def test_the_tables_name_exactly_what_the_writers_store():
    for _, record in RECORDS:
        fields = {f.name for f in dataclasses.fields(record)}
        own = {"kind", "experiment_version"} - fields  # the line's own, not the record's
        assert set(EXAMPLES[record]) - own == fields, record.__name__
