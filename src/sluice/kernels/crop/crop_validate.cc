#include "sluice/kernels/crop/crop_validate.h"

#include <string>

#include "sluice/core/error.h"

namespace sluice {

ImageLayout parse_image_layout(std::string_view name) {
  if (name == "HWC") return ImageLayout::kHWC;
  if (name == "CHW") return ImageLayout::kCHW;
  throw InvalidArgument(make_string("layout: expected \"HWC\" or \"CHW\", got \"", name, "\""));
}

std::string_view image_layout_name(ImageLayout layout) {
  return layout == ImageLayout::kHWC ? "HWC" : "CHW";
}

ImageTransform exif_orientation_transform(int orientation) {
  switch (orientation) {
    case 1:
      return {false, false, false};
    case 2:
      return {false, true, false};
    case 3:
      return {false, true, true};
    case 4:
      return {false, false, true};
    case 5:
      return {true, false, false};
    case 6:
      return {true, false, true};  // source row = H-1-ox, column = oy
    case 7:
      return {true, true, true};
    case 8:
      return {true, true, false};  // source row = ox, column = W-1-oy
    default:
      break;
  }
  throw InvalidArgument(make_string("EXIF orientation must be in 1..8, got ", orientation));
}

namespace crop_detail {

void check_fill_values(std::span<const float> fill_values, int64_t channels) {
  SLUICE_CHECK(fill_values.size() <= 1 || static_cast<int64_t>(fill_values.size()) == channels,
               InvalidArgument, "fill_values must hold 1 value or one per channel (", channels,
               "), got ", fill_values.size());
}

namespace {

std::string where(int64_t sample) {
  return sample >= 0 ? make_string(" (sample ", sample, ")") : std::string();
}

}  // namespace

void check_crop_transform(const ImageDims& in, const ImageDims& out, const CropWindow& window,
                          ImageTransform transform, int64_t sample) {
  SLUICE_CHECK(in.height >= 0 && in.width >= 0 && in.channels >= 1, InvalidArgument,
               "input shape must be non-negative with at least one channel, got ", in.height, "x",
               in.width, "x", in.channels, where(sample));
  SLUICE_CHECK(window.h >= 0 && window.w >= 0, InvalidArgument,
               "crop window shape must not be negative, got ", to_string(window), where(sample));
  SLUICE_CHECK(in.layout == out.layout, InvalidArgument, "output layout ",
               image_layout_name(out.layout), " differs from input layout ",
               image_layout_name(in.layout), where(sample));
  SLUICE_CHECK(in.channels == out.channels, InvalidArgument, "output has ", out.channels,
               " channels, input has ", in.channels, where(sample));
  const int64_t oh = transform.transpose ? window.w : window.h;
  const int64_t ow = transform.transpose ? window.h : window.w;
  SLUICE_CHECK(out.height == oh && out.width == ow, InvalidArgument, "output is ", out.height, "x",
               out.width, " but window ", to_string(window),
               transform.transpose ? " transposed" : "", " needs ", oh, "x", ow, where(sample));
  const bool in_needed = window.h > 0 && window.w > 0 && in.height > 0 && in.width > 0;
  SLUICE_CHECK(!in_needed || in.data != nullptr, InvalidArgument, "input data is null",
               where(sample));
  SLUICE_CHECK(oh * ow == 0 || out.data != nullptr, InvalidArgument, "output data is null",
               where(sample));
}

}  // namespace crop_detail
}  // namespace sluice
