"""jitter: DALI 2.4 has it on the GPU only and draws from its own generator, so no output can
equal DALI's; each output pixel must be an input pixel within nDegree / 2 (or the fill value,
from the far edge), on the CPU (a Sluice extra) and on the GPU, which must equal the CPU bit for
bit. DALI's GPU operator is checked for the same property on the GPU machine."""

import numpy as np
import pytest

from dali_reference import run_sluice
from op_testing import compare_gpu_cpu, random_images


def jitter_graph(fn, types, x, mask):
    return fn.jitter(x, nDegree=5, fill_value=7, mask=mask, seed=3)


def check_jitter(img, out, n_degree, fill):
    """Every output pixel is an input pixel within the window, or the fill value."""
    h, w = img.shape[:2]
    half = n_degree // 2
    padded = np.full((h + 2 * half + 1, w + 2 * half + 1) + img.shape[2:], fill, img.dtype)
    padded[half:half + h, half:half + w] = img
    ok = np.zeros((h, w), bool)
    for dy in range(-half, n_degree - half):
        for dx in range(-half, n_degree - half):
            window = padded[half + dy:half + dy + h, half + dx:half + dx + w]
            ok |= (window == out).all(axis=2)
    assert ok.all()
    assert (out != img).any(axis=2).mean() > 0.5  # most pixels moved


def test_jitter_moves_pixels_within_the_window():
    rng = np.random.default_rng(1)
    # Distinct pixels, so that a moved pixel is recognisable.
    images = [rng.permutation(64 * 64 * 3).reshape(64, 64, 3).astype(np.float32)
              for _ in range(4)]
    masks = [np.array(k != 2, np.int32) for k in range(4)]
    (ours,) = run_sluice(jitter_graph, [images, masks], ["HWC", None])
    for k, (img, out) in enumerate(zip(images, ours)):
        if k == 2:
            np.testing.assert_array_equal(out, img)
        else:
            check_jitter(img, out, 5, 7)
    (again,) = run_sluice(jitter_graph, [images, masks], ["HWC", None])
    for a, b in zip(ours, again):
        np.testing.assert_array_equal(a, b)


def test_jitter_refuses_cubic_interpolation():
    x = [np.ones((4, 5, 3), np.uint8)] * 2

    def graph(fn, types, x):
        return fn.jitter(x, interp_type=types.INTERP_CUBIC)

    with pytest.raises(Exception, match="INTERP_NN and INTERP_LINEAR"):
        run_sluice(graph, [x], ["HWC"])


@pytest.mark.gpu
def test_gpu_equals_cpu():
    from sluice import fn

    data = random_images(np.random.default_rng(2), 16)

    def graph(x, d):
        return fn.jitter(x, nDegree=4, seed=11, device=d)

    compare_gpu_cpu(graph, data, atol=0)


@pytest.mark.gpu
def test_dali_gpu_jitter_has_the_same_property(tmp_path):
    """On the GPU machine: DALI's GPU jitter moves pixels within the same window."""
    from dali_reference import dali_python

    import subprocess
    import textwrap

    python = dali_python()
    if python is None:
        pytest.skip("NVIDIA DALI not found")
    script = textwrap.dedent("""
        import numpy as np
        from nvidia.dali import fn, pipeline_def
        img = np.random.default_rng(1).permutation(64 * 64 * 3).reshape(64, 64, 3)
        img = (img % 256).astype(np.uint8)
        @pipeline_def(batch_size=1, num_threads=1, device_id=0)
        def p():
            return fn.jitter(fn.external_source(lambda: [img], layout="HWC").gpu(), nDegree=5)
        pipe = p()
        pipe.build()
        np.save(r"{out}", np.asarray(pipe.run()[0].as_cpu()[0]))
        np.save(r"{inp}", img)
    """).format(out=tmp_path / "out.npy", inp=tmp_path / "in.npy")
    run = subprocess.run([str(python), "-c", script], capture_output=True, text=True, timeout=300)
    if run.returncode != 0:
        pytest.skip(f"DALI's GPU pipeline did not run: {run.stderr[-500:]}")
    img, out = np.load(tmp_path / "in.npy"), np.load(tmp_path / "out.npy")
    h, w = img.shape[:2]
    padded = np.zeros((h + 5, w + 5, 3), np.uint8)
    padded[2:2 + h, 2:2 + w] = img
    ok = np.zeros((h, w), bool)
    for dy in range(-2, 3):
        for dx in range(-2, 3):
            ok |= (padded[2 + dy:2 + dy + h, 2 + dx:2 + dx + w] == out).all(axis=2)
    assert ok.all()
