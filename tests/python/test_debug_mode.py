"""Debug mode (sluice.pipeline.experimental.pipeline_def(debug=True)): operators run as they are
called, `.get()` gives their batches, numpy arrays, lists of arrays and torch tensors are
operator inputs, seeds are deterministic, the operators' order may not change (DALI's error).

DALI's own debug mode needs a GPU even for CPU operators, so the outputs are compared with
DALI's standard mode on the same pipeline function (and with Sluice's standard mode)."""

import numpy as np
import pytest

from dali_pipelines import assert_same, run_dali, run_sluice
from sluice import fn, types
from sluice._debug_mode import DataNodeDebug
from sluice.pipeline import Pipeline
from sluice.pipeline.experimental import pipeline_def

B = 4
INTS = [np.array([i, 2 * i + 1], np.int32) for i in range(B)]


def images(seed=0, n=B):
    rng = np.random.default_rng(seed)
    return [rng.integers(0, 256, (rng.integers(6, 14), rng.integers(6, 14), 3), dtype=np.uint8)
            for _ in range(n)]


def arrays(tl):
    return [np.array(tl.at(i)) for i in range(len(tl))]


def deterministic(fn, types, im, x):
    flipped = fn.flip(im, horizontal=1)
    cropped = fn.crop(flipped, crop=(5, 4))
    scaled = fn.cast(x, dtype=types.FLOAT) * 0.5 + 1
    return cropped, scaled, x * 3 - 1


def test_equals_dali_and_the_standard_mode(tmp_path):
    inputs = [images(1), INTS]
    ours = run_sluice(deterministic, inputs, layouts=["HWC", None], iterations=2, debug=True)
    assert_same(ours, run_sluice(deterministic, inputs, layouts=["HWC", None], iterations=2))
    assert_same(ours, run_dali(deterministic, inputs, tmp_path, layouts=["HWC", None],
                               iterations=2))


def test_operators_run_as_they_are_called():
    seen = {}

    @pipeline_def(batch_size=B, num_threads=1, device_id=None, debug=True)
    def pipe():
        x = fn.external_source(lambda: INTS)
        y = x + 10
        seen["types"] = (type(x), type(y), type(y.get()).__name__)
        seen["y"] = arrays(y.get())
        seen["shape"] = y.shape()
        seen["repr"] = repr(y)
        return y

    p = pipe()
    p.build()
    (out,) = p.run()
    assert seen["types"][:2] == (DataNodeDebug, DataNodeDebug)
    assert seen["types"][2] == "TensorListCPU"
    assert [a.tolist() for a in seen["y"]] == [[i + 10, 2 * i + 11] for i in range(B)]
    assert seen["shape"] == [(2,)] * B
    assert seen["repr"].startswith("DataNodeDebug(\n    name=")
    assert [a.tolist() for a in arrays(out)] == [a.tolist() for a in seen["y"]]


def test_numpy_lists_and_torch_tensors_are_inputs():
    torch = pytest.importorskip("torch")
    dense = np.random.default_rng(2).integers(0, 256, (B, 5, 7, 3), dtype=np.uint8)
    got = {}

    @pipeline_def(batch_size=B, num_threads=1, device_id=None, debug=True)
    def pipe():
        got["array"] = arrays(fn.flip(dense, horizontal=1).get())
        got["list"] = arrays(fn.flip(list(dense), horizontal=0, vertical=1).get())
        got["torch"] = arrays(fn.flip(torch.from_numpy(dense), horizontal=1, vertical=1).get())
        got["arg"] = arrays(fn.flip(dense, horizontal=[np.array(i % 2, np.int32)
                                                       for i in range(B)]).get())
        return fn.copy(dense)

    (out,) = pipe().run()
    for i in range(B):
        np.testing.assert_array_equal(got["array"][i], dense[i][:, ::-1])
        np.testing.assert_array_equal(got["list"][i], dense[i][::-1])
        np.testing.assert_array_equal(got["torch"][i], dense[i][::-1, ::-1])
        np.testing.assert_array_equal(got["arg"][i], dense[i][:, ::-1] if i % 2 else dense[i])
        np.testing.assert_array_equal(arrays(out)[i], dense[i])


def random_values(pipe_seed, debug=True, **kwargs):
    deco = pipeline_def(batch_size=B, num_threads=1, device_id=None, seed=pipe_seed, debug=debug)

    @deco
    def pipe():
        return fn.random.uniform(range=[0, 1], **kwargs), fn.random.coin_flip(**kwargs)

    p = pipe()
    return [[a.tolist() for out in p.run() for a in arrays(out)] for _ in range(2)]


def test_seeds_are_deterministic():
    assert random_values(5) == random_values(5)
    assert random_values(5) != random_values(6)
    first, second = random_values(5)
    assert first != second  # the generators go on between iterations
    # An operator's own seed gives the standard mode's values.
    assert random_values(5, seed=42) == random_values(9, debug=False, seed=42)


def test_changing_the_order_of_operators_is_refused():
    calls = [0]

    @pipeline_def(batch_size=B, num_threads=1, device_id=None, debug=True)
    def pipe():
        calls[0] += 1
        x = fn.external_source(lambda: INTS)
        if calls[0] == 2:
            return fn.random.coin_flip(), x
        return x + 1, x

    p = pipe()
    p.run()
    with pytest.raises(RuntimeError, match="Unexpected operator 'random.coin_flip'. Debug mode "
                                           "does not support changing the order of operators"):
        p.run()


def test_changing_an_argument_is_refused():
    calls = [0]

    @pipeline_def(batch_size=B, num_threads=1, device_id=None, debug=True)
    def pipe():
        calls[0] += 1
        return fn.random.coin_flip(probability=0.5 if calls[0] == 1 else 0.25)

    p = pipe()
    p.run()
    with pytest.raises(RuntimeError, match="Argument 'probability' for operator 'random.coin_flip' "
                                           "unexpectedly changed value from '0.5' to '0.25'"):
        p.run()


def test_constant_outputs_are_tiled_and_with_is_refused():
    @pipeline_def(batch_size=B, num_threads=1, device_id=None, debug=True)
    def pipe():
        return fn.external_source(lambda: INTS), 5, np.array([1.5, 2.5], np.float32)

    p = pipe()
    x, five, pair = p.run()
    assert [a.tolist() for a in arrays(five)] == [5] * B
    assert [a.tolist() for a in arrays(pair)] == [[1.5, 2.5]] * B
    with pytest.raises(RuntimeError, match="works only with `pipeline_def` decorator"):
        with p:
            pass


def test_external_sources_keep_their_state_end_and_reset():
    def batches():
        for k in range(2):
            yield [np.array(10 * k + i, np.int32) for i in range(B)]

    @pipeline_def(batch_size=B, num_threads=1, device_id=None, debug=True)
    def pipe():
        return fn.external_source(batches, cycle="raise") + 1, fn.external_source(name="fed")

    p = pipe()
    for k in range(2):
        p.feed_input("fed", [np.array(k, np.int8)] * B)
        a, fed = p.run()
        assert [int(v) for v in arrays(a)] == [10 * k + i + 1 for i in range(B)]
        assert [int(v) for v in arrays(fed)] == [k] * B
    with pytest.raises(StopIteration):
        p.run()
    p.reset()
    p.feed_input("fed", [np.array(7, np.int8)] * B)
    a, _ = p.run()
    assert [int(v) for v in arrays(a)] == [i + 1 for i in range(B)]


def test_reader_equals_the_standard_mode(shared_data):
    def graph(debug):
        deco = pipeline_def(batch_size=3, num_threads=2, device_id=None, seed=4, debug=debug)

        @deco
        def pipe():
            files, labels = fn.readers.file(file_root=str(shared_data / "jpeg_variants"),
                                            file_filters=["*.jpg"], name="Reader",
                                            random_shuffle=True, seed=11)
            return fn.peek_image_shape(files), labels

        return pipe()

    ours, ref = graph(True), graph(False)
    ref.build()
    for _ in range(3):
        for a, b in zip(ours.run(), ref.run()):
            assert [x.tolist() for x in arrays(a)] == [x.tolist() for x in arrays(b)]
    assert ours.epoch_size("Reader") == ref.epoch_size("Reader")


def test_iterators_take_a_debug_pipeline():
    pytest.importorskip("torch")
    from sluice.plugin.pytorch import DALIGenericIterator

    @pipeline_def(batch_size=B, num_threads=1, device_id=None, debug=True)
    def pipe():
        return fn.external_source(lambda: INTS) * 2

    it = DALIGenericIterator([pipe()], ["x"], size=2 * B)
    got = [batch[0]["x"].tolist() for batch in it]
    assert got == [[[2 * i, 4 * i + 2] for i in range(B)]] * 2


def test_standard_pipeline_def_ignores_debug_when_calling():
    from sluice import pipeline_def as standard

    @standard(batch_size=B, num_threads=1, device_id=None)
    def pipe():
        return fn.external_source(lambda: INTS)

    assert type(pipe(debug=True)) is Pipeline


@pytest.mark.gpu
def test_gpu_operators_equal_cpu():
    ims = images(3)
    outs = {}
    for device in ("cpu", "gpu"):
        @pipeline_def(batch_size=B, num_threads=1, device_id=0, debug=True)
        def pipe():
            im = fn.external_source(lambda: ims, layout="HWC")
            im = im.gpu() if device == "gpu" else im
            return fn.crop(fn.flip(im, horizontal=1), crop=(5, 4))

        (o,) = pipe().run()
        outs[device] = arrays(o.as_cpu() if hasattr(o, "as_cpu") else o)
    for a, b in zip(outs["cpu"], outs["gpu"]):
        np.testing.assert_array_equal(a, b)
