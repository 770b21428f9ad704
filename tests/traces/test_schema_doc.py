import dataclasses
from pathlib import Path

from llenvs.traces import CHOICES, JSON_NAMES, RECORDS, attribute_docs, schema_markdown

DOC = Path(__file__).resolve().parents[2] / "docs" / "traces.md"


def test_the_committed_doc_is_up_to_date():
    assert DOC.read_text(encoding="utf-8") == schema_markdown(), (
        "docs/traces.md is stale: run python -m llenvs.traces._schema_doc > docs/traces.md"
    )


def test_every_field_and_choice_has_a_one_line_description():
    for _, record in RECORDS:
        docs = attribute_docs(record)
        missing = [f.name for f in dataclasses.fields(record) if not docs.get(f.name)]
        assert missing == [], f"{record.__name__} fields without a docstring: {missing}"
    for _, choice in CHOICES:
        docs = attribute_docs(choice)
        assert all(docs.get(member.name) for member in choice), choice.__name__


def test_every_field_of_the_json_is_documented():
    doc = schema_markdown()
    for _, record in RECORDS:
        for field in dataclasses.fields(record):
            assert f"`{JSON_NAMES.get(record, {}).get(field.name, field.name)}`" in doc
