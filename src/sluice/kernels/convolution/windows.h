#pragma once
// The convolution windows of gaussian_blur and laplacian, computed as DALI computes them (float
// values from double exponentials, normalised in float). Host code.

#include <vector>

namespace sluice::kernels::conv {

// gaussian_blur's window size for `sigma` (2 * ceil(3 sigma) + 1) and sigma for a window size
// (OpenCV's rule: 0.3 * (radius - 1) + 0.8).
int gaussian_diameter(float sigma);
float gaussian_sigma(int diameter);

// A normalised Gaussian of `size` taps (odd).
std::vector<float> gaussian_window(float sigma, int size);

}  // namespace sluice::kernels::conv
