#pragma once
// Tensor (one sample) and TensorList (a batch whose samples may differ in shape), on host,
// pinned host or device memory.
//
// A TensorList stores its samples either contiguously (one buffer, samples back to back with no
// padding, so a batch of equal shapes is one dense [N, ...] tensor) or per sample (one buffer
// each). Copies of a TensorList share storage. Storage that is shared - an output handed to the
// user, a DLPack export - is never written again: resize() then takes fresh buffers
// (copy-on-write), so reuse of executor buffers can never overwrite data someone holds.
// Not thread-safe; different samples may be written from different threads.

#include <cstddef>
#include <memory>
#include <vector>

#include "sluice/core/dtype.h"
#include "sluice/core/shape.h"
#include "sluice/memory/buffer.h"

namespace sluice {

// One sample: a view into storage it keeps alive.
struct Tensor {
  std::shared_ptr<Buffer> storage;
  void* data = nullptr;
  Shape shape;
  DType dtype = DType::kUInt8;
  Layout layout;
  MemoryKind kind = MemoryKind::kHost;
  int device = -1;

  size_t nbytes() const { return static_cast<size_t>(volume(shape)) * dtype_size(dtype); }
  template <typename T>
  T* data_as() const {
    return static_cast<T*>(data);
  }
};

class TensorList {
 public:
  enum class Storage { kContiguous, kPerSample };

  explicit TensorList(MemoryKind kind = MemoryKind::kHost, int device = -1)
      : kind_(kind), device_(device) {}

  int num_samples() const { return static_cast<int>(shapes_.size()); }
  DType dtype() const { return dtype_; }
  const Layout& layout() const { return layout_; }
  void set_layout(Layout layout) { layout_ = std::move(layout); }
  const Shape& shape(int i) const { return shapes_[i]; }
  const std::vector<Shape>& shapes() const { return shapes_; }
  int sample_ndim() const { return shapes_.empty() ? 0 : static_cast<int>(shapes_[0].size()); }
  MemoryKind kind() const { return kind_; }
  int device() const { return device_; }
  bool is_contiguous() const { return storage_ == Storage::kContiguous; }
  // True when all samples have the same shape and are stored contiguously: a dense tensor.
  bool is_dense() const;

  size_t sample_bytes(int i) const {
    return static_cast<size_t>(volume(shapes_[i])) * dtype_size(dtype_);
  }
  size_t total_bytes() const;
  // Bytes allocated for this list (capacity of its buffers).
  size_t reserved_bytes() const;
  // Largest sample, in bytes.
  size_t max_sample_bytes() const;

  void* raw_sample(int i) const;
  template <typename T>
  T* sample(int i) const {
    return static_cast<T*>(raw_sample(i));
  }
  // Base pointer of a contiguous list.
  void* raw_data() const;
  Tensor tensor(int i) const;

  // Sets shapes and type, reusing buffers where possible (see the class comment).
  void resize(std::vector<Shape> shapes, DType dtype, Storage storage = Storage::kContiguous);
  void resize_uniform(int num_samples, const Shape& shape, DType dtype);
  // Makes this list view `buffers` without copying (Buffer::borrow): one buffer holding all
  // samples back to back, or one per sample. The list never writes them; resize() replaces them.
  void share(std::vector<Shape> shapes, DType dtype, std::vector<std::shared_ptr<Buffer>> buffers);
  // Presizes the contiguous buffer.
  void reserve(size_t bytes);
  // Stream that writes this list (device and pinned memory): frees are ordered after it.
  void set_stream(cuda::StreamHandle s);

  // Replaces sample i by a copy of sample source[i] for every i, possibly changing shapes (used
  // for skipped bad samples). Device memory is copied on `stream`.
  void remap_samples(const std::vector<int>& source, cuda::StreamHandle stream = nullptr);

  // Makes this list a copy of `src`'s data (and shapes/type/layout) in this list's memory.
  // Copies between host and device memory go on `stream`.
  void copy_from(const TensorList& src, cuda::StreamHandle stream = nullptr);

 private:
  std::shared_ptr<Buffer> writable(std::shared_ptr<Buffer>& b);

  MemoryKind kind_;
  int device_;
  Storage storage_ = Storage::kContiguous;
  DType dtype_ = DType::kUInt8;
  Layout layout_;
  std::vector<Shape> shapes_;
  std::shared_ptr<Buffer> buffer_;                // contiguous storage
  std::vector<size_t> offsets_;                   // contiguous: byte offset of each sample
  std::vector<std::shared_ptr<Buffer>> samples_;  // per-sample storage
  cuda::StreamHandle stream_ = nullptr;
};

}  // namespace sluice
