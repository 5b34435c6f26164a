#include "sluice/kernels/convolution/windows.h"

#include <cmath>

namespace sluice::kernels::conv {

int gaussian_diameter(float sigma) {
  return static_cast<int>(2 * std::ceil(sigma * 3) + 1);
}

float gaussian_sigma(int diameter) {
  const int radius = (diameter - 1) / 2;
  return static_cast<float>((radius - 1) * 0.3 + 0.8);
}

std::vector<float> gaussian_window(float sigma, int size) {
  std::vector<float> w(size);
  const int r = (size - 1) / 2;
  const float exp_scale = 0.5f / (sigma * sigma);
  float sum = 0.0f;
  for (int x = -r; x < 0; ++x) {
    w[x + r] = static_cast<float>(std::exp(static_cast<double>(-(x * x * exp_scale))));
    sum += w[x + r];
  }
  // Symmetric, with 1 in the centre.
  sum *= 2.0f;
  sum += 1.0f;
  const float scale = 1.0f / sum;
  w[r] = scale;
  for (int x = 0; x < r; ++x) {
    w[x] *= scale;
    w[2 * r - x] = w[x];
  }
  return w;
}

namespace {

// One more tap: next[j] = prev[j - 1] + sign * prev[j], with prev[-1] = prev[n] = 0 and the
// first tap's sign flipped for differences, as DALI's window recursion.
std::vector<float> extend(const std::vector<float>& prev, float sign) {
  std::vector<float> next(prev.size() + 1);
  next[0] = sign * prev[0];
  for (size_t j = 1; j < prev.size(); ++j) next[j] = prev[j - 1] + sign * prev[j];
  next.back() = prev.back();
  return next;
}

}  // namespace

std::vector<float> laplacian_smoothing_window(int size) {
  std::vector<float> w = {1.0f};
  while (static_cast<int>(w.size()) < size) w = extend(w, 1.0f);
  return w;
}

std::vector<float> laplacian_derivative_window(int size) {
  return extend(extend(laplacian_smoothing_window(size - 2), -1.0f), -1.0f);
}

}  // namespace sluice::kernels::conv
