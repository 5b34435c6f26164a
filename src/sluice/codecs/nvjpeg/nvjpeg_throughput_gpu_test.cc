// Throughput of NvjpegDecoder for the lead to read: a 256-image batch of the JPEG photos
// (repeated), decoded 20 times after 2 warm-up batches, at several hardware loads, with the
// pool the size of the machine. It asserts that every sample decodes; the numbers are printed.

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "sluice/codecs/nvjpeg/nvjpeg_allocator.h"
#include "sluice/codecs/nvjpeg/nvjpeg_decoder.h"
#include "sluice/codecs/nvjpeg/nvjpeg_test_util.h"
#include "sluice/cuda/cuda_api.h"
#include "sluice/parallel/thread_pool.h"
#include "sluice/memory/buffer.h"
#include "sluice/testing/test_data.h"

namespace sluice::nvjpeg {
namespace {

constexpr int kBatch = 256;
constexpr int kWarmup = 2;
constexpr int kIterations = 20;

TEST(NvjpegThroughput, Batch256Repeated20Times) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device";
  SLUICE_REQUIRE_SHARED_DATA(data);
  std::vector<std::vector<uint8_t>> files;
  std::vector<std::pair<int, int>> sizes;
  for (const auto& p : test::list_files(data / "photos", /*jpeg_only=*/true)) {
    files.push_back(test::read_file(p));
    test::RefImage h = test::libjpeg_decode(files.back(), JCS_RGB, false, /*header_only=*/true);
    ASSERT_TRUE(h.ok()) << p << ": " << h.error;
    sizes.push_back({h.width, h.height});
  }
  ASSERT_FALSE(files.empty());

  // One device buffer for all outputs; requests reused across iterations.
  std::vector<DecodeRequest> requests(kBatch);
  std::vector<size_t> offsets(kBatch);
  size_t total = 0;
  double megapixels = 0;
  for (int i = 0; i < kBatch; ++i) {
    const int f = i % static_cast<int>(files.size());
    requests[i].data = files[f].data();
    requests[i].size = files[f].size();
    requests[i].dst_bytes = size_t(sizes[f].first) * sizes[f].second * 3;
    offsets[i] = total;
    total += (requests[i].dst_bytes + 255) / 256 * 256;
    megapixels += sizes[f].first * double(sizes[f].second) / 1e6;
  }
  cuda::Stream stream(0);
  Buffer out(MemoryKind::kDevice, 0);
  out.resize(total);
  out.set_stream(stream.get());
  for (int i = 0; i < kBatch; ++i) requests[i].dst = static_cast<uint8_t*>(out.data()) + offsets[i];

  const int threads = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  ThreadPool pool(threads, {}, 0);
  std::printf(
      "throughput: %d-image batches of %zu photos (%.1f MP per batch), %d warm-up + %d "
      "timed, %d pool threads\n",
      kBatch, files.size(), megapixels, kWarmup, kIterations, threads);
  std::vector<DecodeResult> results(kBatch);
  for (float load : {0.0f, 0.5f, 0.9f, 1.0f}) {
    NvjpegDecoderOptions o;
    o.num_thread_states = pool.num_slots();
    o.hw_decoder_load = load;
    o.max_batch_size = kBatch;
    NvjpegDecoder decoder(o);
    std::map<DecodeRoute, int> routes;
    int not_decoded = 0;
    std::string first_failure;
    auto run = [&] {
      decoder.decode(requests, OutputColor::kRGB, pool, stream.get(), results);
      for (const DecodeResult& r : results) {
        ++routes[r.route];
        if (!r.decoded() && not_decoded++ == 0) {
          first_failure = make_string(route_name(r.route), ": ", r.message);
        }
      }
    };
    for (int i = 0; i < kWarmup; ++i) run();
    stream.synchronize();
    routes.clear();
    const NvjpegAllocatorStats a0 = nvjpeg_allocator_stats();
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < kIterations; ++i) run();
    stream.synchronize();
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const NvjpegAllocatorStats a1 = nvjpeg_allocator_stats();
    std::printf(
        "  hw_decoder_load %.2f: %8.0f images/s, %7.0f MP/s, %.2f ms/batch | per batch: hw %d, "
        "hybrid %d, gpu-hybrid %d | nvJPEG allocations during timing: device %llu, pinned %llu, "
        "frees %llu | hardware %s\n",
        load, kBatch * kIterations / s, megapixels * kIterations / s, s * 1e3 / kIterations,
        routes[DecodeRoute::kHardware] / kIterations, routes[DecodeRoute::kHybrid] / kIterations,
        routes[DecodeRoute::kGpuHybrid] / kIterations,
        static_cast<unsigned long long>(a1.device_allocations - a0.device_allocations),
        static_cast<unsigned long long>(a1.pinned_allocations - a0.pinned_allocations),
        static_cast<unsigned long long>(a1.device_frees - a0.device_frees + a1.pinned_frees -
                                        a0.pinned_frees),
        decoder.hardware_status().c_str());
    EXPECT_EQ(not_decoded, 0) << "at hw_decoder_load " << load << ", first: " << first_failure;
  }
}

}  // namespace
}  // namespace sluice::nvjpeg
