"""get_property against NVIDIA DALI 2.4, also as DataNode.property() and source_info(): "layout"
(the input's layout as uint8 bytes, empty without one) and "source_info" (the file a sample was
read from; empty for external_source data) on random data and on files of ../shared/data through
readers.file and the decoder; the keys DALI refuses. The GPU operator against the CPU one.

Deliberate difference (docs/COMPATIBILITY.md): Sluice knows where a sample came from per sample
of the batch, not per tensor, so source_info is the path readers.file opened (file_root joined
with the listed name, where DALI gives the listed name) and every output of the iteration has it
(DALI's reader gives its labels none, and permute_batch moves DALI's with the samples)."""

import os

import numpy as np
import pytest

from dali_reference import run_dali, run_sluice
from sluice import fn, pipeline_def


def as_text(batch):
    for a in batch:
        assert a.dtype == np.uint8 and a.ndim == 1
    return [bytes(a).decode() for a in batch]


def layout_graph(fn, types, x, y):
    return (fn.get_property(x, key="layout"), fn.get_property(y, key="layout"),
            fn.get_property(x[0], key="layout"), fn.get_property(fn.per_frame(y), key="layout"),
            fn.get_property(x, key="source_info"), y.source_info(), y.property("layout"))


def test_get_property_equals_dali_on_random_data(tmp_path):
    rng = np.random.default_rng(2)
    x = [rng.integers(0, 9, (int(rng.integers(1, 4)), 2, 3)).astype(np.uint8) for _ in range(3)]
    y = [rng.random((4,)).astype(np.float32) for _ in range(3)]
    ours, our_layouts = run_sluice(layout_graph, [x, y], ["HWC", None], with_layouts=True)
    ref, ref_layouts = run_dali(layout_graph, [x, y], tmp_path, ["HWC", None], with_layouts=True)
    assert our_layouts == ref_layouts == [""] * 7
    texts = [as_text(o) for o in ours]
    assert texts == [as_text(r) for r in ref]
    assert texts[:4] == [["HWC"] * 3, [""] * 3, ["WC"] * 3, ["F"] * 3]
    assert texts[4] == texts[5] == [""] * 3 and texts[6] == texts[1]


def files_graph(fn, types, x):
    import os  # the graph runs in DALI's process too: the data's folder comes in the environment

    root, files = os.environ["GET_PROPERTY_FILES"].split("|")
    enc, label = fn.readers.file(file_root=root, files=files.split(","), random_shuffle=False)
    img = fn.decoders.image(enc)
    return (fn.get_property(enc, key="source_info"), fn.get_property(img, key="source_info"),
            fn.get_property(fn.resize(img, size=[8, 8]), key="source_info"),
            fn.get_property(img, key="layout"), fn.get_property(enc, key="layout"))


def test_source_info_of_files_equals_dali(tmp_path, shared_data, monkeypatch):
    photos = sorted(p.relative_to(shared_data) for p in (shared_data / "photos").glob("*.jpg"))
    monkeypatch.setenv("GET_PROPERTY_FILES", f"{shared_data}|{','.join(map(str, photos[:4]))}")
    x = [np.zeros((1,), np.uint8)] * 4
    ours = [as_text(o) for o in run_sluice(files_graph, [x])]
    ref = [as_text(r) for r in run_dali(files_graph, [x], tmp_path)]
    assert ours[3:] == ref[3:] == [["HWC"] * 4, [""] * 4]
    for k in range(3):
        assert ours[k] == [os.path.join(str(shared_data), r) for r in ref[k]], f"output {k}"
    for path in ours[0]:
        assert os.path.isfile(path)


def r_key(fn, types, x): return fn.get_property(x, key="shape")


def test_refuses_what_dali_refuses(tmp_path):
    inputs = [[np.zeros((2, 3), np.uint8)] * 2]
    with pytest.raises(AssertionError, match="DALI failed"):
        run_dali(r_key, inputs, tmp_path)
    with pytest.raises(Exception, match="Unsupported property key: shape"):
        run_sluice(r_key, inputs)


def test_gpu_data_has_its_properties_on_the_gpu_only():
    """Data does not flow back from the GPU stage (DALI's dynamic executor gives them on the CPU
    too)."""
    @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def p():
        return fn.external_source(lambda: [np.zeros((2, 3))]).gpu().source_info()

    with pytest.raises(NotImplementedError, match="device='gpu'"):
        p().build()


@pytest.mark.gpu
def test_gpu_equals_cpu(shared_data):
    photos = sorted((shared_data / "photos").glob("*.jpg"))[:3]

    @pipeline_def(batch_size=3, num_threads=1, device_id=0)
    def p():
        enc, _ = fn.readers.file(files=[str(p) for p in photos], random_shuffle=False)
        img = fn.decoders.image(enc, device="mixed")
        cpu = fn.decoders.image(enc)
        return (fn.get_property(cpu, key="source_info"), fn.get_property(img, key="source_info"),
                fn.get_property(cpu, key="layout"), fn.get_property(img, key="layout"),
                fn.get_property(fn.per_frame(img, replace=True), key="layout"))

    src_cpu, src_gpu, lay_cpu, lay_gpu, frames = p().run()
    for g in (src_gpu, lay_gpu, frames):
        assert type(g).__name__ == "TensorListGPU"
    for i in range(3):
        assert bytes(np.asarray(src_gpu.as_cpu().at(i))) == bytes(np.asarray(src_cpu.at(i)))
        assert bytes(np.asarray(lay_gpu.as_cpu().at(i))) == bytes(np.asarray(lay_cpu.at(i))) == b"HWC"
        assert bytes(np.asarray(frames.as_cpu().at(i))) == b"FWC"
