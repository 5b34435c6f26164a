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

}  // namespace sluice::kernels::conv
