"""The augmentations of AutoAugment's ImageNet policy, RandAugment and TrivialAugmentWide,
written with Sluice's operators (DALI's nvidia.dali.auto_aug.augmentations: the same names,
magnitude ranges, parameters and arithmetic).

Each is an ``Augmentation`` (see ``core.augmentation``): called with a batch, ``magnitude_bin``
and ``num_magnitude_bins``, it computes its parameter from the bin. The ranges here are
examples; a suite adjusts them, e.g. ``shear_x.augmentation(mag_range=(0, 0.5))``. The
augmentations take UINT8 images (HWC); the colour ones also videos (FHWC).
"""

import numpy as np

from sluice import fn, types
from sluice.auto_aug.core import augmentation


def warp_x_param(magnitude):
    return [magnitude, 0]


def warp_y_param(magnitude):
    return [0, magnitude]


def _warp(data, matrix, fill_value, interp_type):
    return fn.warp_affine(data, matrix=matrix, fill_value=fill_value, interp_type=interp_type,
                          inverse_map=False)


@augmentation(mag_range=(0, 0.3), randomly_negate=True, mag_to_param=warp_x_param)
def shear_x(data, shear, fill_value=128, interp_type=None):
    return _warp(data, fn.transforms.shear(shear=shear), fill_value, interp_type)


@augmentation(mag_range=(0, 0.3), randomly_negate=True, mag_to_param=warp_y_param)
def shear_y(data, shear, fill_value=128, interp_type=None):
    return _warp(data, fn.transforms.shear(shear=shear), fill_value, interp_type)


@augmentation(mag_range=(0.0, 1.0), randomly_negate=True, mag_to_param=warp_x_param)
def translate_x(data, rel_offset, shape, fill_value=128, interp_type=None):
    """Shifts by a fraction of the width; `shape` is the image's (H, W, ...) shape."""
    offset = rel_offset * shape[1]
    return _warp(data, fn.transforms.translation(offset=offset), fill_value, interp_type)


@augmentation(mag_range=(0, 250), randomly_negate=True, mag_to_param=warp_x_param,
              name="translate_x")
def translate_x_no_shape(data, offset, fill_value=128, interp_type=None):
    return _warp(data, fn.transforms.translation(offset=offset), fill_value, interp_type)


@augmentation(mag_range=(0.0, 1.0), randomly_negate=True, mag_to_param=warp_y_param)
def translate_y(data, rel_offset, shape, fill_value=128, interp_type=None):
    """Shifts by a fraction of the height; `shape` is the image's (H, W, ...) shape."""
    offset = rel_offset * shape[0]
    return _warp(data, fn.transforms.translation(offset=offset), fill_value, interp_type)


@augmentation(mag_range=(0, 250), randomly_negate=True, mag_to_param=warp_y_param,
              name="translate_y")
def translate_y_no_shape(data, offset, fill_value=128, interp_type=None):
    return _warp(data, fn.transforms.translation(offset=offset), fill_value, interp_type)


@augmentation(mag_range=(0, 30), randomly_negate=True)
def rotate(data, angle, fill_value=128, interp_type=None, rotate_keep_size=True):
    return fn.rotate(data, angle=angle, fill_value=fill_value, interp_type=interp_type,
                     keep_size=rotate_keep_size)


def _one(magnitude):
    # 1 of the magnitude's type: float32 magnitudes stay float32 under numpy 1's promotion too,
    # giving DALI's (numpy 2's) parameters.
    return np.asarray(magnitude).dtype.type(1)


def shift_enhance_range(magnitude):
    """The enhance operations (brightness, contrast, color, sharpness) are neutral at 1 and
    stronger the further from it: a magnitude in [0, 1], randomly negated, maps to 1 +
    magnitude."""
    return _one(magnitude) + magnitude


@augmentation(mag_range=(0, 0.9), randomly_negate=True, mag_to_param=shift_enhance_range)
def brightness(data, parameter):
    return fn.brightness(data, brightness=parameter)


@augmentation(mag_range=(0, 0.9), randomly_negate=True, mag_to_param=shift_enhance_range)
def contrast(data, parameter):
    """PIL's contrast enhancement: the centre is the mean of the image's luma (channel weights
    0.299, 0.587, 0.114)."""
    if data.device == "gpu":  # Sluice's GPU arithmetic takes its operands on the GPU
        parameter = parameter.gpu()
    mean = fn.reductions.mean(data, axis_names="HW", keep_dims=True)
    rgb_weights = types.Constant(np.array([0.299, 0.587, 0.114], dtype=np.float32),
                                 device=data.device)
    center = fn.reductions.sum(mean * rgb_weights, axis_names="C", keep_dims=True)
    # Arithmetic rather than fn.contrast(contrast_center=...): for GPU data the centre is on
    # the GPU, which an argument cannot be.
    return fn.cast_like(center + (data - center) * parameter, data)


@augmentation(mag_range=(0, 0.9), randomly_negate=True, mag_to_param=shift_enhance_range)
def color(data, parameter):
    return fn.saturation(data, saturation=parameter)


def sharpness_kernel(magnitude):
    """The 3x3 filter of a magnitude in [-1, 1]: the identity moved away from PIL's smoothing
    filter."""
    blur = np.array([[1, 1, 1], [1, 5, 1], [1, 1, 1]], dtype=np.float32) / 13
    ident = np.array([[0, 0, 0], [0, 1, 0], [0, 0, 0]], dtype=np.float32)
    return -magnitude * blur + (_one(magnitude) + magnitude) * ident


def sharpness_kernel_shifted(magnitude):
    """sharpness_kernel of a magnitude in [0, 2]."""
    return sharpness_kernel(magnitude - _one(magnitude))


@augmentation(mag_range=(0, 0.9), randomly_negate=True, mag_to_param=sharpness_kernel,
              param_device="auto")
def sharpness(data, kernel):
    """PIL's ImageEnhance.Sharpness except at the 1-pixel border, which PIL copies from the
    input."""
    return fn.experimental.filter(data, kernel)


def poster_mask_uint8(magnitude):
    """The mask keeping the `magnitude` (rounded, in [1, 8]) high bits; 0 becomes 1, as the
    implementations the RandAugment paper refers to, so that no image goes blank."""
    bits = int(np.clip(np.round(magnitude), 1, 8))
    return np.array(np.uint8(255) ^ np.uint8(2 ** (8 - bits) - 1), dtype=np.uint8)


@augmentation(mag_range=(0, 4), mag_to_param=poster_mask_uint8, param_device="auto")
def posterize(data, mask):
    return data & mask


@augmentation(mag_range=(256, 0), param_device="auto")
def solarize(data, threshold):
    """Inverts the values at or above `threshold`."""
    sample_inv = types.Constant(255, dtype=types.UINT8) - data
    mask_unchanged = data < threshold
    mask_inverted = mask_unchanged ^ True
    return mask_unchanged * data + mask_inverted * sample_inv


def solarize_add_shift(shift):
    if shift >= 128:
        raise Exception("The solarize_add augmentation accepts shifts from 0 to 128")
    return np.uint8(shift)


@augmentation(mag_range=(0, 110), param_device="auto", mag_to_param=solarize_add_shift)
def solarize_add(data, shift):
    """Adds `shift` to the values below 128."""
    mask_shifted = data < types.Constant(128, dtype=types.UINT8)
    mask_id = mask_shifted ^ True
    sample_shifted = data + shift
    return mask_shifted * sample_shifted + mask_id * data


@augmentation
def invert(data, _):
    return types.Constant(255, dtype=types.UINT8) - data


@augmentation
def equalize(data, _):
    """Per-channel histogram equalization, OpenCV's formula (PIL's differs slightly in how the
    cumulative histogram becomes the table)."""
    return fn.equalize(data)


@augmentation
def auto_contrast(data, _):
    """Stretches each channel to [0, 255]; channels of one value stay as they are."""
    lo = fn.reductions.min(data, axis_names="HW", keep_dims=True)
    hi = fn.reductions.max(data, axis_names="HW", keep_dims=True)
    diff = hi - lo
    mask_scale = diff > 0
    mask_id = mask_scale ^ True
    # 255 / diff where diff > 0, else 255 / 255.
    div_by = diff * mask_scale + types.Constant(255, dtype=types.UINT8) * mask_id
    scale = 255 / div_by
    scaled = (data - lo * mask_scale) * scale
    return fn.cast_like(scaled, data)


@augmentation
def identity(data, _):
    return data
