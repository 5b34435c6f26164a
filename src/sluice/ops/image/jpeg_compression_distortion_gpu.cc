// jpeg_compression_distortion on the GPU: the CPU codec, on copies of the images in host memory
// (DALI's GPU operator has a CUDA approximation of JPEG whose output differs from its CPU one;
// this one gives the CPU operator's bits). The stream is synchronised twice per batch: once for
// the images to reach the host, once before the host buffers are written again.

#include "sluice/cuda/cuda_api.h"
#include "sluice/memory/buffer.h"
#include "sluice/ops/gpu_operator.h"
#include "sluice/ops/image/jpeg_compression_distortion.h"

namespace sluice {
namespace {

class JpegCompressionDistortionGpu : public GpuOperator {
 public:
  using GpuOperator::GpuOperator;
  void setup(const OpContext& ctx) override {
    GpuOperator::setup(ctx);
    host_in_ = Buffer(MemoryKind::kPinned);
    host_out_ = Buffer(MemoryKind::kPinned);
  }

  void run(Workspace& ws) override {
    const auto plan = plan_jpeg_distortion(ws);
    const TensorList& in = ws.input(0);
    TensorList& out = ws.output(0);
    out.resize(in.shapes(), DType::kUInt8);
    out.set_layout(in.layout());
    const size_t total = in.total_bytes();
    if (total == 0) return;
    // The previous batch's copies out of host_out_ must be done before it is rewritten.
    cuda::stream_synchronize(ws.stream());
    host_in_.resize(total);
    host_out_.resize(total);
    auto* hin = static_cast<uint8_t*>(host_in_.data());
    auto* hout = static_cast<uint8_t*>(host_out_.data());
    std::vector<size_t> offset(in.num_samples());
    size_t at = 0;
    for (int i = 0; i < in.num_samples(); ++i) {
      offset[i] = at;
      const size_t bytes = static_cast<size_t>(volume(in.shape(i)));
      cuda::memcpy_async(hin + at, in.raw_sample(i), bytes, ws.stream());
      at += bytes;
    }
    cuda::stream_synchronize(ws.stream());
    for (int i = 0; i < in.num_samples(); ++i) {
      jpeg_distort_sample(hin + offset[i], hout + offset[i], plan[i], ws.arg<int>("quality", i),
                          scratch_);
      cuda::memcpy_async(out.raw_sample(i), hout + offset[i],
                         static_cast<size_t>(volume(in.shape(i))), ws.stream());
    }
  }

 private:
  Buffer host_in_{MemoryKind::kPinned}, host_out_{MemoryKind::kPinned};
  std::vector<uint8_t> scratch_;
};

SLUICE_REGISTER_OPERATOR("jpeg_compression_distortion", OpDevice::kGPU,
                         JpegCompressionDistortionGpu);

}  // namespace
}  // namespace sluice
