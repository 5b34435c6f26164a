#pragma once
// Small non-owning views of dense images and the eight axis-aligned transforms (flips, rotations
// by multiples of 90 degrees, transposes) used by the crop, flip and orientation kernels.
// Plain data, no CUDA types; safe to include anywhere.

#include <cstdint>
#include <string_view>

namespace sluice {

// Memory layout of one dense image. HWC: interleaved channels (what decoders produce); CHW:
// planar channels (what networks consume).
enum class ImageLayout : uint8_t { kHWC, kCHW };

// Parses "HWC" or "CHW"; throws InvalidArgument otherwise.
ImageLayout parse_image_layout(std::string_view name);
std::string_view image_layout_name(ImageLayout layout);

// A dense height x width x channels image of T in `layout`, elements packed without padding.
// Does not own `data`.
template <typename T>
struct ImageView {
  T* data = nullptr;
  int64_t height = 0;
  int64_t width = 0;
  int64_t channels = 0;
  ImageLayout layout = ImageLayout::kHWC;

  // Strides in elements.
  int64_t row_stride() const { return layout == ImageLayout::kHWC ? width * channels : width; }
  int64_t pixel_stride() const { return layout == ImageLayout::kHWC ? channels : 1; }
  int64_t channel_stride() const { return layout == ImageLayout::kHWC ? 1 : height * width; }
  int64_t num_elements() const { return height * width * channels; }
  T& at(int64_t y, int64_t x, int64_t c) const {
    return data[y * row_stride() + x * pixel_stride() + c * channel_stride()];
  }
  operator ImageView<const T>() const { return {data, height, width, channels, layout}; }
};

// One of the eight transforms of the square's symmetry group, expressed as "flip, then transpose":
// the source of output pixel (oy, ox) within a window of wh x ww pixels is
//   (a, b) = transpose ? (ox, oy) : (oy, ox)
//   row    = flip_y ? wh - 1 - a : a,   column = flip_x ? ww - 1 - b : b
// so that flip_x / flip_y reverse the window's columns / rows and the result is then transposed.
// The output is ww x wh when transposed, wh x ww otherwise.
struct ImageTransform {
  bool transpose = false;
  bool flip_x = false;  // reverse the window's columns (horizontal mirror)
  bool flip_y = false;  // reverse the window's rows (vertical flip)

  friend bool operator==(const ImageTransform&, const ImageTransform&) = default;
  bool is_identity() const { return !transpose && !flip_x && !flip_y; }
};

// The transform that displays an image stored with EXIF orientation `orientation` (1..8) upright,
// as PIL's ImageOps.exif_transpose does: 1 identity, 2 mirror horizontally, 3 rotate 180,
// 4 flip vertically, 5 transpose, 6 rotate 90 clockwise, 7 transverse, 8 rotate 90
// counter-clockwise. Throws InvalidArgument for values outside 1..8.
ImageTransform exif_orientation_transform(int orientation);

}  // namespace sluice
