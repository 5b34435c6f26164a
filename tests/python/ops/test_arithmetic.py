"""The "_arithmetic" operator behind DataNode expressions (a + b, a // 2, -a, a < b, a & b, ...)
against NVIDIA DALI 2.4: the result type of every pair of types, the values (bit-exact for
integers and for + - * / of floats), constants and their types, broadcasting with DALI's result
shapes, layouts, and the inputs DALI refuses. The GPU operator against the CPU one.

DALI's CPU arithmetic has no float16 (Sluice's has, with DALI's GPU types: see
test_float16_follows_dalis_gpu_promotion); the tables cover the other eleven types, uint64 with
values beyond int64's range."""

import numpy as np
import pytest

from dali_reference import run_dali, run_sluice
from op_testing import gpu_equals_cpu_bit_for_bit
from sluice import fn, pipeline_def, types

TYPES = ["bool", "uint8", "int8", "uint16", "int16", "uint32", "int32", "int64", "uint64",
         "float32", "float64"]


def typed_batches():
    """One batch per type of TYPES, two samples of 6 values: negative values for the signed
    types and uint64's above 2^63, no zeros (they divide)."""
    signed = [-7, 7, 5, -3, 2, 100]
    unsigned = [200, 7, 5, 3, 2, 100]
    floats = [-7.5, 7.25, 5.0, -3.0, 0.5, 100.0]
    out = []
    for t in TYPES:
        if t == "bool":
            vals = [True, False, True, True, False, True]
        elif t == "uint64":
            vals = [2 ** 64 - 1, 7, 2 ** 63, 3, 12345678901234567891, 100]
        else:
            vals = floats if t.startswith("float") else unsigned if t.startswith("u") else signed
        a = np.array(vals, object).astype(t)
        out.append([a, a[::-1].copy()])
    return out


def pairs_graph(fn, types, *xs):
    # xs follow TYPES: 0 is bool, 9 and 10 are floats.
    outs = []
    for i, a in enumerate(xs):
        for j, b in enumerate(xs):
            both_bool, has_float = i == 0 and j == 0, i >= 9 or j >= 9
            outs.append(a * b)
            if not (i in (2, 4, 6, 7) and j >= 9 or j in (2, 4, 6, 7) and i >= 9):
                # signed integers with floats: see test_signed_integers_compare_exactly_with_floats
                outs += [a == b, a < b, a >= b, a != b]
            if not both_bool:
                outs += [a + b, a - b, a / b, a ** b]
            if j > 0:  # the booleans have zeros
                outs += [a // b, a % b]
            if not has_float:
                outs += [a & b, a | b, a ^ b]
    return tuple(outs)


def assert_same(ours, ref, what=""):
    assert len(ours) == len(ref)
    for k, (o, r) in enumerate(zip(ours, ref)):
        for i, (a, b) in enumerate(zip(o, r)):
            assert a.dtype == b.dtype, f"{what} output {k}: {a.dtype} != {b.dtype}"
            assert a.shape == b.shape, f"{what} output {k} sample {i}: {a.shape} != {b.shape}"
            if a.dtype.kind == "f":
                np.testing.assert_array_max_ulp(a, b, maxulp=1, dtype=a.dtype)
            else:
                np.testing.assert_array_equal(a, b, err_msg=f"{what} output {k} sample {i}")


def test_every_pair_of_types_equals_dali(tmp_path):
    inputs = typed_batches()
    ours = run_sluice(pairs_graph, inputs)
    ref = run_dali(pairs_graph, inputs, tmp_path)
    assert_same(ours, ref, "pairs")


def compare_graph(fn, types, i8, i32, i64, f32, f64):
    return tuple(op for a in (i8, i32, i64) for b in (f32, f64)
                 for op in (a == b, a != b, a < b, a <= b, a > b, a >= b, b == a, b < a))


def test_signed_integers_compare_exactly_with_floats(tmp_path):
    """Sluice compares a negative integer with a float by value. DALI 2.4 does not: its
    comparison of a signed and a non-signed operand answers as if the other were unsigned
    (-3 == -3.0 is False, -7 < -7.5 is True). The values where DALI differs are exactly those."""
    b = typed_batches()
    inputs = [b[2], b[6], b[7], b[9], b[10]]
    ours = run_sluice(compare_graph, inputs)
    ref = run_dali(compare_graph, inputs, tmp_path)
    ops = [np.equal, np.not_equal, np.less, np.less_equal, np.greater, np.greater_equal]
    dali_rule = [False, True, True, True, False, False]  # a negative left operand
    k = 0
    for a in inputs[:3]:
        for f in inputs[3:]:
            for name, op in enumerate(ops + [None, None]):
                for s in range(2):
                    x, y = a[s].astype(np.float64), f[s].astype(f[s].dtype)
                    want = op(x.astype(y.dtype), y) if op else \
                        (np.equal(y, x.astype(y.dtype)) if name == 6 else np.less(y, x.astype(y.dtype)))
                    np.testing.assert_array_equal(ours[k][s], want)
                    if op:
                        dali = np.where(a[s] < 0, dali_rule[name], want)
                    else:  # float on the left: the rule applies to a negative right operand
                        dali = np.where(a[s] < 0, [False, False][name - 6] if name == 6 else False,
                                        want)
                    np.testing.assert_array_equal(ref[k][s], dali)
                k += 1


def unary_graph(fn, types, *xs):
    outs = []
    for i, a in enumerate(xs):
        if i > 0:
            outs += [-a, abs(a), +a]
        if i < 9:
            outs.append(~a)
    return tuple(outs)


def test_unary_operators_equal_dali(tmp_path):
    inputs = typed_batches()
    assert_same(run_sluice(unary_graph, inputs), run_dali(unary_graph, inputs, tmp_path), "unary")


def shift_graph(fn, types, *xs):
    return tuple(a << b for a in xs for b in xs) + tuple(a >> b for a in xs for b in xs)


def test_shifts_equal_dali(tmp_path):
    # Counts within the width of the promoted type, and 40 / -1 (taken modulo the width, as x86
    # and DALI do).
    counts = [np.array([0, 1, 7, 3, 40, 255], np.uint8)]
    vals = [np.array([1, -8, 100, -128, 1, 127], np.int8),
            np.array([1, 8, 100, 65535, 1, 127], np.uint16),
            np.array([1, -8, 1 << 20, -1, 1, -5], np.int32),
            np.array([1, -8, 1 << 40, -1, 1, -5], np.int64),
            np.array([1, 8, 1 << 40, 2 ** 64 - 1, 2 ** 63, 5], np.uint64)]
    inputs = [[v, v[::-1].copy()] for v in vals] + [[counts[0], counts[0][::-1].copy()]]
    inputs[-1][1][0] = 0
    assert_same(run_sluice(shift_graph, inputs), run_dali(shift_graph, inputs, tmp_path), "shift")


def constants_graph(fn, types, u8, i16, f32, f64):
    return (u8 + 10, 10 - u8, u8 + 300, u8 + -1, u8 * 1.5, u8 + True, f64 + 0.1, f32 * (1 / 3),
            u8 + types.Constant(10, types.INT64), u8 + types.Constant(7, types.UINT8),
            u8 + types.Constant(1.7, types.UINT8), u8 + types.Constant(0.1, types.FLOAT64),
            i16 + np.int16(3), u8 + np.uint8(2), u8 + np.bool_(True), u8 + np.float32(2),
            u8 + np.array(2, np.uint8), f32 + types.Constant(2, types.FLOAT),
            u8 + np.array([1, 2, 3, 4, 5, 6]), u8 + np.array([1, 2, 3, 4, 5, 6], np.uint8),
            u8 + np.array([1.5, 2, 3, 4, 5, 6]), u8 + [1, 2, 3, 4, 5, 6], f32 + (1.5, 2, 3, 4, 5, 6),
            u8 + np.array([[2]], np.uint8), u8 + types.Constant(1, shape=[6]),
            i16 + types.Constant([1, 2, 3, 4, 5, 6], types.UINT8), 2 ** i16, 7 // u8, 7.5 % f32,
            i16 & 6, 6 | i16, i16 ^ np.int8(-1), u8 < -1, u8 == 7, 1.0 / u8, u8 / 2)


def test_constants_equal_dali(tmp_path):
    """Python numbers are INT32 / FLOAT / BOOL constants (no weak types: uint8 + 10 is int32),
    types.Constant and numpy scalars carry their type, arrays and lists become constant tensors,
    floating constants reach the operator as float32."""
    b = typed_batches()
    inputs = [b[1], b[4], b[9], b[10]]
    ours = run_sluice(constants_graph, inputs)
    assert ours[0][0].dtype == np.int32 and ours[6][0].dtype == np.float64
    assert_same(ours, run_dali(constants_graph, inputs, tmp_path), "constants")


def uint64_constants_graph(fn, types, u64, i8):
    return (u64 + 1, u64 // 2, u64 + np.int8(1), u64 + np.uint64(5), u64 + True, u64 * 1.5,
            u64 + types.Constant(7, types.UINT64), u64 + types.Constant(7, types.INT64),
            types.Constant(5, types.UINT64) - u64, u64 + types.Constant(1.7, types.UINT64),
            u64 == -1, u64 < np.int64(-1), u64 > -1, -1 <= u64, u64 != np.int8(-1),
            u64 == np.uint64(7), i8 < np.uint64(1), i8 == types.Constant(3, types.UINT64),
            u64 >> np.uint64(65), u64 << 1, u64 & np.uint8(3), u64 % np.uint64(1000),
            u64 ** 3, u64 / 3, u64 + np.array([1, 2, 3, 4, 5, 6], np.uint64))


def test_uint64_constants_equal_dali(tmp_path):
    """uint64 with a Python int (int32) or another signed constant computes in int64 (wrapping),
    with unsigned constants in uint64; comparisons with signed values are by value."""
    b = typed_batches()
    inputs = [b[8], b[2]]
    ours = run_sluice(uint64_constants_graph, inputs)
    assert ours[0][0].dtype == np.int64 and ours[3][0].dtype == np.uint64
    assert_same(ours, run_dali(uint64_constants_graph, inputs, tmp_path), "uint64 constants")


def broadcast_graph(fn, types, a, b, c):
    return a + b, b * a, a - c, fn.cast(c, dtype=types.INT32) // b


@pytest.mark.parametrize("shapes", [
    [(2, 3), (3,), (1,)],
    [(2, 1), (1, 3), ()],
    [(2, 1, 3), (4, 1), (1, 1, 1)],
    [(5, 4), (5, 4), (4,)],
    [(0, 3), (1, 3), (3,)],
    [(1, 1, 1, 1, 1, 1, 2), (2,), (1,)],
])
def test_broadcasting_equals_dali(tmp_path, shapes):
    rng = np.random.default_rng(len(shapes[0]))
    inputs = []
    for k, s in enumerate(shapes):
        sample = [rng.integers(1, 9, s).astype(np.float32 if k != 1 else np.int16)
                  for _ in range(3)]
        inputs.append(sample)
    assert_same(run_sluice(broadcast_graph, inputs), run_dali(broadcast_graph, inputs, tmp_path))


def per_sample_broadcast_graph(fn, types, a, b):
    return a * b


def test_each_sample_broadcasts_on_its_own(tmp_path):
    a = [np.ones((2, 3), np.float32), np.full((4, 5), 2, np.float32)]
    b = [np.arange(3, dtype=np.float32), np.ones((1,), np.float32)]
    ours = run_sluice(per_sample_broadcast_graph, [a, b])
    assert [x.shape for x in ours[0]] == [(2, 3), (4, 5)]
    assert_same(ours, run_dali(per_sample_broadcast_graph, [a, b], tmp_path))


def layout_graph(fn, types, a, b):
    return a + b, -a, a * 2, fn.cast(b, dtype=types.FLOAT) - a


@pytest.mark.parametrize("layouts,shapes", [
    (["HW", "HW"], [(2, 3), (2, 3)]),
    (["HW", "W"], [(2, 3), (3,)]),
    (["W", "HW"], [(3,), (2, 3)]),
    ([None, "XY"], [(2, 3), (2, 3)]),
    (["C", None], [(3,), (2, 3)]),
    (["HWC", None], [(2, 3, 4), (4, 2, 3, 4)]),
])
def test_layouts_equal_dali(tmp_path, layouts, shapes):
    """The longest layout wins where the others are its suffixes, and only if it names every
    output dimension."""
    inputs = [[np.ones(s, np.float32)] * 2 for s in shapes]
    ours, our_layouts = run_sluice(layout_graph, inputs, layouts, with_layouts=True)
    ref, ref_layouts = run_dali(layout_graph, inputs, tmp_path, layouts, with_layouts=True)
    assert_same(ours, ref)
    assert our_layouts == ref_layouts


def refused(graph, inputs, tmp_path, layouts=None):
    """Runs `graph` on both; both must refuse it. Returns Sluice's message."""
    with pytest.raises(AssertionError, match="DALI failed"):
        run_dali(graph, inputs, tmp_path, layouts)
    with pytest.raises(Exception) as e:
        run_sluice(graph, inputs, layouts)
    return str(e.value)


def bool_add_graph(fn, types, a):
    return a + a


def bool_minus_graph(fn, types, a):
    return -a


def float_and_graph(fn, types, a):
    return a & a


def int_div_zero_graph(fn, types, a, b):
    return a // b


def int_mod_zero_graph(fn, types, a, b):
    return a % b


def broadcast_error_graph(fn, types, a, b):
    return a + b


def big_constant_graph(fn, types, a):
    return a + 2 ** 40


def uint8_constant_graph(fn, types, a):
    return a + types.Constant(300, types.UINT8)


def negative_uint64_constant_graph(fn, types, a):
    return a + types.Constant(-1, types.UINT64)


def huge_uint64_constant_graph(fn, types, a):
    return a + np.uint64(2 ** 64 - 1)


def test_refuses_what_dali_refuses(tmp_path):
    b = [np.array([True, False])] * 2
    f = [np.array([1.5, 2.0], np.float32)] * 2
    i = [np.array([7, -7], np.int32)] * 2
    z = [np.array([1, 0], np.int32)] * 2
    assert "cannot be booleans" in refused(bool_add_graph, [b], tmp_path)
    assert "cannot be a boolean" in refused(bool_minus_graph, [b], tmp_path)
    assert "must be of integral type" in refused(float_and_graph, [f], tmp_path)
    assert "Integer division by zero." in refused(int_div_zero_graph, [i, z], tmp_path)
    assert "Integer division by zero." in refused(int_mod_zero_graph, [i, z], tmp_path)
    assert "Can't broadcast shapes" in refused(
        broadcast_error_graph, [[np.ones((2, 3))] * 2, [np.ones((2,))] * 2], tmp_path)
    assert "out of range for int32" in refused(big_constant_graph, [i], tmp_path)
    assert "out of range for uint8" in refused(uint8_constant_graph, [i], tmp_path)
    assert "out of range for uint64" in refused(negative_uint64_constant_graph, [i], tmp_path)
    assert "above 2^63 - 1" in refused(huge_uint64_constant_graph, [i], tmp_path)
    assert "do not match" in refused(broadcast_error_graph, [[np.ones((2, 3))] * 2] * 2, tmp_path,
                                     ["HW", "XY"])


def test_integer_division_edges_are_defined():
    """INT_MIN // -1 wraps to INT_MIN and INT_MIN % -1 is 0 (DALI's CPU dies of SIGFPE)."""
    def graph(fn, types, a, b):
        return a // b, a % b, a // -1

    a = [np.array([-2 ** 31, 7], np.int32)]
    b = [np.array([-1, -1], np.int32)]
    div, mod, const = run_sluice(graph, [a, b])
    assert div[0].tolist() == [-2 ** 31, -7] and mod[0].tolist() == [0, 0]
    assert const[0].tolist() == [-2 ** 31, -7]


def test_float16_follows_dalis_gpu_promotion():
    """DALI computes float16 only on the GPU; Sluice also on the CPU, with DALI's GPU types:
    operands are rounded to float16 first, the result is float16 unless a wider float joins."""
    h = [np.array([2049, 1, -3.5], np.float16)] * 2

    def graph(fn, types, x):
        return x + 1, x + x, x * 1.5, fn.cast(x, dtype=types.INT32) + x, x < 2

    outs = run_sluice(graph, [h])
    assert [o[0].dtype for o in outs] == [np.float16, np.float16, np.float32, np.float16, np.bool_]
    assert outs[0][0].tolist() == [2048, 2, -2.5]
    assert outs[1][0].tolist() == [4096, 2, -7]
    assert outs[3][0].tolist() == [4096, 2, -7.5]  # int32 2048 + float16 2048 (2049 rounds)


def test_data_nodes_from_one_and_other_devices_need_a_gpu():
    @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def p():
        a = fn.external_source(lambda: [np.ones(3, np.float32)])
        return a + a.gpu()

    with pytest.raises(Exception):
        p().run()


@pytest.mark.gpu
def test_gpu_equals_cpu_bit_for_bit():
    def graph(device):
        u = fn.random.uniform(range=[-50, 300], shape=[6, 7], device=device, seed=3)
        f = fn.random.coin_flip(device=device, shape=[6, 7], seed=4)
        i = fn.cast(u, dtype=types.INT32, device=device)
        w = fn.cast(u, dtype=types.UINT64, device=device)
        return (u * f + 0.5, u // 7, u > 100, i // 7, i % 5, i & 12, i ** 2, -i, abs(u),
                u + np.arange(7, dtype=np.float32), fn.cast(u, dtype=types.UINT8) + i,
                fn.cast(u, dtype=types.FLOAT16) * 3, -w * w, w // 7, w <= -i, w == i, w / 3)

    gpu_equals_cpu_bit_for_bit(graph)
