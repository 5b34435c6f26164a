"""sluice.auto_aug's schemes: the suites and policies equal DALI 2.4's (names, magnitude ranges,
signs, the parameter of every bin, sub-policies), and the schemes pick what they should per
sample (checked with marker augmentations whose outputs name the augmentation and parameter
applied), deterministically for a seed."""

import json
import pathlib
import subprocess
import sys

import numpy as np
import pytest

from dali_reference import dali_python
from sluice import fn, pipeline_def, types
from sluice.auto_aug import auto_augment, rand_augment, trivial_augment
from sluice.auto_aug.core import Policy, augmentation

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from auto_aug_describe import describe  # noqa: E402


@pytest.fixture(scope="module")
def dali_description():
    python = dali_python()
    if python is None:
        pytest.skip("NVIDIA DALI not found: run ../shared/tools/dali-reference venv "
                    "(or set SLUICE_DALI_PYTHON)")
    run = subprocess.run([str(python), str(HERE / "auto_aug_describe.py"), "nvidia.dali"],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout)


def test_suites_and_policies_equal_dali(dali_description):
    ours = json.loads(json.dumps(describe("sluice")))
    assert ours.keys() == dali_description.keys()
    for key, ref in dali_description.items():
        assert ours[key] == ref, key  # parameters: the same float32 / uint8 values


# Marker augmentations: sample value v becomes v * 1000 + 100 * (k + 1) + (param + 50), so that
# the digits of the output name, stage by stage, the augmentation and its (signed) parameter.
def _marker(k, negate):
    @augmentation(mag_range=(0, 10), randomly_negate=negate, mag_to_param=lambda m: np.int32(m),
                  name=f"marker{k}")
    def mark(data, param):
        return data * 1000 + (100 * (k + 1) + 50) + param

    return mark


MARKERS = [_marker(k, negate=k % 2 == 0) for k in range(5)]


def _stages(v):
    """[(marker index, parameter), ...] of an output, first stage first."""
    out = []
    v = int(v)
    while v:
        v, d = divmod(v, 1000)
        out.append((d // 100 - 1, d % 100 - 50))
    return out[::-1]


def _run(scheme, seed, batch=64):
    @pipeline_def(batch_size=batch, num_threads=2, device_id=None, seed=seed,
                  enable_conditionals=True)
    def p():
        return scheme(fn.random.uniform(values=[0], dtype=types.INT32))

    (out,) = p().run()
    return [int(np.asarray(out.at(i))) for i in range(batch)]


# The schemes below take their seeds from the pipeline: an explicit `seed` is shared by all
# random operators of a scheme, whose draws are then correlated (the augmentation index and the
# bin grow together), in DALI as in Sluice.
def test_trivial_augment_picks_one_augmentation_and_bin_per_sample():
    def scheme(data):
        return trivial_augment.apply_trivial_augment(MARKERS, data, num_magnitude_bins=11)

    outs = _run(scheme, seed=5, batch=128)
    stages = [_stages(v) for v in outs]
    assert all(len(s) == 1 for s in stages)
    assert {s[0][0] for s in stages} == set(range(5))
    for (k, param), in stages:
        assert 0 <= abs(param) <= 10 and (param >= 0 or k % 2 == 0)  # only the signed ones negate
    assert {s[0][1] for s in stages} >= {-9, 9}
    assert outs == _run(scheme, seed=5, batch=128)
    assert outs != _run(scheme, seed=6, batch=128)


def test_an_explicit_seed_gives_the_same_choices_in_any_pipeline():
    def scheme(data):
        return trivial_augment.apply_trivial_augment(MARKERS, data, num_magnitude_bins=11,
                                                     seed=3)

    assert _run(scheme, seed=5) == _run(scheme, seed=6)


def test_rand_augment_applies_n_augmentations_of_magnitude_m():
    def scheme(data):
        return rand_augment.apply_rand_augment(MARKERS, data, n=2, m=7, num_magnitude_bins=11)

    outs = _run(scheme, seed=6)
    stages = [_stages(v) for v in outs]
    assert all(len(s) == 2 for s in stages)
    for s in stages:
        for k, param in s:
            assert param == 7 or (param == -7 and k % 2 == 0)
    assert {tuple(k for k, _ in s) for s in stages} >= {(0, 1), (1, 0), (3, 3)}
    assert outs == _run(scheme, seed=6)


def test_auto_augment_follows_the_sub_policies():
    m = MARKERS
    policy = Policy("markers", 11, [[(m[0], 1.0, 3), (m[1], 0.0, 5)],
                                    [(m[2], 0.5, 9)],
                                    [(m[3], 1.0, 10), (m[4], 1.0, 0), (m[1], 0.5, 2)]])

    def scheme(data):
        return auto_augment.apply_auto_augment(policy, data)

    outs = _run(scheme, seed=7, batch=128)
    seen = set()
    for v in outs:
        s = tuple(_stages(v))
        assert s in {((0, 3),), ((0, -3),), (), ((2, 9),), ((2, -9),),
                     ((3, 10), (4, 0)), ((3, 10), (4, 0), (1, 2))}, s
        seen.add(s)
    assert {(), ((2, 9),), ((0, 3),), ((3, 10), (4, 0)), ((3, 10), (4, 0), (1, 2))} <= seen
    assert outs == _run(scheme, seed=7, batch=128)


def test_arguments_are_checked_as_in_dali():
    data = None
    with pytest.raises(Exception, match="`m` must be an integer"):
        rand_augment.apply_rand_augment(MARKERS, data, n=1, m=11, num_magnitude_bins=11)
    with pytest.raises(Exception, match="does not contain augmentation with this name"):
        trivial_augment.trivial_augment_wide(data, excluded=["blur"])
    with pytest.raises(Exception, match="`policy_name` must be a string"):
        auto_augment.auto_augment(data, policy_name="cifar")
    with pytest.raises(Exception, match="must not be specified"):
        auto_augment.auto_augment(data, policy_name="reduced_image_net", max_translate_abs=3)
    with pytest.raises(Exception, match="cannot be used without image shapes"):
        trivial_augment.get_trivial_augment_wide_suite(False, max_translate_rel=0.5)
    with pytest.raises(Exception, match="Magnitude of the augmentation must be an integer"):
        Policy("p", 3, [[(MARKERS[0], 0.5, 3)]])
    with pytest.raises(Exception, match="already decorated"):
        augmentation(MARKERS[0])


def test_a_missing_shape_is_explained():
    from sluice.auto_aug import augmentations as a

    def scheme(data):
        return trivial_augment.apply_trivial_augment([a.identity, a.translate_x], data)

    with pytest.raises(Exception, match="requires `shape` argument"):
        _run(scheme, seed=1)
    with pytest.raises(Exception, match="unexpected kwarg"):
        _run(lambda d: trivial_augment.apply_trivial_augment([a.identity], d, size=3), seed=1)
