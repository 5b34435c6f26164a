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


COMMON = ("seed", "preserve", "bytes_per_sample_hint")  # every operator takes these


def anchor(name):
    """GitHub's anchor for a heading `name` (dots and underscores as it keeps or drops them)."""
    return name.replace(".", "").lower()


def cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def default_text(arg):
    if arg["required"]:
        return "required"
    d = arg["default"]
    if d is None:
        return "—"
    if isinstance(d, bool):
        return "True" if d else "False"
    if isinstance(d, str):
        return f"`{d}`" if d else "`\"\"`"
    return f"`{d}`"


def type_text(arg):
    if arg["type"] == "enum" and arg.get("choices"):
        return "one of " + ", ".join(f"`{c}`" for c in arg["choices"])
    return arg["type"]


def operator_section(s):
    """One operator's heading, devices, doc, inputs and argument table."""
    lines = [f"### {s['name']}", "", f"Devices: {', '.join(s['devices'])}."]
    if s["aliases"]:
        lines[-1] += " Also called " + ", ".join(f"`{a}`" for a in s["aliases"]) + "."
    lines += ["", s["doc"], ""]
    if s["inputs"]:
        lo, hi = s["min_inputs"], s["max_inputs"]
        count = f"{lo}" if lo == hi else f"{lo} to {hi}" if hi >= 0 else f"{lo} or more"
        lines.append(f"Inputs ({count}):")
        lines += [f"- `{i['name']}`: {i['doc']}" for i in s["inputs"]]
        lines.append("")
    args = [a for a in s["args"] if a["name"] not in COMMON]
    if args:
        lines += ["| Argument | Type | Default | Per-sample input | Description |",
                  "| --- | --- | --- | --- | --- |"]
        for a in sorted(args, key=lambda a: (not a["required"], a["name"])):
            lines.append(f"| `{a['name']}` | {cell(type_text(a))} | {cell(default_text(a))} | "
                         f"{'yes' if a['per_sample'] else ''} | {cell(a['doc'])} |")
        lines.append("")
    return lines


def markdown(schemas=None):
    """The table of the public operators (name, devices, one-line doc, DALI's other names), then
    each operator's inputs and arguments with their defaults."""
    if schemas is None:
        from sluice import _sluice

        schemas = _sluice.schemas()
    public = sorted((s for s in schemas if not s["internal"]), key=lambda s: s["name"])
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
        "Every operator also takes `seed` (int, default -1: derived from the pipeline's seed),",
        "`preserve` (bool, default False: keep it when its outputs are unused) and",
        "`bytes_per_sample_hint` (int or list of int, default 0). An argument marked *per-sample",
        "input* also takes a `DataNode` with one value per sample.",
        "",
        "| Operator | Devices | Description | Also called (DALI) |",
        "| --- | --- | --- | --- |",
    ]
    for s in public:
        doc = cell(first_sentence(s["doc"]))
        also = ", ".join(f"`{a}`" for a in s["aliases"])
        lines.append(f"| [`{s['name']}`](#{anchor(s['name'])}) | {', '.join(s['devices'])} | "
                     f"{doc} | {also} |")
    lines += ["", "## Operators", ""]
    for s in public:
        lines += operator_section(s)
    return "\n".join(lines).rstrip("\n") + "\n"


def main():
    sys.stdout.write(markdown())
    return 0


if __name__ == "__main__":
    sys.exit(main())
