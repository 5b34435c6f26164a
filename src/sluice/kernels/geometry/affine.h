#pragma once
// Affine transforms of 1 to 6 dimensions as homogeneous float matrices, with DALI's conventions:
// a transform of `ndim` dimensions is exchanged as ndim x (ndim + 1) values, row-major (the
// linear part, then the translation column); points are column vectors (x, y, z order for
// images), so `a * b` applies b first. Products and rotations are computed in float, in DALI's
// order, so that the matrices equal DALI's to a few ulps.
//
// Thread safety: plain values and pure functions.

#include <array>
#include <cstdint>
#include <span>

namespace sluice::kernels {

inline constexpr int kMaxAffineDims = 6;

// A homogeneous (ndim + 1) x (ndim + 1) matrix; the last row is (0, ..., 0, 1).
struct AffineMatrix {
  int ndim = 0;
  std::array<float, (kMaxAffineDims + 1) * (kMaxAffineDims + 1)> m{};

  float& at(int r, int c) { return m[r * (ndim + 1) + c]; }
  float at(int r, int c) const { return m[r * (ndim + 1) + c]; }

  static AffineMatrix identity(int ndim);
  // From ndim x (ndim + 1) row-major values (the exchanged form). Throws InvalidArgument when
  // `values` has another size or ndim is outside 1..kMaxAffineDims.
  static AffineMatrix from_rows(int ndim, std::span<const float> values);
  // Writes the ndim x (ndim + 1) exchanged form to `out`.
  void to_rows(float* out) const;
};

// a * b (same ndim): the transform that applies b, then a.
AffineMatrix operator*(const AffineMatrix& a, const AffineMatrix& b);

// The inverse, computed in double and rounded to float. Throws InvalidArgument when the linear
// part is singular.
AffineMatrix inverse(const AffineMatrix& a);

// Counter-clockwise rotation of the x-y plane by `radians` (y pointing up): [[c, -s], [s, c]].
AffineMatrix rotation_2d(float radians);
// Rotation by `radians` about `axis` (normalised here; a zero axis gives NaNs, as in DALI), by
// Rodrigues' formula.
AffineMatrix rotation_3d(std::array<float, 3> axis, float radians);

// Makes the linear part of `m` act about `center` (ndim values): the translation becomes
// center - L * center.
void set_center(AffineMatrix& m, std::span<const float> center);

// Degrees to radians in float, as DALI's deg2rad.
inline float deg2rad(float degrees) {
  return degrees * static_cast<float>(3.14159265358979323846 / 180.0);
}

}  // namespace sluice::kernels
