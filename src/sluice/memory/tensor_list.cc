#include "sluice/memory/tensor_list.h"

#include <algorithm>
#include <cstring>

namespace sluice {

bool TensorList::is_dense() const {
  if (!is_contiguous()) return false;
  for (const Shape& s : shapes_) {
    if (s != shapes_[0]) return false;
  }
  return true;
}

size_t TensorList::total_bytes() const {
  size_t n = 0;
  for (int i = 0; i < num_samples(); ++i) n += sample_bytes(i);
  return n;
}

size_t TensorList::reserved_bytes() const {
  if (is_contiguous()) return buffer_ ? buffer_->capacity() : 0;
  size_t n = 0;
  for (const auto& b : samples_) n += b ? b->capacity() : 0;
  return n;
}

size_t TensorList::max_sample_bytes() const {
  size_t m = 0;
  for (int i = 0; i < num_samples(); ++i) m = std::max(m, sample_bytes(i));
  return m;
}

void* TensorList::raw_sample(int i) const {
  if (is_contiguous()) {
    return buffer_ ? static_cast<char*>(buffer_->data()) + offsets_[i] : nullptr;
  }
  return samples_[i] ? samples_[i]->data() : nullptr;
}

void* TensorList::raw_data() const {
  SLUICE_ENFORCE(is_contiguous(), "raw_data() of a per-sample TensorList");
  return buffer_ ? buffer_->data() : nullptr;
}

Tensor TensorList::tensor(int i) const {
  Tensor t;
  t.storage = is_contiguous() ? buffer_ : samples_[i];
  t.data = raw_sample(i);
  t.shape = shapes_[i];
  t.dtype = dtype_;
  t.layout = layout_;
  t.kind = kind_;
  t.device = device_;
  return t;
}

std::shared_ptr<Buffer> TensorList::writable(std::shared_ptr<Buffer>& b) {
  if (!b || b.use_count() > 1 || b->borrowed()) {
    b = std::make_shared<Buffer>(kind_, device_);
    b->set_stream(stream_);
  } else if (kind_ != MemoryKind::kHost && stream_ && b->stream() && b->stream() != stream_) {
    // A consumer used this buffer on its own stream (Note [DLPack stream handshake]): writing it
    // again must wait for that work.
    cuda::stream_wait_stream(stream_, b->stream());
    b->set_stream(stream_);
  }
  return b;
}

void TensorList::resize(std::vector<Shape> shapes, DType dtype, Storage storage) {
  shapes_ = std::move(shapes);
  dtype_ = dtype;
  storage_ = storage;
  const int n = num_samples();
  if (storage == Storage::kContiguous) {
    samples_.clear();
    offsets_.resize(n);
    size_t off = 0;
    for (int i = 0; i < n; ++i) {
      offsets_[i] = off;
      off += sample_bytes(i);
    }
    writable(buffer_)->resize(off);
  } else {
    buffer_.reset();
    offsets_.clear();
    samples_.resize(n);
    for (int i = 0; i < n; ++i) writable(samples_[i])->resize(sample_bytes(i));
  }
}

void TensorList::share(std::vector<Shape> shapes, DType dtype,
                       std::vector<std::shared_ptr<Buffer>> buffers) {
  const bool contiguous = buffers.size() == 1;
  SLUICE_ENFORCE(contiguous || buffers.size() == shapes.size(),
                 "share: one buffer, or one per sample");
  shapes_ = std::move(shapes);
  dtype_ = dtype;
  storage_ = contiguous ? Storage::kContiguous : Storage::kPerSample;
  const int n = num_samples();
  offsets_.clear();
  samples_.clear();
  buffer_.reset();
  if (contiguous) {
    buffer_ = std::move(buffers[0]);
    offsets_.resize(n);
    size_t off = 0;
    for (int i = 0; i < n; ++i) {
      offsets_[i] = off;
      off += sample_bytes(i);
    }
    SLUICE_ENFORCE(off <= buffer_->size(), "share: the buffer is smaller than its samples");
  } else {
    samples_ = std::move(buffers);
    for (int i = 0; i < n; ++i) {
      SLUICE_ENFORCE(sample_bytes(i) <= samples_[i]->size(),
                     "share: a buffer is smaller than its sample");
    }
  }
}

void TensorList::resize_uniform(int num_samples, const Shape& shape, DType dtype) {
  resize(std::vector<Shape>(num_samples, shape), dtype);
}

void TensorList::reserve(size_t bytes) {
  if (is_contiguous()) writable(buffer_)->reserve(bytes);
}

void TensorList::set_stream(cuda::StreamHandle s) {
  stream_ = s;
  if (buffer_) buffer_->set_stream(s);
  for (auto& b : samples_) {
    if (b) b->set_stream(s);
  }
}

void TensorList::remap_samples(const std::vector<int>& source, cuda::StreamHandle stream) {
  SLUICE_ENFORCE(static_cast<int>(source.size()) == num_samples(), "remap_samples: size mismatch");
  TensorList old = *this;  // keeps the old storage alive while copying
  std::vector<Shape> shapes(source.size());
  for (size_t i = 0; i < source.size(); ++i) shapes[i] = old.shape(source[i]);
  buffer_.reset();
  samples_.clear();
  resize(std::move(shapes), old.dtype(), old.storage_);
  for (int i = 0; i < num_samples(); ++i) {
    if (kind_ == MemoryKind::kDevice) {
      cuda::memcpy_async(raw_sample(i), old.raw_sample(source[i]), sample_bytes(i), stream);
    } else {
      std::memcpy(raw_sample(i), old.raw_sample(source[i]), sample_bytes(i));
    }
  }
}

void TensorList::copy_from(const TensorList& src, cuda::StreamHandle stream) {
  resize(src.shapes(), src.dtype(), Storage::kContiguous);
  layout_ = src.layout();
  const bool host_only = kind_ != MemoryKind::kDevice && src.kind() != MemoryKind::kDevice;
  if (src.is_contiguous()) {
    if (host_only) {
      if (total_bytes()) std::memcpy(raw_data(), src.raw_data(), total_bytes());
    } else {
      cuda::memcpy_async(raw_data(), src.raw_data(), total_bytes(), stream);
    }
    return;
  }
  for (int i = 0; i < num_samples(); ++i) {
    if (host_only) {
      if (sample_bytes(i)) std::memcpy(raw_sample(i), src.raw_sample(i), sample_bytes(i));
    } else {
      cuda::memcpy_async(raw_sample(i), src.raw_sample(i), sample_bytes(i), stream);
    }
  }
}

}  // namespace sluice
