#include "sluice/memory/param_upload.h"

#include <cstring>

namespace sluice {

ParamUpload::ParamUpload(int device) : device_(device) {
  for (auto& p : pages_) {
    p.device = Buffer(MemoryKind::kDevice, device);
    p.done = cuda::Event(device);
  }
}

ParamUpload::Pages ParamUpload::begin(size_t bytes, cuda::StreamHandle stream,
                                      size_t device_bytes) {
  Page& p = pages_[next_];
  next_ ^= 1;
  if (p.used) p.done.synchronize();
  p.pinned.resize(bytes);
  p.device.set_stream(stream);
  p.device.resize(device_bytes == SIZE_MAX ? bytes : device_bytes);
  open_ = &p;
  return {p.pinned.data(), p.device.data()};
}

void ParamUpload::end(cuda::StreamHandle stream) {
  open_->done.record(stream);
  open_->used = true;
  open_ = nullptr;
}

void* ParamUpload::upload(const void* data, size_t bytes, cuda::StreamHandle stream) {
  Pages pages = begin(bytes, stream);
  if (bytes) std::memcpy(pages.pinned, data, bytes);
  cuda::memcpy_async(pages.device, pages.pinned, bytes, stream);
  end(stream);
  return pages.device;
}

}  // namespace sluice
