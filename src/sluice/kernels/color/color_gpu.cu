#include "sluice/cuda/cuda_check.h"
#include "sluice/kernels/color/color_dispatch.h"
#include "sluice/kernels/color/color_gpu.h"
#include "sluice/kernels/color/color_pixel.h"
#include "sluice/kernels/common/launch_grid.cuh"

namespace sluice::kernels::color {
namespace {

constexpr int kThreads = 256;
constexpr int64_t kPixelsPerBlock = int64_t{kThreads} * 8;

// blockIdx.y is the sample; the blocks of a sample stride over its pixels.
template <typename Out, typename In>
__global__ void affine_kernel(const ColorSample* samples, bool matrix) {
  const ColorSample s = samples[blockIdx.y];
  const auto* in = static_cast<const In*>(s.in);
  auto* out = static_cast<Out*>(s.out);
  for (int64_t p = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; p < s.pixels;
       p += int64_t{gridDim.x} * blockDim.x) {
    if (matrix) {
      matrix_pixel(in, out, p, s);
    } else {
      multiply_add_element(in, out, p, s.m[0], s.offset[0]);
    }
  }
}

// The 3x3 matrix on UINT8 RGB, four pixels (three 32-bit words) per thread and step: byte loads
// and stores one at a time left the kernel at a quarter of the memory's speed. A sample whose
// pointers are not 4-byte aligned, and the last pixels, go one at a time; the arithmetic is
// matrix_pixel()'s either way.
__global__ void matrix_u8_kernel(const ColorSample* samples) {
  const ColorSample s = samples[blockIdx.y];
  const auto* in = static_cast<const uint8_t*>(s.in);
  auto* out = static_cast<uint8_t*>(s.out);
  const int64_t stride = int64_t{gridDim.x} * blockDim.x;
  const int64_t first = blockIdx.x * int64_t{blockDim.x} + threadIdx.x;
  int64_t scalar_from = 0;
  if (((reinterpret_cast<uintptr_t>(in) | reinterpret_cast<uintptr_t>(out)) & 3) == 0) {
    const int64_t quads = s.pixels / 4;
    const auto* in4 = reinterpret_cast<const uint32_t*>(in);
    auto* out4 = reinterpret_cast<uint32_t*>(out);
    for (int64_t q = first; q < quads; q += stride) {
      uint32_t w[3] = {in4[3 * q], in4[3 * q + 1], in4[3 * q + 2]};
      uint32_t r[3];
      const auto* src = reinterpret_cast<const uint8_t*>(w);
      auto* dst = reinterpret_cast<uint8_t*>(r);
#pragma unroll
      for (int k = 0; k < 4; ++k) matrix_pixel(src, dst, k, s);
      out4[3 * q] = r[0];
      out4[3 * q + 1] = r[1];
      out4[3 * q + 2] = r[2];
    }
    scalar_from = quads * 4;
  }
  for (int64_t p = scalar_from + first; p < s.pixels; p += stride) matrix_pixel(in, out, p, s);
}

__global__ void convert_kernel(const ColorSample* samples, ColorOp op, int ic, int oc) {
  const ColorSample& s = samples[blockIdx.y];
  const auto* in = static_cast<const uint8_t*>(s.in);
  auto* out = static_cast<uint8_t*>(s.out);
  for (int64_t p = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; p < s.pixels;
       p += int64_t{gridDim.x} * blockDim.x) {
    convert_pixel(op, in + p * ic, out + p * oc);
  }
}

}  // namespace

void color_gpu(const ColorSample* samples, int num_samples, int64_t max_pixels, ColorOp op,
               DType in, DType out, void* stream) {
  if (num_samples == 0 || max_pixels == 0) return;
  const dim3 grid = batch_grid(num_samples, max_pixels, kPixelsPerBlock, 65535);
  auto st = static_cast<cudaStream_t>(stream);
  if (op != ColorOp::kMultiplyAdd && op != ColorOp::kMatrix3) {
    SLUICE_CHECK(in == DType::kUInt8 && out == DType::kUInt8, InvalidArgument,
                 "colour space conversions take and give UINT8");
    convert_kernel<<<grid, kThreads, 0, st>>>(samples, op, in_channels(op), out_channels(op));
    SLUICE_CUDA_CHECK_LAUNCH();
    return;
  }
  if (op == ColorOp::kMatrix3 && in == DType::kUInt8 && out == DType::kUInt8) {
    matrix_u8_kernel<<<grid, kThreads, 0, st>>>(samples);
    SLUICE_CUDA_CHECK_LAUNCH();
    return;
  }
  affine_type_dispatch(in, [&](auto in_tag) {
    using I = typename decltype(in_tag)::type;
    affine_type_dispatch(out, [&](auto out_tag) {
      using O = typename decltype(out_tag)::type;
      affine_kernel<O, I><<<grid, kThreads, 0, st>>>(samples, op == ColorOp::kMatrix3);
      SLUICE_CUDA_CHECK_LAUNCH();
    });
  });
}

}  // namespace sluice::kernels::color
