"""docs/OPERATORS.md is the table the schema registry generates (sluice.tools.operators)."""

import pathlib

from sluice.tools import operators

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "OPERATORS.md"


def test_operators_md_is_up_to_date():
    assert DOC.read_text() == operators.markdown(), (
        f"docs/OPERATORS.md is stale: regenerate it with `{operators.COMMAND}`")


def test_the_table_lists_every_public_operator_once_with_its_first_sentence():
    schemas = [{"name": "b.op", "devices": ["cpu"], "internal": False, "aliases": ["BOp"],
                "doc": "Does b (see a.b). Then more."},
               {"name": "_hidden", "devices": ["cpu"], "internal": True, "aliases": [], "doc": "x"},
               {"name": "a", "devices": ["cpu", "gpu"], "internal": False, "aliases": [],
                "doc": "Splits [x[0], x[1]) | y. More."}]
    rows = [line for line in operators.markdown(schemas).splitlines() if line.startswith("| `")]
    assert rows == ["| `a` | cpu, gpu | Splits [x[0], x[1]) \\| y. |  |",
                    "| `b.op` | cpu | Does b (see a.b). | `BOp` |"]
