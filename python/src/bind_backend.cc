// sluice.backend: process-wide memory controls and build information.

#include <nanobind/stl/string.h>

#include "bindings.h"
#include "sluice/exec/executor.h"
#include "sluice/memory/buffer_policy.h"
#include "sluice/memory/memory_resource.h"

namespace sluice::python {
namespace {

nb::dict stats_dict(const MemoryStats& s) {
  nb::dict d;
  d["allocated"] = s.allocated;
  d["peak_allocated"] = s.peak_allocated;
  d["reserved"] = s.reserved;
  d["peak_reserved"] = s.peak_reserved;
  d["allocations"] = s.allocations;
  d["upstream_allocations"] = s.upstream_allocations;
  d["limit"] = s.limit;
  return d;
}

}  // namespace

void register_backend(nb::module_& m) {
  m.def("set_host_buffer_shrink_threshold", &set_host_buffer_shrink_threshold);
  m.def("set_buffer_growth_factor", &set_buffer_growth_factor);
  m.def("set_host_buffer_growth_factor", &set_host_buffer_growth_factor);
  m.def("set_device_buffer_growth_factor", &set_device_buffer_growth_factor);
  m.def("buffer_policy", [] {
    BufferPolicy p = buffer_policy();
    nb::dict d;
    d["host_shrink_threshold"] = p.host_shrink_threshold;
    d["host_growth_factor"] = p.host_growth_factor;
    d["device_growth_factor"] = p.device_growth_factor;
    d["regrowth_factor"] = p.regrowth_factor;
    return d;
  });
  m.def(
      "preallocate_device_memory",
      [](size_t bytes, int device) {
        nb::gil_scoped_release nogil;
        preallocate_device_memory(bytes, device);
      },
      nb::arg("bytes"), nb::arg("device_id") = 0);
  m.def("set_device_memory_limit", &set_device_memory_limit, nb::arg("bytes"),
        nb::arg("device_id") = 0);
  m.def("preallocate_pinned_memory", [](size_t bytes) {
    nb::gil_scoped_release nogil;
    preallocate_pinned_memory(bytes);
  });
  m.def("release_unused_memory", [] {
    nb::gil_scoped_release nogil;
    release_unused_memory();
  });
  m.def("memory_stats", [] {
    nb::dict d;
    d["host"] = stats_dict(host_memory().stats());
    if (cuda::device_count() > 0) {
      d["pinned"] = stats_dict(pinned_memory().stats());
      nb::dict dev;
      for (int i = 0; i < cuda::device_count(); ++i)
        dev[nb::int_(i)] = stats_dict(device_memory(i).stats());
      d["device"] = dev;
    }
    return d;
  });
  // How many iterations a pipelined CPU stage runs at once by default (the tools' advice).
  m.def("default_cpu_workers", &Executor::default_cpu_workers, nb::arg("num_threads"),
        nb::arg("prefetch_queue_depth"));
  m.def("cuda_device_count", &cuda::device_count);
  m.def("built_with_cuda", &cuda::built_with_cuda);
  m.def("built_with_nvjpeg", [] {
#if SLUICE_HAS_NVJPEG
    return true;
#else
    return false;
#endif
  });
}

}  // namespace sluice::python
