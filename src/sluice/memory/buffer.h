#pragma once
// An owning, resizable block of host, pinned or device memory from a MemoryResource.
//
// resize() applies the BufferPolicy: pinned and device buffers only grow; host buffers may
// shrink, once kShrinkWindow requests in a row were below threshold * capacity, to the largest
// of them. Contents are not preserved across a reallocation. A device or pinned buffer remembers
// the stream that last used it; its memory is returned to the pool ordered after that stream.
// A borrowed buffer (borrow()) views memory owned elsewhere: it is never written through a
// TensorList, reallocated or freed, only its owner released. Not thread-safe.

#include <atomic>
#include <cstddef>
#include <memory>

#include "sluice/cuda/cuda_api.h"
#include "sluice/memory/memory_resource.h"

namespace sluice {

class Buffer {
 public:
  // An operator's output for random crops varies by more than 10% from batch to batch, so
  // shrinking on every small request reallocated a multi-MB buffer, and re-faulted its pages,
  // nearly every iteration (bench/RESULTS.md#memory-host). A run of small requests is the sign
  // that the need really went down.
  static constexpr int kShrinkWindow = 16;

  explicit Buffer(MemoryKind kind = MemoryKind::kHost, int device = -1);
  ~Buffer();
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  Buffer(Buffer&& o) noexcept;
  Buffer& operator=(Buffer&& o) noexcept;

  // A view of `bytes` at `data`, kept alive by `owner` (released when the buffer is destroyed or
  // reset): data fed without a copy, e.g. a Python array.
  static std::shared_ptr<Buffer> borrow(void* data, size_t bytes, MemoryKind kind, int device,
                                        std::shared_ptr<const void> owner);
  bool borrowed() const { return owner_ != nullptr; }

  void* data() const { return data_; }
  size_t size() const { return size_; }          // bytes requested by the last resize()
  size_t capacity() const { return capacity_; }  // bytes allocated
  MemoryKind kind() const { return kind_; }
  int device() const { return device_; }

  // Makes size() == bytes, reallocating per the policy when needed (a borrowed buffer first
  // lets go of the memory it views).
  void resize(size_t bytes);
  // Ensures capacity() >= bytes without changing size(); host buffers never shrink below it.
  void reserve(size_t bytes);
  // Frees the memory (stream-ordered).
  void reset();

  // May be called from another thread (a DLPack consumer releasing the buffer) while the
  // owner holds no reference, hence atomic.
  void set_stream(cuda::StreamHandle s) { stream_.store(s, std::memory_order_release); }
  cuda::StreamHandle stream() const { return stream_.load(std::memory_order_acquire); }

 private:
  void reallocate(size_t capacity);

  MemoryKind kind_;
  int device_;
  void* data_ = nullptr;
  size_t size_ = 0;
  size_t capacity_ = 0;
  size_t min_capacity_ = 0;  // from reserve(): the floor for shrinking
  int small_run_ = 0;        // consecutive requests below the shrink threshold
  size_t small_peak_ = 0;    // the largest of them
  std::atomic<cuda::StreamHandle> stream_{nullptr};
  std::shared_ptr<const void> owner_;  // borrowed memory's owner
};

}  // namespace sluice
