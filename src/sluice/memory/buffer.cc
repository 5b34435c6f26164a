#include "sluice/memory/buffer.h"

#include <algorithm>
#include <cmath>

#include "sluice/core/error.h"
#include "sluice/memory/buffer_policy.h"

namespace sluice {

Buffer::Buffer(MemoryKind kind, int device) : kind_(kind), device_(device) {}

Buffer::~Buffer() {
  reset();
}

Buffer::Buffer(Buffer&& o) noexcept
    : kind_(o.kind_),
      device_(o.device_),
      data_(o.data_),
      size_(o.size_),
      capacity_(o.capacity_),
      min_capacity_(o.min_capacity_),
      stream_(o.stream()),
      owner_(std::move(o.owner_)) {
  o.data_ = nullptr;
  o.size_ = o.capacity_ = o.min_capacity_ = 0;
}

Buffer& Buffer::operator=(Buffer&& o) noexcept {
  if (this != &o) {
    try {
      reset();
    } catch (...) {
    }
    kind_ = o.kind_;
    device_ = o.device_;
    data_ = o.data_;
    size_ = o.size_;
    capacity_ = o.capacity_;
    min_capacity_ = o.min_capacity_;
    stream_ = o.stream();
    owner_ = std::move(o.owner_);
    o.data_ = nullptr;
    o.size_ = o.capacity_ = o.min_capacity_ = 0;
  }
  return *this;
}

std::shared_ptr<Buffer> Buffer::borrow(void* data, size_t bytes, MemoryKind kind, int device,
                                       std::shared_ptr<const void> owner) {
  SLUICE_ENFORCE(owner != nullptr, "Buffer::borrow needs the memory's owner");
  auto b = std::make_shared<Buffer>(kind, device);
  b->data_ = data;
  b->size_ = b->capacity_ = bytes;
  b->owner_ = std::move(owner);
  return b;
}

void Buffer::reset() {
  if (owner_) {
    owner_.reset();
  } else if (data_) {
    memory_resource(kind_, device_).deallocate(data_, capacity_, stream());
  }
  data_ = nullptr;
  capacity_ = 0;
  size_ = 0;
}

void Buffer::reallocate(size_t capacity) {
  MemoryResource& r = memory_resource(kind_, device_);
  data_ = data_ ? r.reallocate(data_, capacity_, capacity, stream()) : r.allocate(capacity);
  capacity_ = capacity;
}

void Buffer::resize(size_t bytes) {
  if (owner_) reset();
  BufferPolicy p = buffer_policy();
  if (bytes > capacity_) {
    double factor = kind_ == MemoryKind::kDevice ? p.device_growth_factor : p.host_growth_factor;
    if (kind_ != MemoryKind::kHost && capacity_ > 0) factor = std::max(factor, p.regrowth_factor);
    reallocate(static_cast<size_t>(std::ceil(static_cast<double>(bytes) * factor)));
  } else if (kind_ == MemoryKind::kHost && capacity_ > min_capacity_ &&
             static_cast<double>(bytes) <
                 p.host_shrink_threshold * static_cast<double>(capacity_)) {
    // See kShrinkWindow: shrink to the largest of a run of small requests, not on every dip.
    small_peak_ = std::max(small_peak_, bytes);
    if (++small_run_ >= kShrinkWindow) {
      size_t target = std::max(small_peak_, min_capacity_);
      small_run_ = 0;
      small_peak_ = 0;
      if (target == 0) {
        reset();
      } else {
        reallocate(target);
      }
    }
  } else {
    small_run_ = 0;
    small_peak_ = 0;
  }
  size_ = bytes;
}

void Buffer::reserve(size_t bytes) {
  if (owner_) reset();
  min_capacity_ = std::max(min_capacity_, bytes);
  if (bytes > capacity_) {
    size_t keep = size_;
    reallocate(bytes);
    size_ = keep;
  }
}

}  // namespace sluice
