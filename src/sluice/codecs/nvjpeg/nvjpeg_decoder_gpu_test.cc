// NvjpegDecoder against libjpeg-turbo on real files: every JPEG variant and photo at hardware
// loads 0, 0.5 and 1; ROI decodes against crops of full decodes; RGB / BGR / GRAY outputs.
// Every test prints one line per file (route, size, diffs) so a failure can be read from the log.

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "sluice/codecs/nvjpeg/nvjpeg_decoder.h"
#include "sluice/codecs/nvjpeg/nvjpeg_test_util.h"
#include "sluice/cuda/cuda_api.h"
#include "sluice/parallel/thread_pool.h"
#include "sluice/testing/test_data.h"

namespace sluice::nvjpeg {
namespace {

using test::Diff;
using test::Job;
using test::RefImage;
namespace fs = std::filesystem;

#define SLUICE_REQUIRE_GPU() \
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device"

struct TestImage {
  std::string name;  // relative to the data folder
  std::vector<uint8_t> data;
  RefImage header;  // libjpeg header only: the size the destination is allocated for
  RefImage plain;   // RGB, chroma replicated (do_fancy_upsampling = FALSE)
  RefImage fancy;   // RGB, libjpeg's default triangle upsampling
  RefImage gray;    // JCS_GRAYSCALE
};

// Loaded once per process: the references cost more than the GPU decodes.
const std::vector<TestImage>& test_images(const fs::path& data) {
  static const std::vector<TestImage> images = [&] {
    std::vector<TestImage> out;
    auto add = [&](const fs::path& p) {
      TestImage t;
      t.name = fs::relative(p, data).string();
      t.data = test::read_file(p);
      t.header = test::libjpeg_decode(t.data, JCS_RGB, false, /*header_only=*/true);
      t.plain = test::libjpeg_decode(t.data, JCS_RGB, /*fancy=*/false);
      t.fancy = test::libjpeg_decode(t.data, JCS_RGB, /*fancy=*/true);
      t.gray = test::libjpeg_decode(t.data, JCS_GRAYSCALE, false);
      out.push_back(std::move(t));
    };
    for (const auto& p : test::list_files(data / "jpeg_variants", true)) add(p);
    for (const auto& p : test::list_files(data / "photos", true)) add(p);
    return out;
  }();
  return images;
}

// Files nvJPEG may legitimately leave to the CPU codec (arithmetic coding, 12-bit, lossless,
// RGB / CMYK / YCCK colour, rare subsamplings, SOF1 with 16-bit tables, odd sizes). Every other
// file must be decoded on the GPU, so that a decoder that falls back on everything fails.
bool gpu_may_decline(const std::string& name) {
  for (const char* k : {"arithmetic", "12bit", "12b_", "lossless", "cmyk", "ycck", "rgb_colorspace",
                        "_410", "_411", "luma2x4", "sampling2x2", "sof1", "odd_size/"}) {
    if (name.find(k) != std::string::npos) return true;
  }
  return false;
}

Job full_job(const TestImage& t) {
  Job j;
  j.data = &t.data;
  if (t.header.ok()) {
    j.out_w = t.header.width;
    j.out_h = t.header.height;
  }
  return j;
}

std::string diff_text(const Diff& d) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "mean %.3f max %3d", d.mean, d.max);
  return buf;
}

bool within_bounds(const Diff& d) {
  return d.mean < test::kMaxMeanDiff && d.max <= test::kMaxAbsDiff;
}

bool device_has_jpeg_engines() {
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) return false;
  std::string name = prop.name;
  return name.find("H100") != std::string::npos || name.find("H200") != std::string::npos ||
         name.find("A100") != std::string::npos;
}

std::unique_ptr<ThreadPool> make_pool() {
  int n = std::max(2, std::min(8, static_cast<int>(std::thread::hardware_concurrency())));
  return std::make_unique<ThreadPool>(n, std::vector<int>{}, 0);
}

NvjpegDecoderOptions options_for(const ThreadPool& pool, float load) {
  NvjpegDecoderOptions o;
  o.device = 0;
  o.num_thread_states = pool.num_slots();
  o.hw_decoder_load = load;
  return o;
}

class NvjpegLoadTest : public ::testing::TestWithParam<float> {};

TEST_P(NvjpegLoadTest, MatchesLibjpegOnEveryVariantAndPhoto) {
  SLUICE_REQUIRE_GPU();
  SLUICE_REQUIRE_SHARED_DATA(data);
  const float load = GetParam();
  const auto& images = test_images(data);
  auto pool = make_pool();
  NvjpegDecoder decoder(options_for(*pool, load));
  std::printf("hw_decoder_load %.2f: hardware decoder %s; pool of %d threads; %zu files\n", load,
              decoder.hardware_status().c_str(), pool->num_threads(), images.size());
  if (load > 0 && device_has_jpeg_engines()) {
    EXPECT_TRUE(decoder.hardware_enabled())
        << "this GPU has JPEG engines: " << decoder.hardware_status();
  }

  std::vector<Job> jobs;
  for (const TestImage& t : images) jobs.push_back(full_job(t));
  cuda::Stream stream(0);
  const NvjpegDecoderStats before = decoder.stats();
  test::BatchOutput out = test::run_batch(decoder, *pool, stream, jobs, OutputColor::kRGB);
  EXPECT_TRUE(test::stats_match(before, decoder.stats(), out.results));

  std::map<DecodeRoute, int> routes;
  int decodable = 0;
  for (size_t i = 0; i < images.size(); ++i) {
    const TestImage& t = images[i];
    const DecodeResult& r = out.results[i];
    ++routes[r.route];
    std::string line = make_string("[load ", load, "] ", route_name(r.route), "\t", t.name, "  ",
                                   r.width, "x", r.height, "x", r.components, " ", r.subsampling,
                                   r.progressive ? " progressive" : "");
    if (!r.decoded()) {
      std::printf("%s | %s | libjpeg: %s\n", line.c_str(), r.message.c_str(),
                  t.plain.ok() ? "decodes it" : t.plain.error.c_str());
      EXPECT_TRUE(gpu_may_decline(t.name)) << t.name << " should decode on the GPU but went "
                                           << route_name(r.route) << ": " << r.message;
      EXPECT_EQ(r.route, DecodeRoute::kFallback) << t.name << ": " << r.message;
      continue;
    }
    ++decodable;
    if (!t.plain.ok()) {
      ADD_FAILURE() << t.name << ": nvJPEG decoded a file libjpeg rejects (" << t.plain.error
                    << ")";
      continue;
    }
    ASSERT_EQ(r.width, t.plain.width) << t.name;
    ASSERT_EQ(r.height, t.plain.height) << t.name;
    const size_t n = size_t(t.plain.width) * t.plain.height * 3;
    ASSERT_EQ(out.pixels[i].size(), n) << t.name;
    Diff plain = test::diff(out.pixels[i].data(), t.plain.pixels.data(), n);
    Diff fancy = test::diff(out.pixels[i].data(), t.fancy.pixels.data(), n);
    // nvJPEG's CUDA decoders replicate chroma (NVJPEG_FLAGS_UPSAMPLING_WITH_INTERPOLATION is
    // not set), so hybrid outputs must match libjpeg's plain upsampling. The hardware engines'
    // rule is not documented: a match with either rule is a correct decode there.
    const bool hw = r.route == DecodeRoute::kHardware;
    const bool ok = within_bounds(plain) || (hw && within_bounds(fancy));
    const char* verdict = within_bounds(plain) ? "OK (plain)" : ok ? "OK (fancy)" : "MISMATCH";
    std::printf("%s | vs libjpeg plain %s | fancy %s | %s\n", line.c_str(),
                diff_text(plain).c_str(), diff_text(fancy).c_str(), verdict);
    EXPECT_TRUE(ok) << t.name << " (" << route_name(r.route) << "): plain " << diff_text(plain)
                    << ", fancy " << diff_text(fancy) << "; bounds mean < " << test::kMaxMeanDiff
                    << ", max <= " << test::kMaxAbsDiff << (hw ? " (either rule)" : " (plain)");
  }
  std::printf(
      "[load %.2f] routes: hw %d, hybrid %d, gpu-hybrid %d, fallback %d, error %d; "
      "hw_batch_size(%d) = %d; decode %.1f ms\n",
      load, routes[DecodeRoute::kHardware], routes[DecodeRoute::kHybrid],
      routes[DecodeRoute::kGpuHybrid], routes[DecodeRoute::kFallback], routes[DecodeRoute::kError],
      decodable, decoder.hw_batch_size(decodable), out.seconds * 1e3);
  EXPECT_EQ(routes[DecodeRoute::kError], 0);
  // The decoder sizes the hardware share on the samples that passed parsing, which include any
  // that failed later on the hybrid path: bound by the whole batch.
  EXPECT_LE(routes[DecodeRoute::kHardware], decoder.hw_batch_size(static_cast<int>(images.size())));
  if (load == 0.f || !decoder.hardware_enabled()) {
    EXPECT_EQ(routes[DecodeRoute::kHardware], 0);
  } else {
    EXPECT_GT(routes[DecodeRoute::kHardware], 0) << "no sample reached the hardware decoder";
  }
}

INSTANTIATE_TEST_SUITE_P(HwLoads, NvjpegLoadTest, ::testing::Values(0.0f, 0.5f, 1.0f),
                         [](const ::testing::TestParamInfo<float>& info) {
                           return make_string("load", static_cast<int>(info.param * 100));
                         });

// Note [Hardware set-up in the background]: the constructor returns before the hardware states
// exist; batches until then go hybrid, equal to libjpeg all the same; later ones use the engines.
TEST(NvjpegDecoderGpu, HardwareSetUpInTheBackgroundStartsOnTheHybridPath) {
  SLUICE_REQUIRE_GPU();
  SLUICE_REQUIRE_SHARED_DATA(data);
  std::vector<const TestImage*> photos;
  for (const TestImage& t : test_images(data)) {
    if (t.name.rfind("photos/", 0) == 0 && t.plain.ok()) photos.push_back(&t);
  }
  ASSERT_FALSE(photos.empty());
  std::vector<Job> jobs;
  for (const TestImage* t : photos) jobs.push_back(full_job(*t));
  auto pool = make_pool();
  cuda::Stream stream(0);
  NvjpegDecoderOptions o = options_for(*pool, 1.0f);
  o.hardware_setup_in_background = true;
  const auto t0 = std::chrono::steady_clock::now();
  NvjpegDecoder decoder(o);
  const double construct_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  auto check = [&](const test::BatchOutput& out) {
    int hw = 0;
    for (size_t i = 0; i < photos.size(); ++i) {
      const DecodeResult& r = out.results[i];
      if (!r.decoded()) {
        ADD_FAILURE() << photos[i]->name << ": " << r.message;
        continue;
      }
      hw += r.route == DecodeRoute::kHardware;
      const TestImage& t = *photos[i];
      Diff plain = test::diff(out.pixels[i].data(), t.plain.pixels.data(), out.pixels[i].size());
      Diff fancy = test::diff(out.pixels[i].data(), t.fancy.pixels.data(), out.pixels[i].size());
      EXPECT_TRUE(within_bounds(plain) ||
                  (r.route == DecodeRoute::kHardware && within_bounds(fancy)))
          << t.name << " (" << route_name(r.route) << "): " << diff_text(plain);
    }
    return hw;
  };
  const std::string status_at_start = decoder.hardware_status();
  const int first_hw = check(test::run_batch(decoder, *pool, stream, jobs, OutputColor::kRGB));
  std::printf("constructed in %.0f ms; hardware at start: %s; first batch: %d of %zu on hw\n",
              construct_ms, status_at_start.c_str(), first_hw, photos.size());
  if (!decoder.hardware_enabled()) GTEST_SKIP() << decoder.hardware_status();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  int hw = 0;
  while (hw == 0 && std::chrono::steady_clock::now() < deadline) {
    hw = check(test::run_batch(decoder, *pool, stream, jobs, OutputColor::kRGB));
  }
  EXPECT_GT(hw, 0) << "the hardware decoder was never used; " << decoder.hardware_status();
  EXPECT_EQ(decoder.hardware_status().find("being set up"), std::string::npos);
}

TEST(NvjpegDecoderGpu, RoiDecodesEqualCropsOfFullDecodes) {
  SLUICE_REQUIRE_GPU();
  SLUICE_REQUIRE_SHARED_DATA(data);
  const auto& images = test_images(data);
  std::vector<const TestImage*> files;
  for (const TestImage& t : images) {
    const std::string& n = t.name;
    bool pick = n.rfind("photos/", 0) == 0 || n.find("gen_coffee_444") != std::string::npos ||
                n.find("gen_coffee_422") != std::string::npos ||
                n.find("gen_coffee_420") != std::string::npos ||
                n.find("gen_coffee_440") != std::string::npos ||
                n.find("oddboth_1277x851") != std::string::npos ||
                n.find("gen_coffee_progressive_420") != std::string::npos ||
                n.find("color/gen_coffee_gray.jpg") != std::string::npos ||
                n.find("gen_coffee_17x9_420") != std::string::npos;
    if (pick && t.header.ok()) files.push_back(&t);
  }
  ASSERT_FALSE(files.empty());
  auto pool = make_pool();
  cuda::Stream stream(0);
  for (float load : {0.0f, 1.0f}) {
    NvjpegDecoder decoder(options_for(*pool, load));
    std::printf("ROI test, hw_decoder_load %.1f, hardware decoder %s\n", load,
                decoder.hardware_status().c_str());
    // Per file: the full image, then ROIs inside it, then (first file only) one outside it.
    std::vector<Job> jobs;
    std::vector<std::pair<size_t, size_t>> owner;  // job -> (file, index of its full job)
    for (size_t f = 0; f < files.size(); ++f) {
      const TestImage& t = *files[f];
      const int w = t.header.width, h = t.header.height;
      const size_t full = jobs.size();
      jobs.push_back(full_job(t));
      owner.push_back({f, full});
      std::vector<Roi> rois = {{w / 5, h / 7, std::max(1, w / 2), std::max(1, h / 3)},
                               {0, h / 2, w, 1},
                               {w - 1, 0, 1, h}};
      if (w >= 3 && h >= 4) rois.push_back({w - w / 3, h - h / 4, w / 3, h / 4});
      for (const Roi& r : rois) {
        Job j;
        j.data = &t.data;
        j.roi = r;
        j.out_w = r.w;
        j.out_h = r.h;
        jobs.push_back(j);
        owner.push_back({f, full});
      }
    }
    const size_t invalid = jobs.size();
    {
      const TestImage& t = *files[0];
      Job j;
      j.data = &t.data;
      j.roi = Roi{t.header.width - 1, 0, 2, 1};  // one column past the right edge
      j.out_w = 2;
      j.out_h = 1;
      jobs.push_back(j);
    }
    const NvjpegDecoderStats before = decoder.stats();
    test::BatchOutput out = test::run_batch(decoder, *pool, stream, jobs, OutputColor::kRGB);
    EXPECT_TRUE(test::stats_match(before, decoder.stats(), out.results));
    EXPECT_EQ(out.results[invalid].route, DecodeRoute::kError) << out.results[invalid].message;
    std::printf("  outside ROI -> %s: %s\n",
                std::string(route_name(out.results[invalid].route)).c_str(),
                out.results[invalid].message.c_str());

    for (size_t k = 0; k < invalid; ++k) {
      if (!jobs[k].roi) continue;
      const TestImage& t = *files[owner[k].first];
      const DecodeResult& full = out.results[owner[k].second];
      const DecodeResult& roi = out.results[k];
      const Roi& r = *jobs[k].roi;
      std::string head =
          make_string("  [load ", load, "] ", t.name, " roi {", r.x, ",", r.y, ",", r.w, ",", r.h,
                      "}: full ", route_name(full.route), ", roi ", route_name(roi.route));
      if (!full.decoded()) {
        std::printf("%s | full image not decoded (%s): skipped\n", head.c_str(),
                    full.message.c_str());
        continue;
      }
      EXPECT_TRUE(roi.decoded()) << head << ": " << roi.message;
      if (!roi.decoded()) continue;
      std::vector<uint8_t> want = test::crop(out.pixels[owner[k].second], t.header.width, 3, r);
      Diff d = test::diff(out.pixels[k].data(), want.data(), want.size());
      // Exact when both took the same decoder; across decoders (hardware vs hybrid, or CPU vs
      // GPU Huffman when the ROI's size falls below hybrid_huffman_threshold) the IDCTs may
      // round differently.
      bool exact_expected = full.route == roi.route;
      std::printf("%s | vs crop %s%s\n", head.c_str(), diff_text(d).c_str(),
                  exact_expected ? "" : " (different decoders: tolerance)");
      if (exact_expected) {
        EXPECT_EQ(d.max, 0) << head;
      } else {
        EXPECT_TRUE(within_bounds(d)) << head << ": " << diff_text(d);
      }
    }
  }
}

TEST(NvjpegDecoderGpu, RgbBgrAndGrayOutputs) {
  SLUICE_REQUIRE_GPU();
  SLUICE_REQUIRE_SHARED_DATA(data);
  const auto& images = test_images(data);
  std::vector<const TestImage*> files;
  for (const TestImage& t : images) {
    bool pick = (t.name.rfind("photos/", 0) == 0 && files.size() < 6) ||
                t.name.find("gen_coffee_422.jpg") != std::string::npos ||
                t.name.find("color/gen_coffee_gray.jpg") != std::string::npos;
    if (pick && t.header.ok()) files.push_back(&t);
  }
  auto pool = make_pool();
  cuda::Stream stream(0);
  for (float load : {0.0f, 1.0f}) {
    NvjpegDecoder decoder(options_for(*pool, load));
    std::vector<Job> jobs;
    for (const TestImage* t : files) jobs.push_back(full_job(*t));
    test::BatchOutput rgb = test::run_batch(decoder, *pool, stream, jobs, OutputColor::kRGB);
    test::BatchOutput bgr = test::run_batch(decoder, *pool, stream, jobs, OutputColor::kBGR);
    test::BatchOutput gray = test::run_batch(decoder, *pool, stream, jobs, OutputColor::kGray);
    for (size_t i = 0; i < files.size(); ++i) {
      const TestImage& t = *files[i];
      std::printf("[load %.1f] %s: rgb %s, bgr %s, gray %s", load, t.name.c_str(),
                  std::string(route_name(rgb.results[i].route)).c_str(),
                  std::string(route_name(bgr.results[i].route)).c_str(),
                  std::string(route_name(gray.results[i].route)).c_str());
      ASSERT_TRUE(rgb.results[i].decoded()) << t.name << ": " << rgb.results[i].message;
      ASSERT_TRUE(bgr.results[i].decoded()) << t.name << ": " << bgr.results[i].message;
      ASSERT_TRUE(gray.results[i].decoded()) << t.name << ": " << gray.results[i].message;
      // BGR is RGB with channels swapped; exact when both took the same decoder.
      std::vector<uint8_t> swapped = rgb.pixels[i];
      for (size_t p = 0; p + 2 < swapped.size(); p += 3) std::swap(swapped[p], swapped[p + 2]);
      Diff dbgr = test::diff(bgr.pixels[i].data(), swapped.data(), swapped.size());
      ASSERT_TRUE(t.gray.ok()) << t.gray.error;
      ASSERT_EQ(gray.pixels[i].size(), t.gray.pixels.size());
      Diff dgray = test::diff(gray.pixels[i].data(), t.gray.pixels.data(), t.gray.pixels.size());
      std::printf(" | bgr vs swapped rgb %s | gray vs libjpeg %s\n", diff_text(dbgr).c_str(),
                  diff_text(dgray).c_str());
      if (rgb.results[i].route == bgr.results[i].route) {
        EXPECT_EQ(dbgr.max, 0) << t.name;
      } else {
        EXPECT_TRUE(within_bounds(dbgr)) << t.name;
      }
      EXPECT_TRUE(within_bounds(dgray)) << t.name << ": " << diff_text(dgray);
    }
  }
}

// Two hardware lanes split the hardware sub-batch between two submitting threads, each with a
// handle and state of its own: the pixels and routes equal one lane's, and neither lane's half is
// rejected (a rejected half would be re-decoded on the hybrid path and pass unseen otherwise).
TEST(NvjpegDecoderGpu, TwoHardwareLanesDecodeLikeOne) {
  SLUICE_REQUIRE_GPU();
  SLUICE_REQUIRE_SHARED_DATA(data);
  if (!device_has_jpeg_engines()) GTEST_SKIP() << "no hardware JPEG decoder";
  std::vector<Job> jobs;
  std::vector<std::string> names;
  for (const TestImage& t : test_images(data)) {
    if (!t.header.ok()) continue;
    jobs.push_back(full_job(t));
    names.push_back(t.name);
    const int w = t.header.width, h = t.header.height;
    Job roi = full_job(t);
    roi.roi = Roi{w / 4, h / 5, std::max(1, w / 2), std::max(1, h / 2)};
    roi.out_w = roi.roi->w;
    roi.out_h = roi.roi->h;
    jobs.push_back(roi);
    names.push_back(t.name + " (roi)");
  }
  auto pool = make_pool();
  cuda::Stream stream(0);
  std::vector<test::BatchOutput> one_lane;  // batches 1 and 2
  for (int lanes : {1, 2}) {
    NvjpegDecoderOptions o = options_for(*pool, 1.0f);
    o.hardware_lanes = lanes;
    NvjpegDecoder decoder(o);
    ASSERT_TRUE(decoder.hardware_enabled()) << decoder.hardware_status();
    for (int b = 0; b < 2; ++b) {
      const NvjpegDecoderStats before = decoder.stats();
      test::BatchOutput out = test::run_batch(decoder, *pool, stream, jobs, OutputColor::kRGB);
      const NvjpegDecoderStats after = decoder.stats();
      EXPECT_TRUE(test::stats_match(before, after, out.results));
      std::printf("%d lane(s), batch %d: %s\n", lanes, b, test::stats_line(after).c_str());
      EXPECT_GT(after.hardware, before.hardware);
      EXPECT_EQ(after.hardware_batch_failures, 0u) << after.last_hardware_failure;
      if (lanes == 1) {
        one_lane.push_back(std::move(out));
        continue;
      }
      for (size_t i = 0; i < jobs.size(); ++i) {
        const DecodeResult& want = one_lane[b].results[i];
        EXPECT_EQ(out.results[i].route, want.route) << names[i] << ": " << out.results[i].message;
        if (want.decoded() && out.results[i].route == want.route) {
          EXPECT_EQ(out.pixels[i], one_lane[b].pixels[i]) << names[i];
        }
      }
    }
  }
}

}  // namespace
}  // namespace sluice::nvjpeg
