#include "sluice/cuda/cuda_check.h"
#include "sluice/kernels/common/launch_grid.cuh"
#include "sluice/kernels/paste/paste.h"

namespace sluice::kernels {
namespace {

constexpr int kThreads = 256;
constexpr int64_t kPerBlock = int64_t{kThreads} * 4;

// Block (x, y) writes pixels [x * kPerBlock, (x + 1) * kPerBlock) of canvas y: from the last
// region covering the pixel, else 0.
template <typename Out, typename In>
__global__ void multi_paste_kernel(const MultiPasteSample* samples, const PasteRegion* regions) {
  const MultiPasteSample s = samples[blockIdx.y];
  const int64_t pixels = s.height * s.width;
  const int64_t begin = int64_t{blockIdx.x} * kPerBlock;
  const int64_t end = min(begin + kPerBlock, pixels);
  Out* out = static_cast<Out*>(s.out);
  for (int64_t p = begin + threadIdx.x; p < end; p += kThreads) {
    const int64_t y = p / s.width, x = p % s.width;
    const In* src = nullptr;
    for (int k = s.num_regions - 1; k >= 0 && !src; --k) {
      const PasteRegion& r = regions[s.first_region + k];
      const int64_t ry = y - r.out_y, rx = x - r.out_x;
      if (ry >= 0 && ry < r.height && rx >= 0 && rx < r.width) {
        src =
            static_cast<const In*>(r.in) + ((r.in_y + ry) * r.in_width + r.in_x + rx) * s.channels;
      }
    }
    for (int64_t c = 0; c < s.channels; ++c) {
      out[p * s.channels + c] = src ? convert_sat<Out>(src[c]) : Out{0};
    }
  }
}

template <typename Out, typename In>
void launch_multi_paste(const MultiPasteSample* samples, int n, const PasteRegion* regions,
                        int64_t max_pixels, cudaStream_t stream) {
  const dim3 grid = batch_grid(n, max_pixels, kPerBlock);
  multi_paste_kernel<Out, In><<<grid, kThreads, 0, stream>>>(samples, regions);
}

// blockIdx.y is the canvas; its rows are strided over the blocks in x and each row over the
// threads, so no thread divides: a thread tracks its element's channel as it steps. Rows of a
// multiple of 4 bytes (on a 4-byte aligned canvas) are written a 32-bit word at a time.
__global__ void paste_kernel(const PasteSample* samples, const uint8_t* fill) {
  const PasteSample s = samples[blockIdx.y];
  const uint32_t channels = static_cast<uint32_t>(s.channels);
  const uint32_t row = static_cast<uint32_t>(s.out_width) * channels;
  const uint32_t in_row = static_cast<uint32_t>(s.in_width) * channels;
  const uint32_t left = static_cast<uint32_t>(s.x) * channels;  // where the input row starts
  const bool words = (row & 3) == 0 && (reinterpret_cast<uintptr_t>(s.out) & 3) == 0;
  const uint32_t width = words ? 4 : 1;  // bytes per step of a thread
  const uint32_t c0 = threadIdx.x * width % channels, step = blockDim.x * width % channels;
  for (int64_t y = blockIdx.x; y < s.out_height; y += gridDim.x) {
    uint8_t* out = s.out + y * row;
    const int64_t iy = y - s.y;
    const uint8_t* in = iy >= 0 && iy < s.in_height ? s.in + iy * in_row : nullptr;
    auto element = [&](uint32_t j, uint32_t c) -> uint8_t {
      return in && j - left < in_row ? in[j - left] : fill[c];  // j < left wraps: outside
    };
    uint32_t c = c0;
    for (uint32_t j = threadIdx.x * width; j < row; j += blockDim.x * width) {
      if (words) {
        uint32_t word = 0, cb = c;
#pragma unroll
        for (uint32_t b = 0; b < 4; ++b) {
          word |= uint32_t{element(j + b, cb)} << (8 * b);
          cb = cb + 1 == channels ? 0 : cb + 1;
        }
        *reinterpret_cast<uint32_t*>(out + j) = word;
      } else {
        out[j] = element(j, c);
      }
      c += step;
      if (c >= channels) c -= channels;
    }
  }
}

}  // namespace

void multi_paste_gpu(const MultiPasteSample* samples, int num_samples, const PasteRegion* regions,
                     int64_t max_pixels, DType out, DType in, void* stream) {
  if (num_samples == 0 || max_pixels == 0) return;
  paste_type_dispatch(out, [&](auto o) {
    paste_type_dispatch(in, [&](auto i) {
      launch_multi_paste<typename decltype(o)::type, typename decltype(i)::type>(
          samples, num_samples, regions, max_pixels, static_cast<cudaStream_t>(stream));
    });
  });
  SLUICE_CUDA_CHECK_LAUNCH();
}

void paste_gpu(const PasteSample* samples, int num_samples, const uint8_t* fill, int64_t max_height,
               void* stream) {
  if (num_samples == 0 || max_height == 0) return;
  const dim3 grid = batch_grid(num_samples, max_height, 1, 65535);  // a block per row
  paste_kernel<<<grid, kThreads, 0, static_cast<cudaStream_t>(stream)>>>(samples, fill);
  SLUICE_CUDA_CHECK_LAUNCH();
}

}  // namespace sluice::kernels
