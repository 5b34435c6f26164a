#include "sluice/cuda/param_upload.h"

#include <cstring>

namespace sluice::cuda {

ParamUpload::ParamUpload(int device) : device_(device) {
  for (auto& p : pages_) {
    p.device = Buffer(MemoryKind::kDevice, device);
    p.done = Event(device);
  }
}

void* ParamUpload::upload(const void* data, size_t bytes, StreamHandle stream) {
  Page& p = pages_[next_];
  next_ ^= 1;
  if (p.used) p.done.synchronize();
  p.pinned.resize(bytes);
  p.device.set_stream(stream);
  p.device.resize(bytes);
  if (bytes) std::memcpy(p.pinned.data(), data, bytes);
  memcpy_async(p.device.data(), p.pinned.data(), bytes, stream);
  p.done.record(stream);
  p.used = true;
  return p.device.data();
}

}  // namespace sluice::cuda
