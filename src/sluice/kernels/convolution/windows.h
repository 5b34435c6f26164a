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

// laplacian's windows (OpenCV's): a smoothing window of `size` taps is a row of binomial
// coefficients; a derivative window of `size` taps (at least 3) is [1, -2, 1] convolved with the
// smoothing window of size - 2. Built in float by Pascal's rule, as DALI builds them.
std::vector<float> laplacian_smoothing_window(int size);
std::vector<float> laplacian_derivative_window(int size);

}  // namespace sluice::kernels::conv
