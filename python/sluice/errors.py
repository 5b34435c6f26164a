"""Exceptions raised by Sluice. Each names what failed: operator, sample, file."""

from sluice._sluice import (  # noqa: F401
    CancelledError,
    CudaError,
    DecodeError,
    InvalidArgumentError,
    OutOfMemoryError,
    SluiceError,
    SluiceIOError,
    SluiceNotImplementedError,
)
