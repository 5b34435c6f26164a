"""The ``@augmentation`` decorator."""

from sluice.auto_aug.core._augmentation import Augmentation


def augmentation(function=None, *, mag_range=None, randomly_negate=None, mag_to_param=None,
                 param_device=None, name=None, augmentation_cls=None):
    """Turns ``function(data, parameter, **extra)``, written with pipeline operators, into an
    augmentation for the automatic augmentation schemes.

    The augmentation is called with ``magnitude_bin`` and ``num_magnitude_bins`` instead of the
    parameter, which becomes ``mag_to_param(linspace(*mag_range, num_magnitude_bins)[bin])``
    (negated per sample at random with ``randomly_negate=True``).

    Args:
        function: the operation; the decorator may also be used with arguments only.
        mag_range: (low, high) of the magnitudes, or an np.ndarray of them; without it the
            function gets None as the parameter.
        randomly_negate: negate the magnitude of a random half of the samples.
        mag_to_param: magnitude -> parameter (numpy-convertible, the same shape and type for
            every magnitude: all of them are computed once, on the host).
        param_device: "cpu" (default), "gpu" or "auto" (the data's device): where the parameters
            live.
        name: the augmentation's name (the function's by default).
    """
    def decorate(f):
        return (augmentation_cls or Augmentation)(
            f, mag_range=mag_range, mag_to_param=mag_to_param, randomly_negate=randomly_negate,
            param_device=param_device, name=name)

    if function is None:
        return decorate
    if not callable(function):
        raise Exception(f"The `@augmentation` decorator was used to decorate the object that is "
                        f"not callable: {function}.")
    if isinstance(function, Augmentation):
        raise Exception(
            f"The `@augmentation` was applied to already decorated Augmentation. Please call "
            f"`{function.name}.augmentation` method to modify the augmentation setup or apply "
            f"the decorator to the underlying `{function.name}.op` directly.\n"
            f"Error in augmentation: {function}.")
    return decorate(function)
