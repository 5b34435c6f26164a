#pragma once
// A CUDA context of its own on a device, beside the primary context that the runtime API (and
// torch) use. GPU builds only: include from .cu and *_gpu.cc files, or nvjpeg/.
//
// Note [Contexts of their own]
// The driver serialises some work of one context on a lock: nvJPEG's hardware submissions on
// one thread fell from 15-19k to 4.5-4.9k images/s while 16 other threads of the process made
// small CUDA calls in the same context, and kept 15-16k when the submitting thread had a context
// of its own (bench/RESULTS.md section 3, seventeenth session). A green context did not help:
// it shares the lock. The price:
// - a context's kernels and engines cannot reach another context's memory, so results cross by
//   copy_to_primary();
// - contexts time-slice the GPU's compute engines, so a context of its own suits work that
//   keeps them idle, like the hardware JPEG decoder's;
// - each context holds device memory of its own (tens of MB, more with kernels loaded).
// The driver API is reached through the runtime's entry points, so the library does not link
// libcuda: a machine without a driver still loads it.

#include <cstddef>

#include "sluice/cuda/cuda_api.h"

namespace sluice::cuda {

class OwnContext {
 public:
  OwnContext() = default;  // none: Scope changes nothing
  explicit OwnContext(int device);
  ~OwnContext();
  OwnContext(OwnContext&& o) noexcept;
  OwnContext& operator=(OwnContext&& o) noexcept;
  explicit operator bool() const { return ctx_ != nullptr; }

  // Makes the context current on the calling thread for the scope's life; runtime API calls
  // (cudaMalloc, Stream, Event) then act in it.
  class Scope {
   public:
    explicit Scope(const OwnContext& c);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    bool pushed_ = false;
  };

  // Queues a copy of `bytes` from `src` (this context's memory) to `dst` (the device's primary
  // context's memory) on `stream`.
  void copy_to_primary(void* dst, const void* src, size_t bytes, StreamHandle stream) const;

 private:
  void* ctx_ = nullptr;      // CUcontext
  void* primary_ = nullptr;  // the device's primary CUcontext, retained while this lives
  int device_ = -1;
};

}  // namespace sluice::cuda
