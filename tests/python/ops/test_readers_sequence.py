"""readers.sequence against NVIDIA DALI 2.4: frame folders made with PIL, sequence_length, step,
stride, image_type, sharding, and the FHWC uint8 output."""

import numpy as np
import pytest

from reader_reference import assert_errors_as_dali, read, read_dali, read_dali_all

PIL = pytest.importorskip("PIL.Image")


def make_streams(root, counts, fmt="png", size=(6, 8)):
    """Folders of frames with random pixels; a hidden folder, a text file and a frame directly
    in the root that the reader must ignore."""
    rng = np.random.default_rng(5)
    for s, n in counts.items():
        (root / s).mkdir(parents=True)
        for i in range(n):
            pixels = rng.integers(0, 256, (*size, 3), dtype=np.uint8)
            PIL.fromarray(pixels).save(root / s / f"{i:03d}.{fmt}")
    (root / "a" / "notes.txt").write_text("not a frame")
    PIL.fromarray(np.zeros((*size, 3), np.uint8)).save(root / "top.png")


def assert_same(ours, ref, what, atol=0):
    assert ref["error"] is None, ref["error"]
    assert ours["error"] is None, ours["error"]
    assert ours["layouts"] == ref["layouts"] == ["FHWC"]
    assert ours["meta"]["epoch_size"] == ref["meta"]["epoch_size"]
    for it, ((o,), (r,)) in enumerate(zip(ours["outputs"], ref["outputs"])):
        assert len(o) == len(r)
        for i, (a, b) in enumerate(zip(o, r)):
            assert a.dtype == b.dtype == np.uint8 and a.shape == b.shape, (what, it, i)
            diff = np.abs(a.astype(int) - b.astype(int)).max(initial=0)
            assert diff <= atol, f"{what} iteration {it} sample {i}: differs by {diff}"


def test_sequences_equal_dali(tmp_path):
    root = tmp_path / "frames"
    make_streams(root, {"b": 7, "a": 5, ".hidden": 4, "c": 1})
    (root / "a" / "004.png").rename(root / "a" / "004.PNG")  # extensions match in any case
    base = {"file_root": str(root)}
    runs = [
        ("sequence", {**base, "sequence_length": 2}, 11, 1),
        ("sequence", {**base, "sequence_length": 3, "step": 2, "stride": 2}, 2, 2),
        ("sequence", {**base, "sequence_length": 1, "read_ahead": True}, 6, 2),
        ("sequence", {**base, "sequence_length": 3, "image_type": "types.GRAY"}, 3, 1),
        ("sequence", {**base, "sequence_length": 2, "image_type": "types.BGR"}, 3, 1),
        ("sequence", {**base, "sequence_length": 2, "num_shards": 2, "shard_id": 1,
                      "pad_last_batch": True}, 3, 2),
    ]
    for run, ref in zip(runs, read_dali_all(runs, tmp_path)):
        # Grey from colour is the CPU decoders' (Pillow's formula): within 1 of DALI's.
        atol = 1 if run[1].get("image_type") == "types.GRAY" else 0
        assert_same(read(*run[:3], iterations=run[3]), ref, str(run[1]), atol)
    # Streams a (5 frames) then b (7): 4 + 6 sequences of 2; their first frames in order.
    first = read("sequence", {**base, "sequence_length": 2}, 10)["outputs"][0][0]
    frame = np.asarray(PIL.open(root / "b" / "000.png"))
    np.testing.assert_array_equal(first[4][0], frame)


def test_jpeg_frames_equal_dali(tmp_path):
    root = tmp_path / "frames"
    make_streams(root, {"a": 3, "b": 2}, fmt="jpg", size=(16, 24))
    kwargs = {"file_root": str(root), "sequence_length": 2}
    assert_same(read("sequence", kwargs, 3), read_dali("sequence", kwargs, 3, tmp_path), "jpeg")


def test_errors_as_dali(tmp_path):
    root = tmp_path / "frames"
    make_streams(root, {"a": 3})
    cases = [
        ({"file_root": str(root), "sequence_length": 2, "image_type": "types.YCbCr"},
         "Format not supported. Only RGB, BGR, GRAY or ANY_DATA are supported on this operator"),
        ({"file_root": str(tmp_path / "none"), "sequence_length": 2},
         f"Glob for pattern: \"{tmp_path}/none/*/*\" failed. Verify the file_root argument"),
        ({"file_root": str(root), "sequence_length": 0}, "Sequence length must be positive"),
    ]
    assert_errors_as_dali("sequence", cases, 1, tmp_path)


def test_frames_of_different_sizes_and_corrupt_frames_name_the_file(tmp_path):
    root = tmp_path / "frames"
    make_streams(root, {"a": 2})
    PIL.fromarray(np.zeros((5, 5, 3), np.uint8)).save(root / "a" / "002.png")
    ours = read("sequence", {"file_root": str(root), "sequence_length": 3}, 1)
    assert "frames do not match in dimensions" in ours["error"][1]
    assert "002.png" in ours["error"][1]
    (root / "a" / "002.png").write_bytes((root / "a" / "001.png").read_bytes()[:40])
    ours = read("sequence", {"file_root": str(root), "sequence_length": 3}, 1)
    assert ours["error"] is not None and "002.png" in ours["error"][1], ours["error"]


def test_shuffled_epochs_hold_every_sequence_once(tmp_path):
    """DALI's random_shuffle draws from a buffer (no per-epoch guarantee): Sluice's own rule."""
    root = tmp_path / "frames"
    make_streams(root, {"a": 4, "b": 3})
    kwargs = {"file_root": str(root), "sequence_length": 1, "random_shuffle": True}
    plain = read("sequence", {**kwargs, "random_shuffle": False}, 7)["outputs"][0][0]
    keys = sorted(a.tobytes() for a in plain)
    shuffled = read("sequence", kwargs, 7, iterations=3)["outputs"]
    epochs = [[a.tobytes() for a in batch[0]] for batch in shuffled]
    for e in epochs:
        assert sorted(e) == keys
    assert epochs[0] != epochs[1] or epochs[1] != epochs[2]
