"""Conditionals (`enable_conditionals=True`): `if`/`else`, `and`, `or`, `not` on DataNodes, per
sample, against NVIDIA DALI 2.4 on the same pipeline functions (dali_pipelines.py): outputs equal
(the same samples take the same branches: the conditions come from external_source, not from
random generators, which differ) and the same usage refused with DALI's error texts."""

import numpy as np
import pytest

from dali_pipelines import assert_same, assert_same_error, run_dali, run_sluice

B = 8
INTS = [np.array(v, np.int32) for v in (3, 0, 7, 1, 5, 2, 6, 4)]
FLOATS = [np.array(v, np.float32) for v in (0.0, 1.5, -2.0, 0.0, 0.25, 3.0, 0.0, -0.5)]
VECTORS = [np.array([v, v + 1], np.int32) for v in range(B)]


def images(seed=0, n=B):
    rng = np.random.default_rng(seed)
    return [rng.integers(1, 255, (rng.integers(8, 20), rng.integers(8, 20), 3), dtype=np.uint8)
            for _ in range(n)]


def compare(graph, inputs, tmp_path, helpers=(), layouts=None, iterations=1, debug=False):
    ours = run_sluice(graph, inputs, layouts=layouts, iterations=iterations, debug=debug,
                      enable_conditionals=True)
    ref = run_dali(graph, inputs, tmp_path, helpers=helpers, layouts=layouts,
                   iterations=iterations, enable_conditionals=True)
    assert_same(ours, ref)
    return ours


# --- graphs (module level: DALI imports them from their source) --------------------------------
def if_else(fn, types, x):
    if x > 3:
        y = x * 10
    else:
        y = x - 100
    return y, x


def elif_chain(fn, types, x):
    if x < 2:
        y = x + 1000
    elif x < 4:
        y = x + 2000
    elif x == 5:
        y = x + 3000
    else:
        y = x
    return y


def nested(fn, types, x):
    p = x > 1
    q = x < 6
    if p:
        if q:
            y = x * 10
        else:
            y = x * 100
    elif x == 0:
        y = x - 7
    else:
        y = -x
    return y, p


def one_branch_assigns(fn, types, x):
    y = x * 2
    if x > 4:
        y = y + 1
        unused = y * 3  # read nowhere after the if: not merged, no error  # noqa: F841
    return y


def constants(fn, types, x):
    if x > 3:
        a, b, c, big = 7, 2.5, True, 2**40  # DALI's constants: int32 (saturated), float, bool
    else:
        a, b, c, big = x, fn.cast(x, dtype=types.FLOAT), x > 100, -x
    return a, b, c, big


def early_returns(fn, types, x):
    if x > 5:
        return x + 1
    if x > 2:
        return x + 2
    return x + 3


def logical(fn, types, x):
    a = (x > 1) and (x < 6)
    b = (x < 2) or (x > 5)
    c = not (x > 3)
    d = (x > 2) and (x < 6) and not (x == 4)
    e = True and (x > 3), (x > 3) and True, 0 or (x > 2)
    return a, b, c, d, e[0], e[1], e[2]


def numeric_conditions(fn, types, x, f):
    if x:
        y = x
    else:
        y = x + 100
    if f:
        z = f
    else:
        z = f - 1
    return y, z, not x, not f


def structures(fn, types, x):
    if x > 3:
        t = (x, x + 1)
        d = {"a": x, "b": x * 2}
    else:
        t = (x * 0, x)
        d = {"b": x, "a": x - 1}
    return t[0], t[1], d["a"], d["b"]


def inputless_in_branch(fn, types, x):
    if x > 3:
        y = fn.random.coin_flip(probability=1.0) + x
    else:
        y = fn.random.coin_flip(probability=0.0) + x
    return y


def images_in_branches(fn, types, im, x):
    if x > 3:
        out = fn.flip(im, horizontal=1)
    elif x == 0:
        out = fn.crop(im, crop=(4, 5))
    else:
        out = im
    return out


def argument_inputs(fn, types, im, x):
    h = fn.cast(x > 4, dtype=types.INT32)
    v = fn.cast(x < 2, dtype=types.INT32)
    if x != 3:
        out = fn.flip(im, horizontal=h, vertical=v)
    else:
        out = im
    return out


def always_true(fn, types, x):
    if x >= 0:
        y = x + 1
    else:
        y = x - 1
    return y


def always_false(fn, types, x):
    if x > 100:
        y = x + 1
    else:
        y = x - 1
    return y


def loop_of_ifs(fn, types, x):
    y = x
    for k in range(3):
        if y > k * 2:
            y = y - 1
        else:
            y = y + 10
    return y


# --- a RandAugment-like policy: per-sample choices among augmentations -------------------------
def identity(fn, types, im):
    return im


def flip_h(fn, types, im):
    return fn.flip(im, horizontal=1)


def flip_v(fn, types, im):
    return fn.flip(im, vertical=1)


def invert(fn, types, im):
    return fn.cast(255 - fn.cast(im, dtype=types.INT32), dtype=types.UINT8)


def crop_center(fn, types, im):
    return fn.crop(im, crop=(6, 6))


def select(fn, types, augmentations, idx, im, lo, hi):
    # DALI's auto_aug selection (core/_select.py): halve the range per sample.
    if lo == hi:
        return augmentations[lo](fn, types, im)
    mid = (lo + hi) // 2
    if idx <= mid:
        return select(fn, types, augmentations, idx, im, lo, mid)
    else:
        return select(fn, types, augmentations, idx, im, mid + 1, hi)


def rand_augment(fn, types, im, first, second):
    augmentations = [identity, flip_h, flip_v, invert, crop_center]
    for idx in (first, second):
        im = select(fn, types, augmentations, idx, im, 0, len(augmentations) - 1)
    return im


def policy_chain(fn, types, im, choice):
    if choice == 0:
        out = fn.flip(im, horizontal=1)
    elif choice == 1:
        out = fn.flip(im, vertical=1)
    elif choice == 2:
        out = fn.cast(255 - fn.cast(im, dtype=types.INT32), dtype=types.UINT8)
    elif choice == 3:
        out = fn.crop(im, crop=(6, 6))
    else:
        out = im
    return out


RAND_AUGMENT_HELPERS = [identity, flip_h, flip_v, invert, crop_center, select]


@pytest.mark.parametrize("graph", [if_else, elif_chain, nested, one_branch_assigns, constants,
                                   early_returns, logical, structures, inputless_in_branch,
                                   always_true, always_false, loop_of_ifs])
def test_equals_dali(graph, tmp_path):
    compare(graph, [INTS], tmp_path)


def test_numeric_conditions_equal_dali(tmp_path):
    compare(numeric_conditions, [INTS, FLOATS], tmp_path)


@pytest.mark.parametrize("graph", [images_in_branches, argument_inputs])
def test_images_in_branches_equal_dali(graph, tmp_path):
    compare(graph, [images(1), INTS], tmp_path, layouts=["HWC", None])


def test_rand_augment_policy_equals_dali(tmp_path):
    rng = np.random.default_rng(5)
    first = [np.array(v, np.int32) for v in rng.integers(0, 5, B)]
    second = [np.array(v, np.int32) for v in rng.integers(0, 5, B)]
    compare(rand_augment, [images(2), first, second], tmp_path, helpers=RAND_AUGMENT_HELPERS,
            layouts=["HWC", None, None])


def test_policy_chain_equals_dali_over_iterations(tmp_path):
    choice = [np.array(v % 5, np.int32) for v in range(B)]
    compare(policy_chain, [images(3), choice], tmp_path, layouts=["HWC", None], iterations=3)


def test_policy_chain_on_random_choices_takes_each_samples_branch():
    # Sluice's own random choices: each sample is what its choice's augmentation makes of it,
    # applied to the whole batch without conditionals.
    from sluice import fn, pipeline_def, types

    ims = images(4, 16)

    @pipeline_def(batch_size=16, num_threads=2, device_id=None, seed=3, enable_conditionals=True)
    def chosen():
        im = fn.external_source(lambda: ims, layout="HWC")
        choice = fn.cast(fn.random.uniform(values=[0, 1, 2, 3, 4]), dtype=types.INT32)
        return policy_chain(fn, types, im, choice), choice

    @pipeline_def(batch_size=16, num_threads=2, device_id=None)
    def each():
        im = fn.external_source(lambda: ims, layout="HWC")
        return tuple(policy_chain(fn, types, im, c) for c in range(5))

    out, choice = chosen().run()
    every = each().run()
    seen = set()
    for i in range(16):
        c = int(np.array(choice.at(i)))
        seen.add(c)
        np.testing.assert_array_equal(np.array(out.at(i)), np.array(every[c].at(i)),
                                      err_msg=f"sample {i}, choice {c}")
    assert len(seen) > 2


@pytest.mark.parametrize("graph", [if_else, nested, constants, early_returns, logical,
                                   inputless_in_branch, always_true, loop_of_ifs])
def test_debug_mode_equals_dali(graph, tmp_path):
    compare(graph, [INTS], tmp_path, iterations=2, debug=True)


def test_rand_augment_policy_in_debug_mode_equals_dali(tmp_path):
    first = [np.array(v % 5, np.int32) for v in range(B)]
    second = [np.array((3 * v + 1) % 5, np.int32) for v in range(B)]
    compare(rand_augment, [images(2), first, second], tmp_path, helpers=RAND_AUGMENT_HELPERS,
            layouts=["HWC", None, None], debug=True)


# --- the same usage refused --------------------------------------------------------------------
def undefined_in_else(fn, types, x):
    if x > 2:
        y = x
    return y


def missing_return(fn, types, x):
    if x > 2:
        return x + 1000
    y = x  # noqa: F841


def divergent_structure(fn, types, x):
    if x > 2:
        y = (x, x)
    else:
        y = x
    return y


def divergent_types(fn, types, x):
    if x > 2:
        y = x
    else:
        y = fn.cast(x, dtype=types.FLOAT)
    return y


def divergent_dims(fn, types, x, v):
    if x > 2:
        y = x
    else:
        y = v
    return y


def vector_condition(fn, types, x, v):
    if v:
        y = x
    else:
        y = x + 1
    return y


def and_of_ints(fn, types, x):
    return x and x


def or_of_vectors(fn, types, x, v):
    return (v > 1) or (x > 2)


def not_of_vectors(fn, types, x, v):
    return not v


def while_on_data(fn, types, x):
    while x > 2:
        x = x - 1
    return x


def if_expression(fn, types, x):
    return x if x > 2 else x + 1


@pytest.mark.parametrize("graph, text", [
    (undefined_in_else, "Variable 'y' must also be initialized in the `else` branch."),
    (missing_return, "The `else` branch must also have a return statement."),
    (divergent_structure, "'If' output structure: (('*', '*'),)"),
    (divergent_types, "Found distinct types: int32 and float"),
    (divergent_dims, "Found distinct sample dimensions: 0 and 1"),
    (vector_condition, "Conditions inside `if` statements are restricted to scalar (0-d tensors) "
                       "inputs, that are placed on CPU. Got a 1-d input as a condition of the "
                       "`if` statement."),
    (and_of_ints, "Logical expression `and` is restricted to scalar (0-d tensors) inputs of "
                  "`bool` type, that are placed on CPU. Got an input of type `int32` as the left "
                  "argument in logical expression."),
    (or_of_vectors, "Got a 1-d input as the left argument in logical expression."),
    (not_of_vectors, "Logical expression `not` is restricted to scalar (0-d tensors) inputs, "
                     "that are placed on CPU. Got a 1-d input in logical expression."),
    (while_on_data, '"DataNode" was used in conditional context'),
    (if_expression, '"DataNode" was used in conditional context'),
])
def test_refused_as_dali_refuses(graph, text, tmp_path):
    inputs = [INTS, VECTORS][:graph.__code__.co_argcount - 2]
    ours = run_sluice(graph, inputs, enable_conditionals=True)
    ref = run_dali(graph, inputs, tmp_path, enable_conditionals=True)
    assert_same_error(ours, ref, text)
    if "restricted" in text or "Found distinct" in text:
        assert "This input restriction" in ours[2] or "Divergent data" in ours[2]


@pytest.mark.parametrize("graph", [if_else, logical, if_expression])
def test_without_conditionals_refused_as_dali_refuses(graph, tmp_path):
    ours = run_sluice(graph, [INTS])
    ref = run_dali(graph, [INTS], tmp_path)
    assert_same_error(ours, ref, "To use conditional execution via `if` statements you need to "
                                 "specify `enable_conditionals=True`")


def test_enable_conditionals_when_calling_the_decorated_function():
    from sluice import fn, pipeline_def

    @pipeline_def(batch_size=B, num_threads=1, device_id=None)
    def pipe():
        x = fn.external_source(lambda: INTS)
        if x > 3:
            y = x + 1
        else:
            y = x - 1
        return y

    with pytest.raises(TypeError, match="enable_conditionals=True"):
        pipe()
    (y,) = pipe(enable_conditionals=True).run()
    assert [int(np.array(y.at(i))) for i in range(B)] == [v + 1 if v > 3 else v - 1 for v in
                                                          (3, 0, 7, 1, 5, 2, 6, 4)]


@pytest.mark.gpu
def test_gpu_branches_equal_cpu_branches():
    from sluice import fn, pipeline_def

    ims = images(6)

    def graph(device):
        im = fn.external_source(lambda: ims, layout="HWC", device=device)
        x = fn.external_source(lambda: INTS)
        if x > 3:
            out = fn.flip(im, horizontal=1)
        elif x == 0:
            out = fn.crop(im, crop=(4, 5))
        else:
            out = im
        return out

    outs = {}
    for device in ("cpu", "gpu"):
        @pipeline_def(batch_size=B, num_threads=2, device_id=0, enable_conditionals=True)
        def pipe():
            return graph(device)

        (o,) = pipe().run()
        o = o.as_cpu() if hasattr(o, "as_cpu") else o
        outs[device] = [np.array(o.at(i)) for i in range(B)]
    for a, b in zip(outs["cpu"], outs["gpu"]):
        np.testing.assert_array_equal(a, b)
