"""The `sluice` command as a new user meets it: --version, help for every option, `sluice bench`
refusing arguments it cannot run with before running anything, failing loudly, saying why a
loader was skipped, marking figures of a busy machine, its chart, and Ctrl-C."""

import argparse
import json
import os
import pathlib
import re
import signal
import subprocess
import sys
import threading
import time

import pytest

import sluice
from sluice.tools import bench as bench_mod
from sluice.tools import bench_report
from conftest import sigint_as_default

ROOT = pathlib.Path(__file__).resolve().parents[2]


def run_sluice(*args, cwd=None, timeout=600):
    return subprocess.run([sys.executable, "-m", "sluice.cli", *args], capture_output=True,
                          text=True, cwd=cwd, timeout=timeout)


def make_data(root, images=8):
    from sluice.tools.make_dataset import make_dataset

    return make_dataset(root / "d", images=images, classes=2, workers=1, progress=False)


def test_version_is_the_packages():
    proc = run_sluice("--version")
    version = re.search(r'^version = "([^"]+)"', (ROOT / "pyproject.toml").read_text(), re.M)[1]
    assert proc.returncode == 0 and proc.stdout.strip() == f"sluice {version}"
    assert sluice.__version__ == version


def subcommands():
    """The parsers of `sluice bench` and `sluice make-dataset`, as the command builds them."""
    from sluice.tools import make_dataset

    sub = argparse.ArgumentParser().add_subparsers()
    bench_mod.add_parser(sub)
    make_dataset.add_parser(sub)
    return sub.choices


def test_every_option_has_help_and_every_command_a_description():
    for name, parser in subcommands().items():
        assert parser.description, name
        for action in parser._actions:
            if action.help != argparse.SUPPRESS:
                assert action.help, f"{name} {action.option_strings or action.dest}"
    for command in ("bench", "make-dataset", "info"):
        proc = run_sluice(command, "--help")
        assert proc.returncode == 0 and "usage: sluice " + command in proc.stdout
    help_ = " ".join(run_sluice("bench", "--help").stdout.split())
    assert "images per batch (default: 256)" in help_ and "(default: 3.0)" in help_
    assert "default: all cores" in help_ and "(default: None)" not in help_
    help_ = " ".join(run_sluice("make-dataset", "--help").stdout.split())
    assert "number of images (default: 10000)" in help_ and "(default: 0)" in help_


@pytest.mark.parametrize("args, message", [
    (["--loaders", "torchvison-pil"], "unknown loader 'torchvison-pil' (did you mean "
     "'torchvision-pil'?); the loaders are: sluice-cpu, sluice-gpu, torchvision-pil, "
     "torchvision-tensor"),
    (["--loaders", "bogus"], "unknown loader 'bogus'; the loaders are: sluice-cpu"),
    (["--loaders", ","], "--loaders names no loader"),
    (["--data", "/nonexistent/folder"], "--data /nonexistent/folder: no such folder"),
    (["--batch-size", "0"], "--batch-size must be at least 1, got 0"),
    (["--processes", "1,x"], "--processes takes comma-separated whole numbers"),
    (["--threads", "0"], "--threads takes numbers of at least 1"),
    (["--json", "/nonexistent/r.json"], "--json /nonexistent/r.json: no folder /nonexistent"),
])
def test_bench_refuses_what_it_cannot_run_before_running_anything(tmp_path, args, message):
    proc = run_sluice("bench", *args, cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert f"sluice bench: error: {message}" in proc.stderr
    assert "Traceback" not in proc.stderr and "running" not in proc.stderr
    assert not list(tmp_path.iterdir())  # no dataset, JSON or chart


def test_bench_refuses_a_folder_without_jpegs(tmp_path):
    (tmp_path / "empty" / "class0").mkdir(parents=True)
    proc = run_sluice("bench", "--data", str(tmp_path / "empty"), cwd=tmp_path)
    assert proc.returncode == 2
    assert "no JPEGs in class sub-folders" in proc.stderr and "sluice make-dataset" in proc.stderr


def test_bench_fails_loudly_and_draws_no_chart_for_failed_loaders(tmp_path):
    pytest.importorskip("torch")
    bad = tmp_path / "bad" / "c"
    bad.mkdir(parents=True)
    (bad / "x.jpg").write_bytes(b"\xff\xd8 not a JPEG")
    proc = run_sluice("bench", "--data", str(tmp_path / "bad"), "--loaders", "sluice-cpu",
                      "-b", "1", "--workers", "1", cwd=tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "sluice-cpu" in proc.stdout and "failed:" in proc.stdout
    assert "sluice bench: failed: sluice-cpu" in proc.stderr
    assert not (tmp_path / "bench-results.png").exists()
    assert "no chart" in proc.stdout
    report = json.loads((tmp_path / "bench-results.json").read_text())
    assert "error" in report["results"][0]


def test_bench_says_why_it_skips_a_loader(tmp_path):
    pytest.importorskip("torch")
    if bench_mod.has_gpu():
        pytest.skip("sluice-gpu runs here")
    data = make_data(tmp_path)
    proc = run_sluice("bench", "--data", str(data), "--loaders", "sluice-gpu,sluice-cpu", "-b", "4",
                      "--workers", "1", "--min-seconds", "0", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "sluice-gpu: skipped, no CUDA device" in proc.stderr
    assert re.search(r"sluice-gpu +skipped: no CUDA device", proc.stdout)
    results = json.loads((tmp_path / "bench-results.json").read_text())["results"]
    assert [r["loader"] for r in results] == ["sluice-gpu", "sluice-cpu"]
    assert results[0] == {"loader": "sluice-gpu", "skipped": "no CUDA device"}
    assert (tmp_path / "bench-results.png").exists()
    proc = run_sluice("bench", "--data", str(data), "--loaders", "sluice-gpu", cwd=tmp_path)
    assert proc.returncode == 2 and "nothing to run: sluice-gpu: no CUDA device" in proc.stderr


def test_bench_marks_the_figures_of_a_busy_machine(tmp_path, monkeypatch, capsys):
    data = make_data(tmp_path)
    cores = os.cpu_count() or 1
    monkeypatch.setattr(bench_mod, "others_now", lambda: cores + 1.0)
    monkeypatch.setattr(bench_mod, "skip_reason", lambda loader, train: None)

    def child(args, loader, label, extra_env=None):
        return {"loader": label, "images_per_s": 100.0, "cpu_utilisation": 0.5,
                "other_processes_cores": 0.0 if loader == "torchvision-pil" else cores + 1.0,
                "peak_rss_mb": 1, "time_to_first_batch_s": 0.1}

    monkeypatch.setattr(bench_mod, "run_child", child)
    results = bench_mod.bench(data, loaders="sluice-cpu,torchvision-pil", json=str(tmp_path / "r.json"),
                              chart=str(tmp_path / "r.png"))
    out, err = capsys.readouterr()
    assert "warning: the machine is busy: other processes keep" in err
    assert "warning: while sluice-cpu ran, other processes kept" in err
    assert "while torchvision-pil ran" not in err
    assert [r["busy"] for r in results] == [True, False]
    report = json.loads((tmp_path / "r.json").read_text())
    assert [r["busy"] for r in report["results"]] == [True, False]
    assert report["meta"]["other_processes_cores_before"] == cores + 1.0
    row = next(line for line in out.splitlines() if line.startswith("sluice-cpu"))
    assert re.search(r"100\* ", row)
    assert "* measured on a busy machine" in out


def test_the_default_folder_keeps_every_worker_busy():
    assert bench_mod.default_images(256, 2) >= 2000
    for workers in (1, 2, 16, 32, 64):
        assert bench_mod.default_images(256, workers) >= 4 * 256 * workers


def chart_texts(results, tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    meta = {"machine": {"cores": 32, "cpu": "Some CPU", "gpu": "Some GPU"}, "date": "today",
            "batch_size": 256, "images": 32768, "workers": 32, "train": None}
    figures = []
    real = plt.subplots
    plt.subplots = lambda *a, **k: figures.append(real(*a, **k)) or figures[-1]
    try:
        path = bench_report.chart(results, meta, tmp_path / "c.png")
    finally:
        plt.subplots = real
    if path is None:
        return None
    fig, ax = figures[0]
    return [ax.get_title()] + [t.get_text() for t in ax.texts + fig.texts]


def test_the_chart_has_title_machine_work_ratios_and_the_baseline(tmp_path):
    pytest.importorskip("matplotlib")
    ok = {"images_per_s": 1000.0}
    results = [dict(ok, loader="sluice-cpu"), dict(ok, loader="torchvision-tensor", images_per_s=400.0),
               {"loader": "sluice-gpu", "skipped": "no CUDA device"},
               {"loader": "torchvision-pil", "error": "boom"},
               dict(ok, loader="sluice-cpu 1 thread", busy=True)]
    texts = "\n".join(chart_texts(results, tmp_path))
    assert "sluice bench: images/s, higher is better (ratios to torchvision-tensor)" in texts
    assert "32 cores (Some CPU), Some GPU" in texts and "32,768 images" in texts
    assert "1,000  (2.50x)" in texts and "400  (baseline)" in texts and "busy machine" in texts
    assert "not shown: sluice-gpu: no CUDA device; torchvision-pil: failed" in texts
    assert (tmp_path / "c.png").exists()
    assert chart_texts([{"loader": "sluice-cpu", "error": "boom"}], tmp_path / "none") is None
    # The faster torchvision loader is the baseline.
    results[3] = dict(ok, loader="torchvision-pil", images_per_s=500.0)
    assert "ratios to torchvision-pil" in "\n".join(chart_texts(results, tmp_path))


def interrupt_after(proc, marker, lines):
    """Collects proc's stderr lines; sends Ctrl-C (SIGINT to its group) once `marker` shows."""
    seen = threading.Event()

    def read():
        for line in iter(lambda: proc.stderr.readline(), ""):
            lines.append(line)
            if marker in line:
                seen.set()
    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    assert seen.wait(120), "".join(lines)
    time.sleep(0.5)
    os.killpg(proc.pid, signal.SIGINT)
    proc.wait(60)
    reader.join(10)


@pytest.mark.parametrize("command, marker", [
    (["make-dataset", "{tmp}/big", "--images", "100000", "--workers", "2"], "make-dataset"),
    (["bench", "--data", "{data}", "--loaders", "sluice-cpu", "-b", "4", "--workers", "1",
      "--min-seconds", "60"], "sluice-cpu"),
])
def test_ctrl_c_ends_with_one_line(tmp_path, command, marker):
    if "bench" in command:
        pytest.importorskip("torch")
    data = make_data(tmp_path) if "bench" in command else None
    args = [a.format(tmp=tmp_path, data=data) for a in command]
    proc = subprocess.Popen([sys.executable, "-m", "sluice.cli", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=tmp_path,
                            start_new_session=True, preexec_fn=sigint_as_default)
    lines = []
    interrupt_after(proc, marker, lines)
    err = "".join(lines)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and err.rstrip().endswith("sluice: interrupted")
