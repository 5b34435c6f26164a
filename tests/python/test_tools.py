"""The `sluice` command: make-dataset, bench (side by side with torchvision), info."""

import json
import math
import subprocess
import sys

import pytest


def sluice(*args, cwd=None):
    proc = subprocess.run([sys.executable, "-m", "sluice.cli", *args], capture_output=True,
                          text=True, cwd=cwd, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_make_dataset_writes_decodable_class_folders(tmp_path):
    from PIL import Image

    sluice("make-dataset", str(tmp_path / "d"), "--images", "12", "--classes", "3", "--workers", "1")
    classes = sorted(p for p in (tmp_path / "d").iterdir() if p.is_dir())
    files = sorted((tmp_path / "d").rglob("*.jpg"))
    assert len(classes) == 3 and len(files) == 12
    with Image.open(files[0]) as im:
        assert im.format == "JPEG" and min(im.size) > 0


def make_data(tmp_path, images):
    sluice("make-dataset", str(tmp_path / "d"), "--images", str(images), "--classes", "2",
           "--workers", "1")
    return tmp_path / "d"


def bench_cli(tmp_path, images, batch, *args):
    """`sluice bench` with one worker and exactly --epochs timed epochs on a new folder of
    `images` JPEGs: its output and its JSON report."""
    out = sluice("bench", "--data", str(make_data(tmp_path, images)), "-b", str(batch),
                 "--workers", "1", "--min-seconds", "0", "--json",
                 str(tmp_path / "r.json"), "--chart", str(tmp_path / "r.png"), *args, cwd=tmp_path)
    return out, json.loads((tmp_path / "r.json").read_text())


def test_bench_compares_loaders_and_reports_the_bottleneck(tmp_path):
    pytest.importorskip("torch")
    pytest.importorskip("torchvision")
    out, report = bench_cli(tmp_path, 48, 16, "--epochs", "2", "--loaders",
                            "sluice-cpu,torchvision-tensor", "--profile")
    results = {r["loader"]: r for r in report["results"]}
    for name in ("sluice-cpu", "torchvision-tensor"):
        r = results[name]
        assert "error" not in r, r
        assert r["images"] == 2 * 48 and r["images_per_s"] > 0
        assert r["first_batch_shape"][0] == 16 and len(r["rss_per_epoch_mb"]) == 2
    assert results["sluice-cpu"]["first_batch_shape"] == [16, 3, 224, 224]
    assert "verdict:" in out and "vs tv-tensor" in out


def test_bench_runs_sluice_in_several_processes_side_by_side(tmp_path):
    pytest.importorskip("torch")
    out, report = bench_cli(tmp_path, 40, 16, "--epochs", "2", "--loaders", "sluice-cpu",
                            "--processes", "1,2")
    results = {r["loader"]: r for r in report["results"]}
    assert list(results) == ["sluice-cpu", "sluice-cpu 2 processes"]
    assert report["meta"]["processes"] == [1, 2]
    for r in results.values():
        assert "error" not in r, r
        # Every image once per epoch, the last batch partial: 16 + 16 + 8 in one process,
        # 16 + 4 from each shard of 20 in two.
        assert r["images"] == 2 * 40 and r["first_batch_shape"] == [16, 3, 224, 224]
    assert results["sluice-cpu 2 processes"]["processes"] == 2
    assert "sluice-cpu 2 processes" in out


def test_bench_trains_a_model_on_each_loader_with_synthetic_data_as_the_ceiling(tmp_path):
    pytest.importorskip("torch")
    pytest.importorskip("torchvision")
    out, report = bench_cli(tmp_path, 16, 8, "--epochs", "1", "--loaders",
                            "sluice-cpu,torchvision-tensor", "--train", "resnet18")
    results = {r["loader"]: r for r in report["results"]}
    assert report["meta"]["train"] == "resnet18"
    assert set(results) == {"sluice-cpu", "torchvision-tensor", "synthetic"}
    for r in results.values():
        assert "error" not in r, r
        assert r["images"] == 16 and r["images_per_s"] > 0
        # Two steps in the warm-up epoch, two timed, each on a real batch of 8.
        assert r["train"]["steps"] == 4 and math.isfinite(r["train"]["last_loss"])
    assert "of synthetic" in out


def test_bench_has_a_python_entry_point(tmp_path):
    pytest.importorskip("torch")
    from sluice.tools.bench import bench

    results = bench(make_data(tmp_path, 8), batch_size=4, workers=1, epochs=1, prefetch=4,
                    min_seconds=0.5, loaders="sluice-cpu", json=str(tmp_path / "r.json"),
                    chart=str(tmp_path / "r.png"))
    assert [r["loader"] for r in results] == ["sluice-cpu"]
    assert json.loads((tmp_path / "r.json").read_text())["meta"]["prefetch"] == 4
    assert results[0]["first_batch_shape"] == [4, 3, 224, 224]
    # An epoch of 8 images is far shorter than min_seconds: whole epochs until it has passed.
    r = results[0]
    assert r["seconds"] >= 0.5 and r["epochs"] > 1 and r["images"] == 8 * r["epochs"]
    with pytest.raises(TypeError, match="unexpected option 'batch'"):
        bench(tmp_path / "d", batch=4)


def test_info_lists_operators():
    out = sluice("info")
    assert "decoders.image" in out and "readers.file" in out
