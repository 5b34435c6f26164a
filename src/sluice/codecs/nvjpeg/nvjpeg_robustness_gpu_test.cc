// NvjpegDecoder on bad inputs, repeated batches, GPU Huffman selection, hardware batch sizing
// and argument checks. Per-file lines in the log say what each sample did.

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "sluice/codecs/nvjpeg/nvjpeg_allocator.h"
#include "sluice/codecs/nvjpeg/nvjpeg_decoder.h"
#include "sluice/codecs/nvjpeg/nvjpeg_test_util.h"
#include "sluice/core/error.h"
#include "sluice/cuda/cuda_api.h"
#include "sluice/cuda/cuda_check.h"
#include "sluice/parallel/thread_pool.h"
#include "sluice/testing/test_data.h"

namespace sluice::nvjpeg {
namespace {

namespace fs = std::filesystem;
using test::Diff;
using test::Job;
using test::RefImage;

#define SLUICE_REQUIRE_GPU() \
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device"

struct Photo {
  std::string name;
  std::vector<uint8_t> data;
  RefImage plain;
  RefImage fancy;
};

const std::vector<Photo>& photos(const fs::path& data) {
  static const std::vector<Photo> all = [&] {
    std::vector<Photo> out;
    for (const auto& p : test::list_files(data / "photos", /*jpeg_only=*/true)) {
      Photo ph;
      ph.name = p.filename().string();
      ph.data = test::read_file(p);
      ph.plain = test::libjpeg_decode(ph.data, JCS_RGB, false);
      ph.fancy = test::libjpeg_decode(ph.data, JCS_RGB, true);
      out.push_back(std::move(ph));
    }
    return out;
  }();
  return all;
}

Job photo_job(const Photo& p) {
  Job j;
  j.data = &p.data;
  j.out_w = p.plain.width;
  j.out_h = p.plain.height;
  return j;
}

// `n` jobs cycling through the photos, and which photo each one is.
struct PhotoBatch {
  std::vector<Job> jobs;
  std::vector<const Photo*> which;
};
PhotoBatch photo_batch(const std::vector<Photo>& all, int n) {
  PhotoBatch b;
  for (int i = 0; i < n; ++i) {
    b.which.push_back(&all[i % all.size()]);
    b.jobs.push_back(photo_job(*b.which.back()));
  }
  return b;
}

bool within_bounds(const Diff& d) {
  return d.mean < test::kMaxMeanDiff && d.max <= test::kMaxAbsDiff;
}

// Checks a decoded photo against libjpeg.
::testing::AssertionResult matches_reference(const Photo& p, const DecodeResult& r,
                                             const std::vector<uint8_t>& pixels) {
  if (!r.decoded()) {
    return ::testing::AssertionFailure()
           << p.name << " not decoded: " << route_name(r.route) << ": " << r.message;
  }
  if (pixels.size() != p.plain.pixels.size()) {
    return ::testing::AssertionFailure() << p.name << ": output size " << pixels.size();
  }
  Diff a = test::diff(pixels.data(), p.plain.pixels.data(), pixels.size());
  Diff b = test::diff(pixels.data(), p.fancy.pixels.data(), pixels.size());
  // Hybrid routes replicate chroma like libjpeg's plain upsampling; the hardware engines' rule
  // is undocumented, so either rule is accepted there (see nvjpeg_decoder_gpu_test.cc).
  if (within_bounds(a) || (r.route == DecodeRoute::kHardware && within_bounds(b))) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure()
         << p.name << " (" << route_name(r.route) << ") differs from libjpeg: plain mean " << a.mean
         << " max " << a.max << ", fancy mean " << b.mean << " max " << b.max;
}

std::unique_ptr<ThreadPool> make_pool() {
  int n = std::max(2, std::min(8, static_cast<int>(std::thread::hardware_concurrency())));
  return std::make_unique<ThreadPool>(n, std::vector<int>{}, 0);
}

NvjpegDecoderOptions options_for(const ThreadPool& pool, float load, int max_batch_size = 256) {
  NvjpegDecoderOptions o;
  o.num_thread_states = pool.num_slots();
  o.hw_decoder_load = load;
  o.max_batch_size = max_batch_size;
  return o;
}

std::string routes_text(const std::vector<DecodeResult>& results) {
  std::map<DecodeRoute, int> n;
  for (const DecodeResult& r : results) ++n[r.route];
  return make_string("hw ", n[DecodeRoute::kHardware], ", hybrid ", n[DecodeRoute::kHybrid],
                     ", gpu-hybrid ", n[DecodeRoute::kGpuHybrid], ", fallback ",
                     n[DecodeRoute::kFallback], ", error ", n[DecodeRoute::kError]);
}

int count_route(const std::vector<DecodeResult>& results, DecodeRoute route) {
  int n = 0;
  for (const DecodeResult& r : results) n += r.route == route;
  return n;
}

TEST(NvjpegRobustness, BadFilesAreReportedPerSampleAndNeverBreakTheBatch) {
  SLUICE_REQUIRE_GPU();
  SLUICE_REQUIRE_SHARED_DATA(data);
  const auto& good = photos(data);
  ASSERT_GE(good.size(), 2u);
  struct BadFile {
    std::string name;
    std::vector<uint8_t> data;
    RefImage ref;  // libjpeg, plain upsampling: what the CPU fallback would do
  };
  std::vector<BadFile> bad;
  for (const auto& p : test::list_files(data / "bad", /*jpeg_only=*/false)) {
    BadFile b;
    b.name = fs::relative(p, data).string();
    b.data = test::read_file(p);
    b.ref = test::libjpeg_decode(b.data, JCS_RGB, false);
    bad.push_back(std::move(b));
  }
  auto pool = make_pool();
  cuda::Stream stream(0);
  for (float load : {0.0f, 0.5f, 1.0f}) {
    NvjpegDecoder decoder(options_for(*pool, load));
    // A good photo first and last: bad neighbours must not spoil them.
    std::vector<Job> jobs = {photo_job(good[0])};
    for (const BadFile& b : bad) {
      Job j;
      j.data = &b.data;
      RefImage header = test::libjpeg_decode(b.data, JCS_RGB, false, /*header_only=*/true);
      if (header.ok()) {  // else a 1-byte destination: nothing may be written past it
        j.out_w = header.width;
        j.out_h = header.height;
      }
      jobs.push_back(j);
    }
    jobs.push_back(photo_job(good[1]));

    const NvjpegDecoderStats before = decoder.stats();
    test::BatchOutput out = test::run_batch(decoder, *pool, stream, jobs, OutputColor::kRGB);
    EXPECT_TRUE(test::stats_match(before, decoder.stats(), out.results));
    EXPECT_TRUE(matches_reference(good[0], out.results.front(), out.pixels.front()));
    EXPECT_TRUE(matches_reference(good[1], out.results.back(), out.pixels.back()));
    for (size_t k = 0; k < bad.size(); ++k) {
      const BadFile& b = bad[k];
      const DecodeResult& r = out.results[k + 1];
      std::string libjpeg = b.ref.ok() ? make_string("image, ", b.ref.warnings, " warning(s)")
                                       : make_string("error: ", b.ref.error);
      std::printf("[load %.1f] %-10s %-50s | %s | libjpeg: %s\n", load,
                  std::string(route_name(r.route)).c_str(), b.name.c_str(),
                  r.decoded() ? make_string(r.width, "x", r.height).c_str() : r.message.c_str(),
                  libjpeg.c_str());
      const bool is_jpeg = b.data.size() >= 2 && b.data[0] == 0xFF && b.data[1] == 0xD8;
      if (!is_jpeg) {
        EXPECT_EQ(r.route, DecodeRoute::kFallback) << b.name << ": non-JPEG data goes to the CPU "
                                                   << "codec; got " << r.message;
      }
      if (r.decoded()) {
        // Corrupt data may decode (libjpeg too produces an image with a warning), but nvJPEG
        // must not accept what the CPU codec would refuse.
        EXPECT_TRUE(b.ref.ok()) << b.name << " decoded by nvJPEG (" << route_name(r.route)
                                << ") but libjpeg refuses it: " << b.ref.error;
        if (b.ref.ok() && out.pixels[k + 1].size() == b.ref.pixels.size()) {
          Diff d = test::diff(out.pixels[k + 1].data(), b.ref.pixels.data(), b.ref.pixels.size());
          std::printf("    decoded corrupt file vs libjpeg: mean %.3f max %d (not checked)\n",
                      d.mean, d.max);
        }
      } else {
        EXPECT_FALSE(r.message.empty()) << b.name;
      }
    }
    std::printf("[load %.1f] bad batch routes: %s\n", load, routes_text(out.results).c_str());

    // The decoder is still healthy: a clean batch right after decodes correctly.
    std::vector<Job> clean;
    for (const Photo& p : good) clean.push_back(photo_job(p));
    test::BatchOutput again = test::run_batch(decoder, *pool, stream, clean, OutputColor::kRGB);
    for (size_t i = 0; i < good.size(); ++i) {
      EXPECT_TRUE(matches_reference(good[i], again.results[i], again.pixels[i]));
    }
    std::printf("[load %.1f] clean batch after it: %s; %s\n", load,
                routes_text(again.results).c_str(), test::stats_line(decoder.stats()).c_str());
  }
}

TEST(NvjpegRobustness, RepeatedBatchesOf64Photos) {
  SLUICE_REQUIRE_GPU();
  SLUICE_REQUIRE_SHARED_DATA(data);
  const auto& good = photos(data);
  ASSERT_FALSE(good.empty());
  auto pool = make_pool();
  cuda::Stream stream(0);
  const auto [jobs, which] = photo_batch(good, 64);
  for (float load : {0.0f, 1.0f}) {
    NvjpegDecoder decoder(options_for(*pool, load, 64));
    std::printf("64-photo batches, hw_decoder_load %.0f, hardware %s, pool %d threads\n", load,
                decoder.hardware_status().c_str(), pool->num_threads());
    for (int iter = 0; iter < 4; ++iter) {
      const NvjpegAllocatorStats a0 = nvjpeg_allocator_stats();
      const NvjpegDecoderStats s0 = decoder.stats();
      test::BatchOutput out = test::run_batch(decoder, *pool, stream, jobs, OutputColor::kRGB);
      const NvjpegAllocatorStats a1 = nvjpeg_allocator_stats();
      EXPECT_TRUE(test::stats_match(s0, decoder.stats(), out.results));
      for (size_t i = 0; i < jobs.size(); ++i) {
        EXPECT_TRUE(matches_reference(*which[i], out.results[i], out.pixels[i]))
            << "iteration " << iter << ", sample " << i;
      }
      std::printf(
          "  iteration %d: %.1f ms; %s; nvJPEG allocator calls: device +%llu/-%llu, pinned "
          "+%llu/-%llu (held: %.1f MiB device, %.1f MiB pinned)\n",
          iter, out.seconds * 1e3, routes_text(out.results).c_str(),
          static_cast<unsigned long long>(a1.device_allocations - a0.device_allocations),
          static_cast<unsigned long long>(a1.device_frees - a0.device_frees),
          static_cast<unsigned long long>(a1.pinned_allocations - a0.pinned_allocations),
          static_cast<unsigned long long>(a1.pinned_frees - a0.pinned_frees),
          a1.device_bytes / 1048576.0, a1.pinned_bytes / 1048576.0);
      const int hw = count_route(out.results, DecodeRoute::kHardware);
      if (load == 0.f || !decoder.hardware_enabled()) {
        EXPECT_EQ(hw, 0);
      } else {
        EXPECT_GT(hw, 0);
        EXPECT_LE(hw, decoder.hw_batch_size(64));
      }
    }
    std::printf("  %s\n", test::stats_line(decoder.stats()).c_str());
  }
}

// nvJPEG's batched hardware decoder writes its outputs when it is called, ignoring work queued
// before it on its stream or waited for through cudaStreamWaitEvent (reported on H100 for nvJPEG
// 12.3 to 13.2: torchcodec pull request 1634). decode() must still keep the order of `stream`:
// here the stream sleeps on the host, then copies the destinations; that copy must see none of
// the decoded pixels, and a copy queued after decode() must see all of them.
TEST(NvjpegRobustness, WritesFollowWorkQueuedBeforeDecode) {
  SLUICE_REQUIRE_GPU();
  SLUICE_REQUIRE_SHARED_DATA(data);
  const auto& good = photos(data);
  ASSERT_FALSE(good.empty());
  auto pool = make_pool();
  cuda::Stream stream(0);
  const auto [jobs, which] = photo_batch(good, 32);
  auto hold = [](cuda::StreamHandle s) {
    SLUICE_CUDA_CHECK(cudaLaunchHostFunc(
        static_cast<cudaStream_t>(s),
        [](void*) { std::this_thread::sleep_for(std::chrono::milliseconds(300)); }, nullptr));
  };
  for (float load : {0.0f, 1.0f}) {
    NvjpegDecoder decoder(options_for(*pool, load, 32));
    for (int iter = 0; iter < 3; ++iter) {
      test::BatchOutput out =
          test::run_batch(decoder, *pool, stream, jobs, OutputColor::kRGB, hold);
      const auto written =
          std::count_if(out.before.begin(), out.before.end(), [](uint8_t b) { return b != 0xA5; });
      std::printf("load %.0f, iteration %d: %.1f ms; %s; %lld of %zu bytes written too early\n",
                  load, iter, out.seconds * 1e3, routes_text(out.results).c_str(),
                  static_cast<long long>(written), out.before.size());
      EXPECT_EQ(written, 0) << "decode() wrote before the work queued ahead of it had run";
      for (size_t i = 0; i < jobs.size(); ++i) {
        EXPECT_TRUE(matches_reference(*which[i], out.results[i], out.pixels[i]))
            << "iteration " << iter << ", sample " << i;
      }
      if (load > 0 && decoder.hardware_enabled()) {
        EXPECT_GT(count_route(out.results, DecodeRoute::kHardware), 0);
      }
    }
  }
}

TEST(NvjpegRobustness, HybridHuffmanThresholdSelectsGpuHuffman) {
  SLUICE_REQUIRE_GPU();
  SLUICE_REQUIRE_SHARED_DATA(data);
  const auto& good = photos(data);
  auto pool = make_pool();
  cuda::Stream stream(0);
  std::vector<Job> jobs;
  for (const Photo& p : good) jobs.push_back(photo_job(p));
  for (int64_t threshold : {int64_t(0), std::numeric_limits<int64_t>::max()}) {
    NvjpegDecoderOptions o = options_for(*pool, 0.f);
    o.hybrid_huffman_threshold = threshold;
    NvjpegDecoder decoder(o);
    test::BatchOutput out = test::run_batch(decoder, *pool, stream, jobs, OutputColor::kRGB);
    for (size_t i = 0; i < good.size(); ++i) {
      const DecodeResult& r = out.results[i];
      std::printf("threshold %lld: %-12s %s%s\n", static_cast<long long>(threshold),
                  std::string(route_name(r.route)).c_str(), good[i].name.c_str(),
                  r.progressive ? " (progressive)" : "");
      EXPECT_TRUE(matches_reference(good[i], r, out.pixels[i]));
      if (r.progressive || threshold > 0) EXPECT_NE(r.route, DecodeRoute::kGpuHybrid);
    }
    if (threshold == 0) {
      EXPECT_GT(count_route(out.results, DecodeRoute::kGpuHybrid), 0)
          << "no baseline photo took GPU Huffman decoding with threshold 0";
    }
  }
}

TEST(NvjpegRobustness, HardwareBatchSizeFollowsLoadAndEngineCores) {
  SLUICE_REQUIRE_GPU();
  for (float load : {0.12f, 0.5f, 0.65f, 0.9f, 1.0f}) {
    NvjpegDecoderOptions o;
    o.hw_decoder_load = load;
    NvjpegDecoder decoder(o);
    const int cores = decoder.hardware_cores_per_engine();
    std::printf("load %.2f: hardware %s; hw_batch_size(64) = %d, (256) = %d\n", load,
                decoder.hardware_status().c_str(), decoder.hw_batch_size(64),
                decoder.hw_batch_size(256));
    for (int n = 0; n <= 300; ++n) {
      const int b = decoder.hw_batch_size(n);
      if (!decoder.hardware_enabled()) {
        EXPECT_EQ(b, 0);
        continue;
      }
      EXPECT_LE(b, n);
      // The decoder keeps the load as a float: round what it rounds.
      const double f = static_cast<float>(load);
      EXPECT_GE(b, std::min<int>(n, static_cast<int>(std::lround(f * n)))) << n;
      EXPECT_TRUE(b == n || b % cores == 0) << "n " << n << " -> " << b << ", cores " << cores;
    }
  }
}

TEST(NvjpegRobustness, RejectsBadArgumentsAndReportsCallerMistakesPerSample) {
  SLUICE_REQUIRE_GPU();
  SLUICE_REQUIRE_SHARED_DATA(data);
  const auto& good = photos(data);
  ThreadPool pool(2, {}, 0);
  cuda::Stream stream(0);
  NvjpegDecoderOptions o;
  o.num_thread_states = 1;  // fewer than the pool's threads
  NvjpegDecoder small(o);
  std::vector<DecodeRequest> none;
  std::vector<DecodeResult> no_results;
  std::vector<DecodeRequest> one(1);
  std::vector<DecodeResult> one_result(1);
  EXPECT_THROW(small.decode(one, OutputColor::kRGB, pool, stream.get(), one_result),
               InvalidArgument);

  NvjpegDecoder decoder(options_for(pool, 0.9f));
  EXPECT_NO_THROW(decoder.decode(none, OutputColor::kRGB, pool, stream.get(), no_results));
  EXPECT_THROW(decoder.decode(one, OutputColor::kRGB, pool, stream.get(), no_results),
               InvalidArgument);
  EXPECT_THROW(decoder.decode(one, OutputColor::kRGB, pool, nullptr, one_result), InvalidArgument);

  // Caller mistakes are per-sample errors; the good sample between them still decodes.
  const Photo& p = good[0];
  std::vector<Job> jobs(4, photo_job(p));
  jobs[0].out_w = p.plain.width - 1;              // destination too small
  jobs[2].roi = Roi{0, 0, p.plain.width + 1, 1};  // ROI wider than the image
  jobs[3].roi = Roi{-1, 0, 2, 2};                 // negative offset
  jobs[2].out_w = p.plain.width + 1;
  jobs[2].out_h = 1;
  jobs[3].out_w = jobs[3].out_h = 2;
  test::BatchOutput out = test::run_batch(decoder, pool, stream, jobs, OutputColor::kRGB);
  for (int i : {0, 2, 3}) {
    std::printf("caller mistake %d -> %s: %s\n", i,
                std::string(route_name(out.results[i].route)).c_str(),
                out.results[i].message.c_str());
    EXPECT_EQ(out.results[i].route, DecodeRoute::kError);
  }
  EXPECT_TRUE(matches_reference(p, out.results[1], out.pixels[1]));
  // Nothing was written into the too-small destination.
  bool untouched = true;
  for (uint8_t v : out.pixels[0]) untouched = untouched && v == 0xA5;
  EXPECT_TRUE(untouched);
}

}  // namespace
}  // namespace sluice::nvjpeg
