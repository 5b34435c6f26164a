#pragma once
// Uploads small per-batch parameter arrays (per-sample descriptors) to device memory on a stream,
// through pinned staging, without allocating in steady state. CUDA builds only.
//
// Two staging pages alternate: a page is rewritten only after the copy issued from it two calls
// ago has completed (an event wait that normally returns at once). The returned device pointer
// is valid for work queued on the same stream until the call after next.
// Not thread-safe: one instance per operator.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "sluice/cuda/cuda_api.h"
#include "sluice/memory/buffer.h"

namespace sluice {

class ParamUpload {
 public:
  explicit ParamUpload(int device);
  void* upload(const void* data, size_t bytes, cuda::StreamHandle stream);

  // For kernels that stage their own descriptors: a pinned page of `bytes` and a device buffer
  // of `device_bytes` (default: the same), free to write now; call end() once the copy from the
  // page has been queued on `stream`.
  struct Pages {
    void* pinned;
    void* device;
  };
  Pages begin(size_t bytes, cuda::StreamHandle stream, size_t device_bytes = SIZE_MAX);
  void end(cuda::StreamHandle stream);

  template <typename T>
  T* upload(const std::vector<T>& v, cuda::StreamHandle stream) {
    return static_cast<T*>(upload(v.data(), v.size() * sizeof(T), stream));
  }

 private:
  struct Page {
    Buffer pinned{MemoryKind::kPinned};
    Buffer device;
    cuda::Event done;
    bool used = false;
  };
  int device_;
  Page pages_[2];
  int next_ = 0;
  Page* open_ = nullptr;
};

}  // namespace sluice
