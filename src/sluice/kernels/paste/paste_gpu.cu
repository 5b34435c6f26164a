#include "sluice/cuda/cuda_check.h"
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
  const dim3 grid(static_cast<unsigned>((max_pixels + kPerBlock - 1) / kPerBlock),
                  static_cast<unsigned>(n));
  multi_paste_kernel<Out, In><<<grid, kThreads, 0, stream>>>(samples, regions);
}

// Block x writes elements [x, x + 1) * kPerBlock of canvas y (blockIdx.y); a thread finds its
// element's row with one division and then steps along it: per element, a copy from the input
// row or a fill value (a division per element cost four times the copy).
__global__ void paste_kernel(const PasteSample* samples, const uint8_t* fill) {
  const PasteSample s = samples[blockIdx.y];
  const int64_t row = s.out_width * s.channels, in_row = s.in_width * s.channels;
  const int64_t n = s.out_height * row;
  int64_t i = int64_t{blockIdx.x} * kPerBlock + threadIdx.x;
  if (i >= n) return;
  const int64_t end = min(int64_t{blockIdx.x + 1} * kPerBlock, n);
  int64_t y = i / row, j = i - y * row;
  const int64_t left = s.x * s.channels;  // the input row starts at element `left` of its row
  for (; i < end; i += kThreads) {
    const int64_t iy = y - s.y, k = j - left;
    s.out[i] = iy >= 0 && iy < s.in_height && k >= 0 && k < in_row
                   ? s.in[iy * in_row + k]
                   : fill[static_cast<uint32_t>(j) % static_cast<uint32_t>(s.channels)];
    j += kThreads;
    while (j >= row) {
      j -= row;
      ++y;
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

void paste_gpu(const PasteSample* samples, int num_samples, const uint8_t* fill,
               int64_t max_elements, void* stream) {
  if (num_samples == 0 || max_elements == 0) return;
  const dim3 grid(static_cast<unsigned>((max_elements + kPerBlock - 1) / kPerBlock),
                  static_cast<unsigned>(num_samples));
  paste_kernel<<<grid, kThreads, 0, static_cast<cudaStream_t>(stream)>>>(samples, fill);
  SLUICE_CUDA_CHECK_LAUNCH();
}

}  // namespace sluice::kernels
