"""Process-wide memory controls and build facts (DALI's ``nvidia.dali.backend``).

Pools are shared by all pipelines of the process. Environment variables with the ``SLUICE_``
prefix set the initial values: ``SLUICE_HOST_BUFFER_SHRINK_THRESHOLD`` (0.9),
``SLUICE_BUFFER_GROWTH_FACTOR``, ``SLUICE_HOST_BUFFER_GROWTH_FACTOR`` and
``SLUICE_DEVICE_BUFFER_GROWTH_FACTOR`` (1.0). A host buffer shrinks once 16 requests in a row
were below threshold x capacity, to the largest of them (not on every smaller batch). A pinned or
device buffer that grows again takes ``SLUICE_BUFFER_REGROWTH_FACTOR`` (1.25) times the request,
so that batches of varying size stop reaching the CUDA allocator after the first few.
"""

from sluice import _sluice

from sluice._sluice import (  # noqa: F401
    TensorCPU,
    TensorGPU,
    TensorListCPU,
    TensorListGPU,
    buffer_policy,
    built_with_cuda,
    built_with_nvjpeg,
    cuda_device_count,
    default_cpu_workers,
    memory_stats,
    preallocate_device_memory,
    preallocate_pinned_memory,
    release_unused_memory,
    set_buffer_growth_factor,
    set_device_buffer_growth_factor,
    set_device_memory_limit,
    set_host_buffer_growth_factor,
    set_host_buffer_shrink_threshold,
)

# DALI's spellings.
SetHostBufferShrinkThreshold = set_host_buffer_shrink_threshold
SetBufferGrowthFactor = set_buffer_growth_factor
SetHostBufferGrowthFactor = set_host_buffer_growth_factor
SetDeviceBufferGrowthFactor = set_device_buffer_growth_factor
ReleaseUnusedMemory = release_unused_memory


def PreallocateDeviceMemory(bytes, device_id=0):  # noqa: N802 - DALI's name
    _sluice.preallocate_device_memory(bytes, device_id)


def PreallocatePinnedMemory(bytes):  # noqa: N802 - DALI's name
    _sluice.preallocate_pinned_memory(bytes)
