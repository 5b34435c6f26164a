#include "sluice/kernels/elementwise/convert.h"
#include "sluice/kernels/segmentation/mask_pixel.h"

namespace sluice::kernels {
namespace {

bool is_foreground(const void* mask, DType t, int64_t i, const MaskForeground& fg) {
  if (fg.by_value) return load_f64(mask, t, i) == static_cast<double>(fg.value);
  return static_cast<float>(load_f64(mask, t, i)) > fg.threshold;
}

}  // namespace

int64_t random_foreground_index(const void* mask, DType t, int64_t n, const MaskForeground& fg,
                                SampleRng& rng) {
  int64_t count = 0;
  for (int64_t i = 0; i < n; ++i) count += is_foreground(mask, t, i, fg);
  if (count == 0) return -1;
  auto k = static_cast<int64_t>(rng.uniform_double() * static_cast<double>(count));
  for (int64_t i = 0; i < n; ++i) {
    if (is_foreground(mask, t, i, fg) && k-- == 0) return i;
  }
  return -1;
}

}  // namespace sluice::kernels
