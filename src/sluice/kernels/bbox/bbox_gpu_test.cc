// GPU tests (label gpu): the bounding-box kernels against their CPU versions on fresh random
// boxes, samples of mixed sizes (none, one, several blocks) into poisoned outputs. Bit-exact.

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "sluice/cuda/cuda_api.h"
#include "sluice/kernels/bbox/bbox.h"
#include "sluice/kernels/bbox/box_encoder.h"
#include "sluice/kernels/common/gpu_test_util.h"

namespace sluice::kernels {
namespace {

class BboxGpu : public gpu_test::GpuTest {};

TEST_F(BboxGpu, FlipMatchesCpu) {
  const uint32_t seed = gpu_test::printed_test_seed();
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  const std::vector<int64_t> counts = {0, 1, 7, 129, 300, 2};
  int64_t total = 0, max_boxes = 0;
  for (auto c : counts) total += c, max_boxes = std::max(max_boxes, c);
  std::vector<float> in(4 * total);
  for (auto& v : in) v = u(gen);
  for (bool ltrb : {false, true}) {
    std::vector<float> want(in.size(), NAN);
    gpu_test::DeviceBuffer d_in(in.size() * 4), d_out(in.size() * 4),
        d_desc(sizeof(BoxFlipSample) * counts.size());
    cuda::memcpy_async(d_in.get(), in.data(), in.size() * 4, nullptr);
    cuda::memset_async(d_out.get(), 0xFF, in.size() * 4, nullptr);
    std::vector<BoxFlipSample> desc;
    int64_t off = 0;
    for (size_t i = 0; i < counts.size(); ++i) {
      const bool h = i % 2, v = i / 2 % 2;
      bb_flip_cpu({in.data() + 4 * off, want.data() + 4 * off, counts[i], h, v}, ltrb);
      desc.push_back({static_cast<const float*>(d_in.get()) + 4 * off,
                      static_cast<float*>(d_out.get()) + 4 * off, counts[i], h, v});
      off += counts[i];
    }
    cuda::memcpy_async(d_desc.get(), desc.data(), sizeof(BoxFlipSample) * desc.size(), nullptr);
    bb_flip_gpu(static_cast<const BoxFlipSample*>(d_desc.get()), static_cast<int>(desc.size()),
                max_boxes, ltrb, nullptr);
    const auto got = gpu_test::download<float>(d_out.get(), in.size());
    ASSERT_TRUE(gpu_test::same_elements(got, want)) << "ltrb " << ltrb << " (seed " << seed << ")";
  }
}

// Random boxes against random anchors, samples with no boxes, a few and more than one shared-memory
// chunk (1024); with offsets the log may differ in its last bit, the matches not at all.
TEST_F(BboxGpu, BoxEncoderMatchesCpu) {
  const uint32_t seed = gpu_test::printed_test_seed();
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> u(0.0f, 0.7f), e(0.01f, 0.3f);
  auto random_box = [&](float* b) {
    b[0] = u(gen), b[1] = u(gen), b[2] = b[0] + e(gen), b[3] = b[1] + e(gen);
  };
  const int num_anchors = 700;
  std::vector<float> anchors(4 * num_anchors);
  for (int a = 0; a < num_anchors; ++a) random_box(&anchors[4 * a]);
  const std::vector<int> counts = {0, 3, 1500, 40};
  int total = 0;
  for (int c : counts) total += c;
  std::vector<float> boxes(4 * total);
  std::vector<int32_t> labels(total);
  for (int b = 0; b < total; ++b) random_box(&boxes[4 * b]), labels[b] = b + 1;
  for (bool offset : {false, true}) {
    BoxEncoderParams p{anchors.data(),           num_anchors, 0.4f, offset, {0.1f, 0, 0, 0.2f},
                       {0.1f, 0.1f, 0.2f, 0.2f}, 300.0f};
    const size_t out_n = counts.size() * num_anchors;
    std::vector<float> want(4 * out_n);
    std::vector<int32_t> want_labels(out_n);
    gpu_test::DeviceBuffer d_anchors(anchors.size() * 4), d_boxes(boxes.size() * 4),
        d_labels(labels.size() * 4), d_out(want.size() * 4), d_out_labels(out_n * 4),
        d_desc(sizeof(BoxEncoderSample) * counts.size());
    cuda::memcpy_async(d_anchors.get(), anchors.data(), anchors.size() * 4, nullptr);
    cuda::memcpy_async(d_boxes.get(), boxes.data(), boxes.size() * 4, nullptr);
    cuda::memcpy_async(d_labels.get(), labels.data(), labels.size() * 4, nullptr);
    cuda::memset_async(d_out.get(), 0xFF, want.size() * 4, nullptr);
    std::vector<BoxEncoderSample> desc;
    int off = 0;
    for (size_t i = 0; i < counts.size(); ++i) {
      std::vector<int> scratch(counts[i]);
      box_encoder_cpu(p,
                      {boxes.data() + 4 * off, labels.data() + off, counts[i],
                       want.data() + 4 * i * num_anchors, want_labels.data() + i * num_anchors},
                      scratch.data());
      desc.push_back({static_cast<const float*>(d_boxes.get()) + 4 * off,
                      static_cast<const int32_t*>(d_labels.get()) + off, counts[i],
                      static_cast<float*>(d_out.get()) + 4 * i * num_anchors,
                      static_cast<int32_t*>(d_out_labels.get()) + i * num_anchors});
      off += counts[i];
    }
    cuda::memcpy_async(d_desc.get(), desc.data(), sizeof(BoxEncoderSample) * desc.size(), nullptr);
    BoxEncoderParams dp = p;
    dp.anchors = static_cast<const float*>(d_anchors.get());
    box_encoder_gpu(dp, static_cast<const BoxEncoderSample*>(d_desc.get()),
                    static_cast<int>(desc.size()), nullptr);
    const auto got = gpu_test::download<float>(d_out.get(), want.size());
    const auto got_labels = gpu_test::download<int32_t>(d_out_labels.get(), out_n);
    ASSERT_TRUE(gpu_test::same_elements(got_labels, want_labels)) << "labels (seed " << seed << ")";
    for (size_t k = 0; k < got.size(); ++k) {
      ASSERT_NEAR(got[k], want[k], 1e-6f * (1 + std::fabs(want[k])))
          << "value " << k << " offset " << offset << " (seed " << seed << ")";
    }
  }
}

}  // namespace
}  // namespace sluice::kernels
