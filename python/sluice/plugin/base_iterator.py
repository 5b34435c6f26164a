"""What the framework iterators share (DALI's ``nvidia.dali.plugin.base_iterator``): the last
batch policy and the checks of the iterators' arguments, with DALI's errors.

    from sluice.plugin.base_iterator import LastBatchPolicy
"""

import enum
import warnings


@enum.unique
class LastBatchPolicy(enum.Enum):
    """What the last batch of an epoch does when the data does not fill it (DALI's rules):
    FILL returns it full (padded with repeated or wrapped-around samples, per the reader's
    ``pad_last_batch``), DROP leaves it out, PARTIAL returns only the real samples."""

    FILL = 0
    DROP = 1
    PARTIAL = 2


def _fail(message):
    # DALI checks these with assert; raised explicitly so that `python -O` keeps them.
    raise AssertionError(message)


def check_iterator_args(pipelines, size, reader_name, auto_reset, fill_last_batch,
                        last_batch_padded, last_batch_policy):
    """DALI's checks of an iterator's arguments, in DALI's order and with its exceptions.
    Returns (the pipelines as a list, auto_reset as a bool, the last batch policy)."""
    if pipelines is None:
        _fail("Number of provided pipelines has to be at least 1")
    pipes = list(pipelines) if isinstance(pipelines, (list, tuple)) else [pipelines]
    if any(p.max_batch_size != pipes[0].max_batch_size for p in pipes):
        _fail("All pipelines should have the same batch size set")
    size = int(size)
    if auto_reset is False or auto_reset is None or auto_reset == "no":
        auto_reset = False
    elif auto_reset is True or auto_reset == "yes":
        auto_reset = True
    else:
        raise ValueError(f"Unsupported value for `auto_reset` {auto_reset}")
    if fill_last_batch is not None:
        warnings.warn("Please do not use `fill_last_batch` and use `last_batch_policy` instead.",
                      Warning, stacklevel=3)
        last_batch_policy = LastBatchPolicy.FILL if fill_last_batch else LastBatchPolicy.PARTIAL
    elif type(last_batch_policy) is not LastBatchPolicy:
        raise ValueError("Wrong type for `last_batch_policy`. "
                         f"Expected {LastBatchPolicy}, got {type(last_batch_policy)}")
    if size == 0:
        _fail("Size cannot be 0")
    if size < 0 and len(pipes) > 1 and not reader_name:
        _fail("Negative size is supported only for a single pipeline")
    if reader_name and size >= 0:
        _fail("When reader_name is provided, size should not be set")
    if reader_name and last_batch_padded:
        _fail("When reader_name is provided, last_batch_padded should not be set")
    return pipes, auto_reset, last_batch_policy
