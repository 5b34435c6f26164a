// CPU-only checks of the nvJPEG decoder: option validation, construction without a device, the
// status policy. The decoding itself is tested in the *_gpu_test.cc files.

#include "sluice/codecs/nvjpeg/nvjpeg_decoder.h"

#include <gtest/gtest.h>

#include "sluice/codecs/nvjpeg/nvjpeg_check.h"
#include "sluice/core/error.h"
#include "sluice/cuda/cuda_api.h"

namespace sluice::nvjpeg {
namespace {

TEST(NvjpegDecoder, ConstructionFailsCleanlyWithoutADevice) {
  NvjpegDecoderOptions o;
  if (cuda::device_count() == 0) {
    try {
      NvjpegDecoder d(o);
      FAIL() << "constructed an nvJPEG decoder without a CUDA device";
    } catch (const NotImplemented& e) {
      EXPECT_NE(std::string(e.what()).find("CUDA device"), std::string::npos) << e.what();
    }
  } else {
    o.device = cuda::device_count();  // one past the last
    EXPECT_THROW(NvjpegDecoder d(o), InvalidArgument);
  }
}

TEST(NvjpegDecoder, RejectsInvalidOptionsBeforeTouchingTheDevice) {
  auto expect_invalid = [](auto&& edit) {
    NvjpegDecoderOptions o;
    edit(o);
    EXPECT_THROW(NvjpegDecoder d(o), InvalidArgument);
  };
  expect_invalid([](NvjpegDecoderOptions& o) { o.hw_decoder_load = -0.1f; });
  expect_invalid([](NvjpegDecoderOptions& o) { o.hw_decoder_load = 1.5f; });
  expect_invalid([](NvjpegDecoderOptions& o) { o.num_thread_states = 0; });
  expect_invalid([](NvjpegDecoderOptions& o) { o.max_batch_size = 0; });
  expect_invalid([](NvjpegDecoderOptions& o) { o.preallocate_width_hint = -1; });
  expect_invalid([](NvjpegDecoderOptions& o) { o.hybrid_huffman_threshold = -1; });
}

TEST(NvjpegDecoder, NamesRoutesAndChannels) {
  EXPECT_EQ(route_name(DecodeRoute::kHardware), "hw");
  EXPECT_EQ(route_name(DecodeRoute::kHybrid), "hybrid");
  EXPECT_EQ(route_name(DecodeRoute::kGpuHybrid), "gpu-hybrid");
  EXPECT_EQ(route_name(DecodeRoute::kFallback), "fallback");
  EXPECT_EQ(route_name(DecodeRoute::kError), "error");
  EXPECT_EQ(output_channels(OutputColor::kRGB), 3);
  EXPECT_EQ(output_channels(OutputColor::kBGR), 3);
  EXPECT_EQ(output_channels(OutputColor::kGray), 1);
  DecodeResult r;
  EXPECT_FALSE(r.decoded());
  r.route = DecodeRoute::kGpuHybrid;
  EXPECT_TRUE(r.decoded());
  r.route = DecodeRoute::kFallback;
  EXPECT_FALSE(r.decoded());
}

TEST(NvjpegStatus, DataStatusesFallBackOthersAreErrors) {
  EXPECT_TRUE(nvjpeg_status_needs_fallback(NVJPEG_STATUS_BAD_JPEG));
  EXPECT_TRUE(nvjpeg_status_needs_fallback(NVJPEG_STATUS_JPEG_NOT_SUPPORTED));
  EXPECT_TRUE(nvjpeg_status_needs_fallback(NVJPEG_STATUS_INCOMPLETE_BITSTREAM));
  EXPECT_TRUE(nvjpeg_status_needs_fallback(NVJPEG_STATUS_IMPLEMENTATION_NOT_SUPPORTED));
  EXPECT_FALSE(nvjpeg_status_needs_fallback(NVJPEG_STATUS_SUCCESS));
  EXPECT_FALSE(nvjpeg_status_needs_fallback(NVJPEG_STATUS_INVALID_PARAMETER));
  EXPECT_FALSE(nvjpeg_status_needs_fallback(NVJPEG_STATUS_ALLOCATOR_FAILURE));
  EXPECT_FALSE(nvjpeg_status_needs_fallback(NVJPEG_STATUS_EXECUTION_FAILED));
  EXPECT_FALSE(nvjpeg_status_needs_fallback(NVJPEG_STATUS_INTERNAL_ERROR));
  EXPECT_EQ(nvjpeg_status_name(NVJPEG_STATUS_BAD_JPEG), "NVJPEG_STATUS_BAD_JPEG");
  EXPECT_EQ(nvjpeg_status_name(static_cast<nvjpegStatus_t>(77)), "NVJPEG_STATUS_77");
  try {
    SLUICE_NVJPEG_CHECK(NVJPEG_STATUS_INTERNAL_ERROR);
    FAIL() << "no throw";
  } catch (const CudaError& e) {
    EXPECT_NE(std::string(e.what()).find("NVJPEG_STATUS_INTERNAL_ERROR"), std::string::npos);
  }
  EXPECT_THROW(SLUICE_NVJPEG_CHECK(NVJPEG_STATUS_ALLOCATOR_FAILURE), OutOfMemory);
  EXPECT_NO_THROW(SLUICE_NVJPEG_CHECK(NVJPEG_STATUS_SUCCESS));
}

}  // namespace
}  // namespace sluice::nvjpeg
