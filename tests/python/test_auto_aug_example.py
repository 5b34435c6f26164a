"""examples/auto_augment/train_trivial_augment.py trains a few steps on photos with the pipeline
on the CPU, and on the GPU where there is one."""

import importlib.util
import pathlib
import shutil

import pytest

from op_testing import files_in

torch = pytest.importorskip("torch")
pytest.importorskip("torchvision")
SCRIPT = (pathlib.Path(__file__).resolve().parents[2] / "examples" / "auto_augment" /
          "train_trivial_augment.py")


def load_example():
    spec = importlib.util.spec_from_file_location("trivial_augment_example", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture
def image_folder(tmp_path, shared_data):
    photos = files_in(shared_data / "photos", "*.jpg")[:8]
    for i, p in enumerate(photos):
        (tmp_path / f"class{i % 2}").mkdir(exist_ok=True)
        shutil.copy(p, tmp_path / f"class{i % 2}" / p.name)
    return tmp_path


def run(folder, device, capsys):
    load_example().main([str(folder), "--device", device, "--iters", "2", "-b", "4", "--size",
                         "64", "--workers", "2"])
    out = capsys.readouterr().out
    assert "images/s" in out and "loss" in out, out


def test_trains_with_the_pipeline_on_the_cpu(image_folder, capsys):
    run(image_folder, "cpu", capsys)


@pytest.mark.gpu
def test_trains_with_the_pipeline_on_the_gpu(image_folder, capsys):
    if not torch.cuda.is_available():
        pytest.skip("needs a CUDA device")
    run(image_folder, "gpu", capsys)
