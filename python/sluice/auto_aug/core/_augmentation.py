"""The Augmentation wrapper: an operation whose parameter comes from a magnitude bin.

A call with ``magnitude_bin=b`` and ``num_magnitude_bins=n`` gives the operation the parameter
``mag_to_param(m)``, where ``m = linspace(*mag_range, n)[b]``, negated for the samples whose
random sign is 1 when the augmentation is declared with ``randomly_negate=True``. The parameters
of all bins (and signs) are computed on the host once and become a constant; each sample picks
its own by indexing it.
"""

import warnings

import numpy as np

from sluice import fn, types
from sluice.auto_aug.core._args import (MissingArgException, accepted_kwargs, missing_kwargs,
                                        num_positional_args)
from sluice.data_node import DataNode


class _Unset:
    """The default of ``Augmentation.augmentation``'s parameters: keep the current value."""


class _SignedMagnitudeBin:
    """A magnitude bin (int or batch) with a batch of random signs (0: keep, 1: negate) and the
    index ``2 * bin + sign`` into the table of signed magnitudes."""

    def __init__(self, magnitude_bin, random_sign, signed_magnitude_idx):
        self._bin = magnitude_bin
        self._random_sign = random_sign
        self._signed_magnitude_idx = signed_magnitude_idx

    def __getitem__(self, idx):
        """The bin of stage `idx`, where bins and signs were drawn for several stages at once."""
        b = self._bin if isinstance(self._bin, int) else self._bin[idx]
        return type(self)(b, self._random_sign[idx], self._signed_magnitude_idx[idx])

    @classmethod
    def create_from_bin(cls, magnitude_bin, random_sign=None, seed=None, shape=None):
        if not isinstance(magnitude_bin, (int, DataNode)):
            raise Exception(
                f"The `magnitude_bin` must be an int or _DataNode (output of DALI op or "
                f"`types.Constant`) representing batch of ints from "
                f"`[0..num_magnitude_bins-1]` range. Got {magnitude_bin} instead.")
        if random_sign is not None and (seed is not None or shape is not None):
            raise Exception(
                "The `random_sign` cannot be specified together with neither `seed` nor `shape`.")
        if random_sign is None:
            random_sign = fn.random.uniform(values=[0, 1], dtype=types.INT32, seed=seed,
                                            shape=shape)
        # Computed here, where it may still be outside every conditional branch.
        return cls(magnitude_bin, random_sign, 2 * magnitude_bin + random_sign)

    @staticmethod
    def _remap_to_signed_magnitudes(magnitudes):
        """[m0, -m0, m1, -m1, ...]: the table that ``2 * bin + sign`` indexes."""
        return np.array([v for m in magnitudes for v in (m, -m)])

    @property
    def bin(self):
        return self._bin

    @property
    def random_sign(self):
        return self._random_sign

    @property
    def signed_magnitude_idx(self):
        return self._signed_magnitude_idx


def signed_bin(magnitude_bin, random_sign=None, seed=None, shape=None):
    """`magnitude_bin` (an int or a batch of ints in ``[0, num_magnitude_bins - 1]``) with a random
    sign per sample, for augmentations declared with ``randomly_negate=True``.

    Drawing the signs before the batch is split among augmentations (as the schemes of this
    package do) draws them once for the whole batch. `random_sign`, a batch of 0 / 1, gives the
    signs instead (1 negates); `seed` and `shape` go to the random operator otherwise.
    """
    return _SignedMagnitudeBin.create_from_bin(magnitude_bin, random_sign, seed, shape)


class Augmentation:
    """An operation usable by the automatic augmentations; made by the ``@augmentation``
    decorator (see there for the parameters)."""

    def __init__(self, op, mag_range=None, randomly_negate=None, mag_to_param=None,
                 param_device=None, name=None):
        self._op = op
        self._mag_range = mag_range
        self._randomly_negate = randomly_negate
        self._mag_to_param = mag_to_param
        self._param_device = param_device
        self._name = name
        if num_positional_args(op) <= 1:
            raise Exception(
                f"The {op} accepts {num_positional_args(op)} positional argument(s), but the "
                f"functions decorated with `@augmentation` must accept at least two positional "
                f"arguments: the samples and parameters.\nError in: {self}.")

    def __repr__(self):
        config = [f"{k}={v!r}" for k, v in self._get_config().items() if v is not None]
        return f"Augmentation({', '.join([repr(self.op)] + config)})"

    def __call__(self, data, *, magnitude_bin=None, num_magnitude_bins=None, **kwargs):
        """Applies the operation to the batch `data` with the parameter of `magnitude_bin` (an
        int, a batch of ints or a ``signed_bin``) out of `num_magnitude_bins`; the entries of
        `kwargs` that the operation's function names are passed on to it."""
        param = self._get_param(magnitude_bin, num_magnitude_bins, self._infer_param_device(data))
        missing = missing_kwargs(self.op, kwargs, 2)
        if missing:
            raise MissingArgException(
                f"The augmentation `{self.name}` requires following named argument(s) which "
                f"were not provided to the call: {', '.join(missing)}. Please make sure to pass "
                f"the required arguments when calling the augmentation.",
                augmentation=self, missing_args=missing)
        return self.op(data, param, **accepted_kwargs(self.op, kwargs, 2))

    @property
    def op(self):
        return self._op

    @property
    def mag_range(self):
        return self._mag_range

    @property
    def mag_to_param(self):
        return self._mag_to_param or np.array

    @property
    def randomly_negate(self):
        return bool(self._randomly_negate)

    @property
    def param_device(self):
        return self._param_device or "cpu"

    @property
    def name(self):
        return self._name or self.op.__name__

    def augmentation(self, mag_range=_Unset, randomly_negate=_Unset, mag_to_param=_Unset,
                     param_device=_Unset, name=_Unset, augmentation_cls=None):
        """A copy of this augmentation (same operation) with the given parameters changed."""
        config = self._get_config()
        for key, value in dict(mag_range=mag_range, randomly_negate=randomly_negate,
                               mag_to_param=mag_to_param, param_device=param_device,
                               name=name).items():
            if value is not _Unset:
                config[key] = value
        return (augmentation_cls or type(self))(self.op, **config)

    def _get_config(self):
        return {"mag_range": self._mag_range, "mag_to_param": self._mag_to_param,
                "randomly_negate": self._randomly_negate, "param_device": self._param_device,
                "name": self._name}

    def _infer_param_device(self, data):
        if self.param_device != "auto":
            return self.param_device
        return data.device or "cpu"

    def _map_mag_to_param(self, magnitude):
        param = self.mag_to_param(magnitude)
        if _contains_data_node(param):
            raise Exception(
                f"The `mag_to_param` callback of `{self.name}` augmentation returned `DataNode`, "
                f"i.e. an output of a pipeline operator, which is not supported there: it must "
                f"return a parameter that is `np.ndarray` or convertible to one, so that the "
                f"parameters of all magnitudes are computed once.\n\n"
                f"Error in augmentation: {self}.")
        return np.array(param)

    def _map_mags_to_params(self, magnitudes):
        params = [self._map_mag_to_param(m) for m in magnitudes]
        for param, m in zip(params[1:], magnitudes[1:]):
            if param.shape != params[0].shape or param.dtype != params[0].dtype:
                raise Exception(
                    f"The `mag_to_param` callback of `{self.name}` augmentation must return the "
                    f"arrays of the same type and shape for different magnitudes. Got param of "
                    f"shape {params[0].shape} and {params[0].dtype} type for magnitude "
                    f"{magnitudes[0]}, but for magnitude {m} the returned array has shape "
                    f"{param.shape} and type {param.dtype}.\n\nError in augmentation: {self}.")
        return np.array(params)

    def _get_magnitudes(self, num_magnitude_bins):
        if self.mag_range is None:
            return None
        if isinstance(self.mag_range, np.ndarray):
            if num_magnitude_bins is not None and len(self.mag_range) != num_magnitude_bins:
                raise Exception(
                    f"The augmentation `{self.name}` has nd.array of length "
                    f"{len(self.mag_range)} specified as the `mag_range`. However, the "
                    f"`num_magnitude_bins` passed to the call is {num_magnitude_bins}.")
            return self.mag_range
        if num_magnitude_bins is None:
            raise Exception(
                f"The `num_magnitude_bins` argument is missing in the call of the `{self.name}` "
                f"augmentation. Please specify the `num_magnitude_bins` along with the samples "
                f"and magnitude_bin.\nError in augmentation: {self}.")
        if not hasattr(self.mag_range, "__len__") or len(self.mag_range) != 2:
            raise Exception(
                f"The `mag_range` must be a tuple of (low, high) ends of magnitude range or "
                f"nd.array of explicitly defined magnitudes. Got `{self.mag_range}` for "
                f"augmentation `{self.name}`.")
        lo, hi = self.mag_range
        return np.linspace(lo, hi, num_magnitude_bins, dtype=np.float32)

    def _get_param(self, magnitude_bin, num_magnitude_bins, device):
        magnitudes = self._get_magnitudes(num_magnitude_bins)
        if magnitudes is None:
            return None
        if magnitude_bin is None:
            raise Exception(
                f"The augmentation `{self.name}` has `mag_range` specified, so when called, it "
                f"requires `magnitude_bin` parameter to select the magnitude from the "
                f"`mag_range`.\nError in augmentation: {self}.")
        if not self.randomly_negate:
            b = magnitude_bin.bin if isinstance(magnitude_bin, _SignedMagnitudeBin) \
                else magnitude_bin
            if isinstance(b, int):
                return types.Constant(self._map_mag_to_param(magnitudes[b]), device=device)
            return types.Constant(self._map_mags_to_params(magnitudes), device=device)[b]
        if not isinstance(magnitude_bin, _SignedMagnitudeBin):
            warnings.warn(
                f"The augmentation `{self.name}` was declared with `random_negate=True`, but "
                f"unsigned `magnitude_bin` was passed to the augmentation call. The augmentation "
                f"will randomly negate the magnitudes manually. However, for better performance, "
                f"if you conditionally split batch between multiple augmentations, it is better "
                f"to call `signed_magnitude_bin = signed_bin(magnitude_bin)` before the split and "
                f"pass the signed bins instead.", Warning)
            magnitude_bin = signed_bin(magnitude_bin)
        if isinstance(magnitude_bin.bin, int):
            magnitudes, idx = [magnitudes[magnitude_bin.bin]], magnitude_bin.random_sign
        else:
            idx = magnitude_bin.signed_magnitude_idx
        signed = _SignedMagnitudeBin._remap_to_signed_magnitudes(magnitudes)
        return types.Constant(self._map_mags_to_params(signed), device=device)[idx]


def _contains_data_node(obj):
    if isinstance(obj, (tuple, list)):
        return any(_contains_data_node(x) for x in obj)
    return isinstance(obj, DataNode)
