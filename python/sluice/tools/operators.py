"""The supported operators as a Markdown table, generated from the schema registry.

    python -m sluice.tools.operators > docs/OPERATORS.md

regenerates docs/OPERATORS.md (tests/python/test_operators_doc.py fails when it is stale).
Schemas are registered in every build, with or without CUDA, so the table is the same in all.
"""

import sys

COMMAND = "python -m sluice.tools.operators > docs/OPERATORS.md"


def first_sentence(doc):
    """The doc string up to its first full stop outside parentheses."""
    depth = 0
    for i, c in enumerate(doc):
        depth += (c in "([") - (c in ")]")
        if c == "." and depth <= 0 and (i + 1 == len(doc) or doc[i + 1] == " "):
            return doc[:i + 1]
    return doc


def markdown(schemas=None):
    """The table of the public operators (name, devices, one-line doc, DALI's other names)."""
    if schemas is None:
        from sluice import _sluice

        schemas = _sluice.schemas()
    lines = [
        "# Supported operators",
        "",
        f"Generated from the schema registry by `{COMMAND}`: do not edit it by hand.",
        "",
        "Each operator is `fn.<name>` (and `ops.<Name>`) in Python; its `device` argument picks the",
        "implementation. `mixed` and `gpu` need a build with CUDA, the mixed decoders also nvJPEG.",
        "The Python front end adds `fn.external_source`, arithmetic on `DataNode`s (`+ - * / // %",
        "**`, comparisons, `& | ^ ~ << >>`) and `sluice.math` (internal `_arithmetic`), indexing",
        "(`_tensor_subscript`), `DataNode.shape()` (`shapes`) and `DataNode.gpu()`. Adding an",
        "operator:",
        "[ADDING_AN_OPERATOR.md](ADDING_AN_OPERATOR.md).",
        "",
        "| Operator | Devices | Description | Also called (DALI) |",
        "| --- | --- | --- | --- |",
    ]
    for s in sorted(schemas, key=lambda s: s["name"]):
        if s["internal"]:
            continue
        doc = first_sentence(s["doc"]).replace("|", "\\|")
        also = ", ".join(f"`{a}`" for a in s["aliases"])
        lines.append(f"| `{s['name']}` | {', '.join(s['devices'])} | {doc} | {also} |")
    return "\n".join(lines) + "\n"


def main():
    sys.stdout.write(markdown())
    return 0


if __name__ == "__main__":
    sys.exit(main())
