#include "sluice/kernels/geometry/affine.h"

#include <cmath>

#include "sluice/core/error.h"

namespace sluice::kernels {

AffineMatrix AffineMatrix::identity(int ndim) {
  SLUICE_CHECK(ndim >= 1 && ndim <= kMaxAffineDims, InvalidArgument, "affine transforms have 1 to ",
               kMaxAffineDims, " dimensions, got ", ndim);
  AffineMatrix a;
  a.ndim = ndim;
  for (int i = 0; i <= ndim; ++i) a.at(i, i) = 1.0f;
  return a;
}

AffineMatrix AffineMatrix::from_rows(int ndim, std::span<const float> values) {
  AffineMatrix a = identity(ndim);
  SLUICE_CHECK(static_cast<int64_t>(values.size()) == int64_t{ndim} * (ndim + 1), InvalidArgument,
               "a ", ndim, "D affine transform has ", ndim * (ndim + 1), " values, got ",
               values.size());
  for (int r = 0, k = 0; r < ndim; ++r) {
    for (int c = 0; c <= ndim; ++c, ++k) a.at(r, c) = values[k];
  }
  return a;
}

void AffineMatrix::to_rows(float* out) const {
  for (int r = 0, k = 0; r < ndim; ++r) {
    for (int c = 0; c <= ndim; ++c, ++k) out[k] = at(r, c);
  }
}

AffineMatrix operator*(const AffineMatrix& a, const AffineMatrix& b) {
  SLUICE_CHECK(a.ndim == b.ndim, InvalidArgument, "cannot combine a ", a.ndim, "D and a ", b.ndim,
               "D transform");
  AffineMatrix out;
  out.ndim = a.ndim;
  const int n = a.ndim + 1;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      float acc = a.at(i, 0) * b.at(0, j);
      for (int k = 1; k < n; ++k) acc += a.at(i, k) * b.at(k, j);
      out.at(i, j) = acc;
    }
  }
  return out;
}

AffineMatrix inverse(const AffineMatrix& a) {
  const int n = a.ndim + 1;
  // Gauss-Jordan with partial pivoting on [A | I].
  double w[kMaxAffineDims + 1][2 * (kMaxAffineDims + 1)] = {};
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) w[i][j] = a.at(i, j);
    w[i][n + i] = 1.0;
  }
  for (int col = 0; col < n; ++col) {
    int pivot = col;
    for (int r = col + 1; r < n; ++r) {
      if (std::abs(w[r][col]) > std::abs(w[pivot][col])) pivot = r;
    }
    SLUICE_CHECK(w[pivot][col] != 0.0, InvalidArgument, "the transform matrix is singular");
    if (pivot != col) {
      for (int j = 0; j < 2 * n; ++j) std::swap(w[pivot][j], w[col][j]);
    }
    const double p = w[col][col];
    for (int j = 0; j < 2 * n; ++j) w[col][j] /= p;
    for (int r = 0; r < n; ++r) {
      if (r == col || w[r][col] == 0.0) continue;
      const double f = w[r][col];
      for (int j = 0; j < 2 * n; ++j) w[r][j] -= f * w[col][j];
    }
  }
  AffineMatrix out = AffineMatrix::identity(a.ndim);
  for (int i = 0; i < a.ndim; ++i) {
    for (int j = 0; j < n; ++j) out.at(i, j) = static_cast<float>(w[i][n + j]);
  }
  return out;
}

AffineMatrix rotation_2d(float radians) {
  AffineMatrix a = AffineMatrix::identity(2);
  const float c = std::cos(radians), s = std::sin(radians);
  a.at(0, 0) = c;
  a.at(0, 1) = -s;
  a.at(1, 0) = s;
  a.at(1, 1) = c;
  return a;
}

AffineMatrix rotation_3d(std::array<float, 3> axis, float radians) {
  const float len = std::sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
  const float x = axis[0] / len, y = axis[1] / len, z = axis[2] / len;
  const float c = std::cos(radians), s = std::sin(radians), oc = 1.0f - c;
  AffineMatrix a = AffineMatrix::identity(3);
  a.at(0, 0) = oc * x * x + c;
  a.at(0, 1) = oc * x * y - z * s;
  a.at(0, 2) = oc * x * z + y * s;
  a.at(1, 0) = oc * x * y + z * s;
  a.at(1, 1) = oc * y * y + c;
  a.at(1, 2) = oc * y * z - x * s;
  a.at(2, 0) = oc * x * z - y * s;
  a.at(2, 1) = oc * y * z + x * s;
  a.at(2, 2) = oc * z * z + c;
  return a;
}

void set_center(AffineMatrix& m, std::span<const float> center) {
  SLUICE_CHECK(static_cast<int>(center.size()) == m.ndim, InvalidArgument, "a ", m.ndim,
               "D center needs ", m.ndim, " values, got ", center.size());
  for (int r = 0; r < m.ndim; ++r) {
    float acc = m.at(r, 0) * -center[0];
    for (int k = 1; k < m.ndim; ++k) acc += m.at(r, k) * -center[k];
    m.at(r, m.ndim) = acc + center[r];
  }
}

}  // namespace sluice::kernels
