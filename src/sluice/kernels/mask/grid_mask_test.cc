// grid_mask_cpu: the unrotated grid is the squares of the definition; rotated and shifted grids
// agree with the mask computed in double precision except within rounding of a square's edge.

#include "sluice/kernels/mask/grid_mask.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace sluice::kernels {
namespace {

TEST(GridMaskCpu, UnrotatedGridZeroesTheSquares) {
  const int64_t h = 13, w = 17, c = 3;
  std::vector<int16_t> in(h * w * c, 5), out(in.size(), -1);
  for (int shift : {0, 3}) {
    grid_mask_cpu(make_grid_mask_sample(out.data(), in.data(), h, w, c, 6, 0.5f, 0.0f,
                                        static_cast<float>(shift), 0.0f),
                  sizeof(int16_t));
    for (int64_t y = 0; y < h; ++y) {
      for (int64_t x = 0; x < w; ++x) {
        const bool black = (x - shift + 600) % 6 < 3 && y % 6 < 3;
        for (int64_t k = 0; k < c; ++k) {
          ASSERT_EQ(out[(y * w + x) * c + k], black ? 0 : 5) << y << "," << x << " shift " << shift;
        }
      }
    }
  }
}

TEST(GridMaskCpu, RotatedGridMatchesDoublePrecisionAwayFromEdges) {
  std::mt19937 gen(4);
  const int64_t h = 61, w = 47;
  std::vector<uint8_t> in(h * w, 200), out(in.size());
  for (int trial = 0; trial < 20; ++trial) {
    const int tile = 5 + static_cast<int>(gen() % 40);
    const float ratio = std::uniform_real_distribution<float>(0.1f, 0.9f)(gen);
    const float angle = std::uniform_real_distribution<float>(-3.2f, 3.2f)(gen);
    const float sx = std::uniform_real_distribution<float>(-50, 50)(gen);
    const float sy = std::uniform_real_distribution<float>(-50, 50)(gen);
    grid_mask_cpu(make_grid_mask_sample(out.data(), in.data(), h, w, 1, tile, ratio, angle, sx, sy),
                  1);
    int checked = 0;
    for (int64_t y = 0; y < h; ++y) {
      for (int64_t x = 0; x < w; ++x) {
        const double fx = (x * std::cos(angle) - y * std::sin(angle) - sx) / tile;
        const double fy = (x * std::sin(angle) + y * std::cos(angle) - sy) / tile;
        const double rx = fx - std::floor(fx), ry = fy - std::floor(fy);
        auto near = [&](double r) {
          return std::abs(r - ratio) < 1e-4 || r < 1e-4 || r > 1 - 1e-4;
        };
        if (near(rx) || near(ry)) continue;
        ++checked;
        ASSERT_EQ(out[y * w + x], (rx >= ratio || ry >= ratio) ? 200 : 0)
            << "trial " << trial << " at " << y << "," << x;
      }
    }
    EXPECT_GT(checked, h * w * 9 / 10);
  }
}

}  // namespace
}  // namespace sluice::kernels
