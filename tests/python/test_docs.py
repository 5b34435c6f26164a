"""The documents stay true: docs/OPERATORS.md is the table the schema registry generates
(sluice.tools.operators), every bench/RESULTS.md#anchor the repo points to exists, and every
relative link in a Markdown file leads to a file."""

import pathlib
import re
import subprocess

import pytest

from sluice.tools import operators

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "OPERATORS.md"


def tracked_files(*suffixes):
    try:
        out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True,
                             check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    return [ROOT / f for f in out.split() if f.endswith(suffixes) and (ROOT / f).is_file()]


def test_operators_md_is_up_to_date():
    assert DOC.read_text() == operators.markdown(), (
        f"docs/OPERATORS.md is stale: regenerate it with `{operators.COMMAND}`")


def schema(name, doc, internal=False, aliases=(), args=(), inputs=()):
    return {"name": name, "devices": ["cpu", "gpu"] if name == "a" else ["cpu"],
            "internal": internal, "aliases": list(aliases), "doc": doc, "args": list(args),
            "inputs": list(inputs), "min_inputs": len(inputs), "max_inputs": len(inputs)}


def arg(name, type_, default=None, required=False, per_sample=False, doc="", **extra):
    return dict(name=name, type=type_, default=default, required=required,
                per_sample=per_sample, doc=doc, **extra)


def test_the_table_lists_every_public_operator_once_with_its_first_sentence():
    schemas = [schema("b.op", "Does b (see a.b). Then more.", aliases=["BOp"]),
               schema("_hidden", "x", internal=True),
               schema("a", "Splits [x[0], x[1]) | y. More.")]
    rows = [line for line in operators.markdown(schemas).splitlines() if line.startswith("| [`")]
    assert rows == ["| [`a`](#a) | cpu, gpu | Splits [x[0], x[1]) \\| y. |  |",
                    "| [`b.op`](#bop) | cpu | Does b (see a.b). | `BOp` |"]


def test_each_operator_has_a_section_with_its_inputs_and_arguments_common_ones_once():
    args = [arg("seed", "int", -1), arg("preserve", "bool", False),
            arg("bytes_per_sample_hint", "int or list of int", [0]),
            arg("mode", "enum", "INTERP_LINEAR", choices=["INTERP_NN", "INTERP_LINEAR"],
                doc="How."),
            arg("angle", "float", required=True, per_sample=True, doc="Degrees | turns."),
            arg("fill", "float", None, doc="Fill.")]
    text = operators.markdown([schema("rot", "Rotates. In detail.", args=args,
                                      inputs=[{"name": "input", "doc": "HWC images."}])])
    section = text[text.index("### rot"):].splitlines()
    assert section[:8] == ["### rot", "", "Devices: cpu.", "", "Rotates. In detail.", "",
                           "Inputs (1):", "- `input`: HWC images."]
    rows = [line for line in section if line.startswith("| `")]
    assert rows == [
        "| `angle` | float | required | yes | Degrees \\| turns. |",
        "| `fill` | float | — |  | Fill. |",
        "| `mode` | one of `INTERP_NN`, `INTERP_LINEAR` | `INTERP_LINEAR` |  | How. |"]


def test_every_results_anchor_pointed_to_exists():
    anchors = set(re.findall(r'<a id="([^"]+)"></a>', (ROOT / "bench" / "RESULTS.md").read_text()))
    missing = []
    for path in tracked_files(".py", ".cc", ".h", ".cu", ".cuh", ".md", ".sh"):
        for n, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            if "RESULTS.md#" in line or path.name == "RESULTS.md":
                for anchor in re.findall(r"#([a-z][a-z0-9]*(?:-[a-z0-9]+)+)\b", line):
                    if anchor not in anchors:
                        missing.append(f"{path.relative_to(ROOT)}:{n}: #{anchor}")
    assert not missing, "anchors not in bench/RESULTS.md:\n" + "\n".join(missing)


def test_every_relative_markdown_link_leads_to_a_file():
    broken = []
    for path in tracked_files(".md"):
        for n, line in enumerate(path.read_text().splitlines(), 1):
            for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", line):
                if "://" in target or target.startswith("mailto:"):
                    continue
                if not (path.parent / target).exists():
                    broken.append(f"{path.relative_to(ROOT)}:{n}: {target}")
    assert not broken, "links to files that do not exist:\n" + "\n".join(broken)
