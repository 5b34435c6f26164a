"""What the three schemes share: the translation augmentations of a suite and ``select`` with a
helpful message for a missing image shape."""

from sluice.auto_aug.core._args import MissingArgException
from sluice.auto_aug.core._select import select


def _height_width(value):
    if isinstance(value, (tuple, list)):
        height, width = value
        return height, width
    return value, value


def _max_translation(use_shape, max_translate_abs, max_translate_rel, default_abs, default_rel):
    """(height, width) of the largest shift: relative to the image with `use_shape`, in pixels
    without."""
    if not isinstance(use_shape, bool):
        raise Exception(f"The `use_shape` is a flag that should be set to either True or False, "
                        f"got {use_shape}.")
    if use_shape:
        if max_translate_abs is not None:
            raise Exception("The argument `max_translate_abs` cannot be used with image shapes. "
                            "You may use `max_translate_rel` instead.")
        return _height_width(default_rel if max_translate_rel is None else max_translate_rel)
    if max_translate_rel is not None:
        raise Exception("The argument `max_translate_rel` cannot be used without image shapes. "
                        "You may use `max_translate_abs` instead.")
    return _height_width(default_abs if max_translate_abs is None else max_translate_abs)


def get_translations(use_shape, default_translate_abs, default_translate_rel,
                     max_translate_abs=None, max_translate_rel=None):
    """[translate_x, translate_y] with the magnitude ranges of the arguments."""
    from sluice.auto_aug import augmentations as a

    height, width = _max_translation(use_shape, max_translate_abs, max_translate_rel,
                                     default_translate_abs, default_translate_rel)
    tx, ty = (a.translate_x, a.translate_y) if use_shape else (a.translate_x_no_shape,
                                                               a.translate_y_no_shape)
    return [tx.augmentation((0, width), True), ty.augmentation((0, height), True)]


def pretty_select(augmentations, aug_ids, op_kwargs, auto_aug_name, ref_suite_name):
    from sluice.auto_aug import augmentations as a

    try:
        return select(augmentations, aug_ids, **op_kwargs)
    except MissingArgException as e:
        if e.missing_args != ["shape"] or e.augmentation.op not in (a.translate_x.op,
                                                                    a.translate_y.op):
            raise
        raise Exception(
            f"The augmentation `{e.augmentation.name}` requires `shape` argument that describes "
            f"image shape (in HWC layout). Please provide it as `shape` argument to "
            f"`{auto_aug_name}` call. You can get the image shape from encoded images with "
            f"`fn.peek_image_shape`. Alternatively, you can use "
            f"`translate_x_no_shape`/`translate_y_no_shape` that does not rely on image shape, "
            f"but uses offset from fixed range: for reference see `{ref_suite_name}` and its "
            f"`use_shape` argument. ") from None
