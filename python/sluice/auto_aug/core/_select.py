"""``select``: per sample, one augmentation of a list, chosen by a batch of indices."""


def _select(lo, hi, ops, op_idx, args, kwargs):
    # A binary search of conditionals: log2(len(ops)) splits of the batch, each sample reaching
    # the one augmentation its index names.
    if lo == hi:
        return ops[lo](*args, **kwargs)
    mid = (lo + hi) // 2
    if op_idx <= mid:
        out = _select(lo, mid, ops, op_idx, args, kwargs)
    else:
        out = _select(mid + 1, hi, ops, op_idx, args, kwargs)
    return out


def select(ops, selected_op_idx, *op_args, **op_kwargs):
    """Applies ``ops[selected_op_idx]`` to each sample, as if by calling
    ``ops[selected_op_idx](*op_args, **op_kwargs)``.

    `selected_op_idx` is a batch of indices in ``[0, len(ops) - 1]``; DataNodes among the
    arguments are split along with the samples.
    """
    return _select(0, len(ops) - 1, ops, selected_op_idx, op_args, op_kwargs)
