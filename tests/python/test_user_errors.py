"""Mistakes a user makes first get messages that name the fix: a misspelled argument or operator,
gpu_normalize without CUDA, files skipped by on_error="skip", a bottleneck report asked too early
or on a small machine."""

import pytest

import sluice
from sluice import fn, ops


def test_a_misspelled_argument_gets_the_closest_name():
    with pytest.raises(sluice.InvalidArgumentError, match="has no argument 'siz': did you mean "
                       "'size'\\? Its arguments are: .*resize_x"):
        fn.resize(fn.random.uniform(), siz=3)
    with pytest.raises(sluice.InvalidArgumentError, match="has no argument 'bogus'; its arguments"):
        fn.resize(fn.random.uniform(), bogus=3)


def test_a_missing_operator_is_not_in_sluice_yet_and_points_to_the_list():
    with pytest.raises(AttributeError, match=r"fn.normalize is not in Sluice yet\. .*"
                       r"docs/OPERATORS.md"):
        fn.normalize
    with pytest.raises(AttributeError, match=r"Did you mean fn.readers.file\?"):
        fn.readers.fil
    with pytest.raises(AttributeError, match=r"ops.Normalize is not in Sluice yet"):
        ops.Normalize
    # Python's own probing of private names stays a plain AttributeError.
    assert not hasattr(fn, "__wrapped__") and not hasattr(fn.readers, "_x")
    assert fn.readers.file and ops.CoinFlip and fn.external_source
