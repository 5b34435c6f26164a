#pragma once
// jpeg_compression_distortion's argument checks and per-image work, shared by its CPU
// (jpeg_compression_distortion.cc) and GPU (jpeg_compression_distortion_gpu.cc) classes.

#include <cstdint>
#include <vector>

#include "sluice/exec/operator.h"

namespace sluice {

// Checks the input (UINT8, HWC or FHWC, 3 channels) and returns, per sample, its number of
// images (frames) and each image's height and width.
struct JpegDistortionSample {
  int64_t frames, height, width;
};
std::vector<JpegDistortionSample> plan_jpeg_distortion(const Workspace& ws);

// Compresses and decompresses every frame of a sample (host memory).
void jpeg_distort_sample(const uint8_t* in, uint8_t* out, const JpegDistortionSample& s,
                         int quality, std::vector<uint8_t>& scratch);

}  // namespace sluice
