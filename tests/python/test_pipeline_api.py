"""The DALI Pipeline API over the engine: building, running, errors, determinism, shutdown,
serialisation and every Pipeline method (seed 004)."""

import hashlib
import time

import numpy as np
import pytest

import sluice
from sluice import Pipeline, fn, ops, pipeline_def, types
from conftest import native_threads, native_threads_settled


def random_graph():
    u = fn.random.uniform(range=[0, 10], shape=[3, 5])
    flip = fn.random.coin_flip(probability=0.3)
    mixed = fn.random.uniform(range=[-1, 1], shape=[4], seed=7)
    return u, flip, u * 2 + flip, fn.cast(u, dtype=types.UINT8), -mixed, u // 3, u < 5


def digest(outputs):
    h = hashlib.sha256()
    for o in outputs:
        h.update(np.ascontiguousarray(np.asarray(o)).tobytes())
    return h.hexdigest()


def run_digests(pipe, n):
    pipe.build()
    return [digest(pipe.run()) for _ in range(n)]


@pytest.mark.parametrize("threads", [1, 2, 4, 8])
@pytest.mark.parametrize("depth", [1, 2, 3])
def test_outputs_are_bit_identical_across_threads_and_prefetch(threads, depth):
    ref = pipeline_def(random_graph, batch_size=8, num_threads=1, device_id=None, seed=11)()
    expected = run_digests(ref, 4)
    pipe = pipeline_def(random_graph, batch_size=8, num_threads=threads, device_id=None, seed=11,
                        prefetch_queue_depth=depth)()
    assert run_digests(pipe, 4) == expected


def test_different_seeds_differ():
    a = pipeline_def(random_graph, batch_size=8, num_threads=2, device_id=None, seed=1)()
    b = pipeline_def(random_graph, batch_size=8, num_threads=2, device_id=None, seed=2)()
    assert run_digests(a, 2) != run_digests(b, 2)


def test_decoder_error_names_file_operator_and_sample():
    payload = [np.frombuffer(b"\xff\xd8\xff\xe0 this is not really a jpeg", np.uint8)] * 3

    @pipeline_def(batch_size=3, num_threads=2, device_id=None)
    def p():
        return fn.decoders.image(fn.external_source(lambda: payload), name="MyDecoder")

    pipe = p()
    with pytest.raises(sluice.DecodeError) as e:
        pipe.run()
    msg = str(e.value)
    assert "decoders.image" in msg and "MyDecoder" in msg and "sample 0" in msg
    with pytest.raises(sluice.SluiceError, match="reset"):
        pipe.run()
    pipe.reset()
    with pytest.raises(sluice.DecodeError):  # still bad data, but the pipeline runs again
        pipe.run()


def test_unknown_and_ill_typed_arguments_name_operator_and_argument():
    with pytest.raises(ValueError, match=r"random\.coin_flip.*probabilty"):
        fn.random.coin_flip(probabilty=0.5)
    with pytest.raises(ValueError, match=r"probability.*float"):
        fn.random.coin_flip(probability="high")
    with pytest.raises(ValueError, match="interp_type|dtype"):
        fn.cast(fn.random.coin_flip(), dtype="not_a_type")


def test_fn_and_ops_are_generated_with_docs():
    assert "Bernoulli" in fn.random.coin_flip.__doc__
    assert "probability" in ops.CoinFlip.__doc__
    assert ops.random.CoinFlip is ops.CoinFlip
    assert callable(fn.decoders.image) and callable(fn.image_decoder)  # legacy alias
    assert ops.FileReader is ops.readers.File

    @pipeline_def(batch_size=4, num_threads=1, device_id=None, seed=5)
    def legacy():
        return ops.CoinFlip(probability=1.0)()

    assert np.asarray(legacy().run()[0]).tolist() == [1, 1, 1, 1]


def test_gpu_data_cannot_flow_back_to_cpu_and_cpu_ops_need_gpu_input_moved():
    @pipeline_def(batch_size=2, num_threads=1, device_id=0)
    def back():
        x = fn.random.coin_flip().gpu()
        return fn.cast(x, dtype=types.FLOAT, device="cpu")

    with pytest.raises(ValueError, match="cannot flow back"):
        back().build()


def test_subclass_define_graph_iter_setup_and_feed_input():
    class Feeder(Pipeline):
        def __init__(self):
            super().__init__(batch_size=3, num_threads=1, device_id=None)
            self.n = 0

        def define_graph(self):
            self.src = fn.external_source(name="src")
            return fn.cast(self.src, dtype=types.INT32)

        def iter_setup(self):
            self.n += 1
            self.feed_input("src", [np.array([self.n, i], np.uint8) for i in range(3)])

    pipe = Feeder()
    pipe.build()
    pipe.build()  # safe twice
    first = np.asarray(pipe.run()[0])
    second = np.asarray(pipe.run()[0])
    assert first[:, 0].tolist() == [1, 1, 1] and second[:, 0].tolist() == [2, 2, 2]
    assert first.dtype == np.int32


def test_set_outputs_with_statement_current_and_stack():
    pipe = Pipeline(batch_size=2, num_threads=1, device_id=None, seed=3)
    assert Pipeline.current() is None
    with pipe:
        assert Pipeline.current() is pipe
        other = Pipeline(batch_size=1, num_threads=1, device_id=None)
        Pipeline.push_current(other)
        assert Pipeline.current() is other
        Pipeline.pop_current()
        pipe.set_outputs(fn.random.coin_flip())
    assert Pipeline.current() is None
    assert len(pipe.run()[0]) == 2


def test_scheduled_api_and_api_check():
    pipe = pipeline_def(random_graph, batch_size=4, num_threads=2, device_id=None, seed=1)()
    pipe.build()
    pipe.schedule_run()
    assert not pipe.empty()
    outs = pipe.share_outputs()
    assert len(outs) == 7
    pipe.release_outputs()
    pipe.schedule_run()
    pipe.share_outputs()
    pipe.release_outputs()
    with pytest.raises(RuntimeError, match="Mixing pipeline API type"):
        pipe.run()


def test_external_source_kinds_and_end_of_data():
    data = [np.full((2,), i, np.int16) for i in range(6)]

    @pipeline_def(batch_size=2, num_threads=1, device_id=None, prefetch_queue_depth=2)
    def from_list():
        return fn.external_source([[data[0], data[1]], [data[2], data[3]]], cycle="raise")

    pipe = from_list()
    a = np.asarray(pipe.run()[0])
    b = np.asarray(pipe.run()[0])
    assert a[:, 0].tolist() == [0, 1] and b[:, 0].tolist() == [2, 3]
    with pytest.raises(StopIteration):
        pipe.run()
    pipe.reset()
    assert np.asarray(pipe.run()[0])[:, 0].tolist() == [0, 1]

    def gen():
        for i in range(3):
            yield [np.array([i], np.int64)] * 2

    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def from_generator():
        return fn.external_source(gen, cycle=True)

    p2 = from_generator()
    seen = [int(np.asarray(p2.run()[0])[0, 0]) for _ in range(5)]
    assert seen == [0, 1, 2, 0, 1]

    infos = []

    def per_sample(info):
        infos.append((info.idx_in_epoch, info.idx_in_batch, info.iteration))
        return np.array([info.idx_in_epoch], np.int32), np.array([info.iteration], np.int32)

    @pipeline_def(batch_size=3, num_threads=1, device_id=None, prefetch_queue_depth=1)
    def per_sample_pipe():
        return tuple(fn.external_source(per_sample, num_outputs=2, batch=False))

    p3 = per_sample_pipe()
    idx, it = p3.run()
    assert np.asarray(idx)[:, 0].tolist() == [0, 1, 2] and np.asarray(it)[:, 0].tolist() == [0, 0, 0]
    idx, it = p3.run()
    assert np.asarray(idx)[:, 0].tolist() == [3, 4, 5]


def test_smaller_batches_than_the_maximum():
    sizes = iter([4, 2, 3])

    @pipeline_def(batch_size=4, num_threads=2, device_id=None)
    def p():
        return fn.external_source(lambda: [np.ones((2, 2), np.float32)] * next(sizes)) * 2

    pipe = p()
    assert [len(pipe.run()[0]) for _ in range(3)] == [4, 2, 3]


def test_batch_larger_than_maximum_is_a_clear_error():
    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def p():
        return fn.external_source(lambda: [np.ones(1)] * 3)

    with pytest.raises(ValueError, match="batch_size"):
        p().run()


def test_serialize_deserialize_round_trip_gives_identical_outputs(tmp_path):
    pipe = pipeline_def(random_graph, batch_size=4, num_threads=2, device_id=None, seed=9)()
    doc = pipe.serialize()
    assert '"format": "sluice-pipeline"' in doc
    expected = run_digests(pipe, 3)
    again = Pipeline.deserialize(doc)
    assert run_digests(again, 3) == expected
    path = tmp_path / "pipe.json"
    pipe.serialize(filename=str(path))
    assert run_digests(Pipeline.deserialize(filename=str(path), num_threads=3), 3) == expected
    with pytest.raises(ValueError, match="serialized"):
        Pipeline.deserialize("cos\nsystem\n(S'echo pwned'\ntR.")  # a pickle is not a pipeline


def test_save_graph_to_dot_file(tmp_path):
    pipe = pipeline_def(random_graph, batch_size=2, num_threads=1, device_id=None)()
    path = tmp_path / "g.dot"
    pipe.save_graph_to_dot_file(str(path), show_tensors=True, show_ids=True, use_colors=True)
    text = path.read_text()
    assert text.startswith("digraph") and "random.uniform" in text and "fillcolor" in text


def test_executor_statistics_report_time_and_memory():
    pipe = pipeline_def(random_graph, batch_size=4, num_threads=2, device_id=None,
                        enable_memory_stats=True)()
    pipe.build()
    pipe.run()
    stats = pipe.executor_statistics()
    uniform = next(v for v in stats.values() if v["type"] == "random.uniform")
    assert uniform["runs"] >= 1 and uniform["total_time_ms"] >= 0
    assert uniform["real_memory_size"] == [4 * 15 * 4]
    assert uniform["max_real_memory_size"] == [15 * 4]
    assert uniform["reserved_memory_size"][0] >= uniform["real_memory_size"][0]


def test_bytes_per_sample_hint_presizes_buffers():
    @pipeline_def(batch_size=4, num_threads=1, device_id=None, enable_memory_stats=True,
                  bytes_per_sample=1 << 16)
    def p():
        return fn.random.uniform(shape=[2], bytes_per_sample_hint=1 << 20, name="u"), fn.random.coin_flip(name="c")

    pipe = p()
    pipe.run()
    stats = pipe.executor_statistics()
    assert stats["u"]["reserved_memory_size"][0] >= 4 << 20
    assert stats["c"]["reserved_memory_size"][0] >= 4 << 16


def test_output_dtype_and_ndim_checks():
    @pipeline_def(batch_size=2, num_threads=1, device_id=None, output_dtype=types.FLOAT, output_ndim=2)
    def good():
        return fn.random.uniform(shape=[2, 2])

    good().run()

    @pipeline_def(batch_size=2, num_threads=1, device_id=None, output_dtype=[types.INT32])
    def bad():
        return fn.random.uniform(shape=[2, 2])

    with pytest.raises(RuntimeError, match="Data type in the output_idx=0 does not match"):
        bad().run()


def test_properties_and_unsupported_parameters():
    pipe = Pipeline(batch_size=8, num_threads=3, device_id=None, seed=12,
                    prefetch_queue_depth={"cpu_size": 3, "gpu_size": 2}, exec_dynamic=True)
    assert (pipe.max_batch_size, pipe.num_threads, pipe.seed) == (8, 3, 12)
    with pytest.warns(Warning, match="batch_size is deprecated"):
        assert pipe.batch_size == 8
    assert pipe.device_id is None and pipe.exec_separated
    assert (pipe.cpu_queue_size, pipe.gpu_queue_size) == (3, 2)
    assert pipe.exec_pipelined and pipe.exec_async and not pipe.set_affinity
    assert pipe.py_num_workers == 1 and pipe.py_start_method == "fork"
    assert Pipeline(batch_size=1, num_threads=1).seed is None
    with pytest.raises(TypeError, match="enable_conditionals"):  # pipeline_def's, as in DALI
        Pipeline(batch_size=1, num_threads=1, enable_conditionals=True)
    assert not pipe.is_restored_from_checkpoint
    with pytest.raises(RuntimeError, match="enable_checkpointing"):
        pipe.checkpoint()


def test_pipeline_def_splits_arguments_and_refuses_kwargs_when_called():
    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def p(probability, seed=100):  # `seed` shadows the Pipeline argument: it goes to p
        assert Pipeline.current().max_batch_size == 5
        return fn.random.coin_flip(probability=probability) * seed

    with pytest.warns(UserWarning, match="`seed` shadows a Pipeline constructor argument"):
        pipe = p(1.0, batch_size=5, seed=3)
    assert pipe.seed is None and p._is_pipeline_def
    assert np.asarray(pipe.run()[0]).tolist() == [3] * 5
    with pytest.raises(TypeError, match="unexpected"):
        p(1.0, no_such_argument=1)
    # DALI decorates a function taking **kwargs and refuses it when called.
    factory = pipeline_def(lambda **kw: fn.random.coin_flip(**kw), batch_size=1, num_threads=1)
    with pytest.raises(TypeError, match=r"variadic keyword argument `\*\*kw`"):
        factory(probability=1.0)


def test_build_after_set_outputs_uses_them_even_with_a_define_graph():
    class Both(Pipeline):
        def define_graph(self):
            return fn.random.coin_flip(probability=0.0)

    pipe = Both(batch_size=2, num_threads=1, device_id=None)
    with pipe:
        pipe.set_outputs(fn.random.coin_flip(probability=1.0))
    with pytest.raises(RuntimeError, match="Duplicate graph definition"):
        pipe.build(define_graph=lambda: fn.random.coin_flip())
    pipe.build()
    assert np.asarray(pipe.run()[0]).tolist() == [1, 1]
    fallback = Both(batch_size=2, num_threads=1, device_id=None)
    fallback.set_outputs()  # nothing: define_graph, as in DALI
    assert np.asarray(fallback.run()[0]).tolist() == [0, 0]


def test_equal_pipelines_serialize_equally_and_names_are_per_pipeline():
    docs = [pipeline_def(random_graph, batch_size=2, num_threads=1, device_id=None, seed=1)()
            .serialize() for _ in range(2)]
    assert docs[0] == docs[1]
    with Pipeline(batch_size=1, num_threads=1) as pipe:
        assert fn.random.uniform().source.name == "__Uniform_0"
        assert fn.random.coin_flip(name="mine").source.name == "mine"
        assert fn.random.coin_flip().source.name == "__CoinFlip_1"  # as DALI counts
    assert fn.random.uniform().source.name.startswith("__Uniform_detached_")


def test_deserialize_and_build_keeps_the_pipeline_it_builds():
    import gc

    doc = pipeline_def(random_graph, batch_size=4, num_threads=2, device_id=None, seed=9)()
    expected = run_digests(Pipeline.deserialize(doc.serialize()), 2)
    pipe = Pipeline(batch_size=4, num_threads=2, device_id=None)
    pipe.deserialize_and_build(doc.serialize())
    gc.collect()  # nothing else holds the engine
    assert pipe.seed == 9 and run_digests(pipe, 2) == expected


def test_outputs_may_be_constants_and_arrays():
    if not hasattr(types, "Constant"):
        pytest.skip("types.Constant comes with the constant operator")

    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def p():
        return fn.random.coin_flip(probability=1.0), 7, np.array([[1, 2]], np.int16)

    flips, seven, array = p().run()
    assert np.asarray(seven).tolist() == [7, 7]
    assert np.asarray(array).tolist() == [[[1, 2]], [[1, 2]]] and np.asarray(array).dtype == np.int16
    with pytest.raises(TypeError, match="Illegal output type"):
        pipeline_def(lambda: "abc", batch_size=2, num_threads=1)().build()


def test_exec_async_false_and_not_pipelined():
    for kwargs in ({"exec_async": False}, {"exec_pipelined": False, "exec_async": False}):
        pipe = pipeline_def(random_graph, batch_size=4, num_threads=2, device_id=None, seed=3,
                            **kwargs)()
        ref = pipeline_def(random_graph, batch_size=4, num_threads=2, device_id=None, seed=3)()
        assert run_digests(pipe, 3) == run_digests(ref, 3)


def test_zero_copy_numpy_and_dlpack():
    pipe = pipeline_def(random_graph, batch_size=4, num_threads=1, device_id=None)()
    out = pipe.run()[0]
    a = np.from_dlpack(out)
    b = np.asarray(out)
    assert a.ctypes.data == out.data_ptr() == b.ctypes.data
    assert a.shape == (4, 3, 5) and out.shape() == [(3, 5)] * 4
    assert out.at(1).ctypes.data == out.data_ptr() + 15 * 4
    assert out.as_tensor().shape() == [4, 3, 5]  # a list, as in DALI
    assert np.asarray(out[2]).shape == (3, 5)


def test_torch_from_dlpack_is_zero_copy_and_outlives_the_pipeline():
    torch = pytest.importorskip("torch")
    pipe = pipeline_def(random_graph, batch_size=4, num_threads=1, device_id=None, seed=4)()
    out = pipe.run()[0]
    t = torch.utils.dlpack.from_dlpack(out)
    assert t.data_ptr() == out.data_ptr() and t.shape == (4, 3, 5)
    expected = t.clone()
    for _ in range(5):  # buffers a consumer still holds are never overwritten
        pipe.run()
    del pipe, out
    assert torch.equal(t, expected)


def test_shutdown_while_batches_are_in_flight_is_prompt_and_leaves_no_threads():
    before = native_threads()
    for _ in range(3):
        pipe = pipeline_def(random_graph, batch_size=64, num_threads=4, device_id=None,
                            prefetch_queue_depth=3)()
        pipe.build()
        pipe.schedule_run()
        t0 = time.perf_counter()
        del pipe
        assert time.perf_counter() - t0 < 2.0
    assert native_threads_settled(before) <= before


def test_backend_memory_controls():
    b = sluice.backend
    b.SetHostBufferShrinkThreshold(0.5)
    assert b.buffer_policy()["host_shrink_threshold"] == 0.5
    b.SetHostBufferShrinkThreshold(0.9)
    b.SetBufferGrowthFactor(1.5)
    assert b.buffer_policy()["device_growth_factor"] == 1.5
    b.SetBufferGrowthFactor(1.0)
    with pytest.raises(ValueError):
        b.SetHostBufferShrinkThreshold(2.0)
    b.ReleaseUnusedMemory()
    assert b.memory_stats()["host"]["allocated"] >= 0


def test_environment_variables_set_the_initial_policy():
    import subprocess
    import sys

    code = "import sluice.backend as b; print(b.buffer_policy())"
    env = {"SLUICE_HOST_BUFFER_SHRINK_THRESHOLD": "0.25", "SLUICE_DEVICE_BUFFER_GROWTH_FACTOR": "2",
           "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert "'host_shrink_threshold': 0.25" in out.stdout and "'device_growth_factor': 2.0" in out.stdout


@pytest.mark.gpu
def test_gpu_transfer_and_torch_stream_handshake():
    torch = pytest.importorskip("torch")

    @pipeline_def(batch_size=8, num_threads=2, device_id=0, seed=2)
    def p():
        u = fn.random.uniform(shape=[1000])
        return u, u.gpu() * 2

    pipe = p()
    for _ in range(4):
        cpu, gpu = pipe.run()
        t = torch.from_dlpack(gpu)
        assert t.is_cuda and t.data_ptr() == gpu.data_ptr()
        torch.testing.assert_close(t.cpu(), torch.from_numpy(np.asarray(cpu)) * 2)


@pytest.mark.gpu
def test_cpu_data_bound_for_the_gpu_lives_in_pinned_memory_and_is_never_overwritten_early():
    # Note [Pinned transfers]: a CPU tensor that .gpu() moves is kept in pinned memory and copied
    # up without staging; its slot is rewritten only after that copy ran. A long chain of GPU
    # operators makes the copies queue behind it while the CPU stage runs ahead.
    from sluice import backend

    n = 256 * 1024  # 1 MB per sample, 8 MB per batch

    def graph(on_gpu):
        u = fn.random.uniform(range=[0, 1], shape=[n], seed=5)
        if not on_gpu:
            return u * 3.0
        g = u.gpu()
        for _ in range(40):
            g = g * 1.0
        return g * 3.0

    ref = pipeline_def(lambda: graph(False), batch_size=8, num_threads=2, device_id=None,
                       seed=7)()
    expected = [np.array(ref.run()[0]) for _ in range(30)]
    del ref
    before = backend.memory_stats()
    pipe = pipeline_def(lambda: graph(True), batch_size=8, num_threads=2, device_id=0, seed=7,
                        prefetch_queue_depth=3)()
    pipe.build()
    for it in range(30):
        (got,) = pipe.run()
        np.testing.assert_array_equal(np.asarray(got.as_cpu()), expected[it],
                                      err_msg=f"iteration {it}")
    after = backend.memory_stats()
    batch_bytes = 8 * n * 4
    assert after["pinned"]["allocated"] - before["pinned"]["allocated"] >= 2 * batch_bytes
    assert after["host"]["allocated"] - before["host"]["allocated"] < batch_bytes
