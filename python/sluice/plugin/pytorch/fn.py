"""DALI's nvidia.dali.plugin.pytorch.fn: torch_python_function (see sluice._python_function)."""

from sluice._python_function import torch_python_function  # noqa: F401
