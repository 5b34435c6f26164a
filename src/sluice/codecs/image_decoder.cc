#include "sluice/codecs/image_decoder.h"

#include <algorithm>

#include "sluice/codecs/decoder_internal.h"
#include "sluice/core/error.h"

namespace sluice::codecs {

DecoderScratch::DecoderScratch() : impl_(std::make_unique<detail::ScratchImpl>()) {}
DecoderScratch::~DecoderScratch() = default;

void DecoderScratch::release_buffers() {
  impl_->image.release();
  impl_->rows.release();
}

size_t DecoderScratch::buffer_bytes() const {
  return impl_->image.capacity() + impl_->rows.capacity();
}

namespace detail {

PixelLayout natural_layout(const ImageInfo& info) {
  switch (info.format) {
    case ImageFormat::kJpeg:
      return info.jpeg.num_components == 1 ? PixelLayout::kGray : PixelLayout::kRGB;
    case ImageFormat::kPng:
      switch (info.png.color_type) {
        case PngColorType::kGray:
          return PixelLayout::kGray;
        case PngColorType::kGrayAlpha:
          return PixelLayout::kGrayAlpha;
        case PngColorType::kRGB:
          return PixelLayout::kRGB;
        case PngColorType::kRGBA:
          return PixelLayout::kRGBA;
        case PngColorType::kPalette:
          return info.png.has_trns ? PixelLayout::kRGBA : PixelLayout::kRGB;
      }
      break;
    case ImageFormat::kBmp:
      return info.bmp.has_alpha ? PixelLayout::kRGBA : PixelLayout::kRGB;
    case ImageFormat::kPnm:
      return info.channels == 1 ? PixelLayout::kGray : PixelLayout::kRGB;
    case ImageFormat::kTiff:
      return tiff_layout(info);
    case ImageFormat::kWebp:
      return info.webp.has_alpha ? PixelLayout::kRGBA : PixelLayout::kRGB;
    case ImageFormat::kJpeg2000: {
      static constexpr PixelLayout kLayouts[] = {PixelLayout::kGray, PixelLayout::kGrayAlpha,
                                                 PixelLayout::kRGB, PixelLayout::kRGBA};
      return kLayouts[std::clamp(info.channels, 1, 4) - 1];
    }
    case ImageFormat::kUnknown:
      break;
  }
  throw InvalidArgument("ImageInfo has no known format (use peek_image)");
}

}  // namespace detail

namespace {

PixelLayout output_layout(const ImageInfo& info, OutputColor color) {
  switch (color) {
    case OutputColor::kRGB:
      return PixelLayout::kRGB;
    case OutputColor::kBGR:
      return PixelLayout::kBGR;
    case OutputColor::kGray:
      return PixelLayout::kGray;
    case OutputColor::kYCbCr:
      return PixelLayout::kYCbCr;
    case OutputColor::kAnyData:
      return detail::natural_layout(info);
  }
  throw InvalidArgument(make_string("invalid OutputColor ", static_cast<int>(color)));
}

CropWindow output_window(const ImageInfo& info, const DecodeParams& p) {
  const ImageSize full = oriented_size(info, p.adjust_orientation);
  if (!p.crop) return {0, 0, full.height, full.width};
  const CropWindow& c = *p.crop;
  if (c.w <= 0 || c.h <= 0 || c.x < 0 || c.y < 0 || c.x > full.width - c.w ||
      c.y > full.height - c.h) {
    throw InvalidArgument(make_string("crop window {x=", c.x, ", y=", c.y, ", w=", c.w, ", h=", c.h,
                                      "} is empty or outside the ", full.width, "x", full.height,
                                      " output image"));
  }
  return c;
}

}  // namespace

bool has_deep_samples(const ImageInfo& info) {
  return info.bit_depth > 8 || (info.format == ImageFormat::kTiff && info.tiff.photometric == 3);
}

int output_channels(const ImageInfo& info, OutputColor color) {
  return layout_channels(output_layout(info, color));
}

Shape decoded_shape(const ImageInfo& info, const DecodeParams& params) {
  if (params.dtype != DType::kUInt8 && params.dtype != DType::kUInt16) {
    throw InvalidArgument(
        make_string("decode output dtype must be UINT8 or UINT16, got ", dtype_name(params.dtype)));
  }
  if (info.width <= 0 || info.height <= 0) {
    throw InvalidArgument("ImageInfo has no dimensions (use peek_image)");
  }
  // The limit is checked here, from the header, so that callers sizing their output buffer
  // with decoded_shape never allocate for an over-limit image.
  if (params.max_pixels > 0 && info.width > params.max_pixels / info.height) {
    throw DecodeError(make_string("image is ", info.width, "x", info.height, " = ",
                                  info.width * info.height, " pixels, over the limit of ",
                                  params.max_pixels, " (DecodeParams::max_pixels)"));
  }
  const CropWindow w = output_window(info, params);
  return {w.h, w.w, output_channels(info, params.color)};
}

void decode_image(const uint8_t* data, size_t size, const ImageInfo& info,
                  const DecodeParams& params, DecoderScratch& scratch, void* out) {
  SLUICE_CHECK(out != nullptr, InvalidArgument, "decode_image: output pointer is null");
  SLUICE_CHECK(data != nullptr && size > 0, DecodeError, "empty input: 0 bytes is not an image");
  // Validates dtype, crop, format and the pixel limit before anything is allocated.
  const Shape shape = decoded_shape(info, params);
  const ImageFormat actual = detect_format(data, size);
  if (actual != info.format) {
    throw InvalidArgument(make_string("ImageInfo says ", format_name(info.format),
                                      " but the data is ", format_name(actual)));
  }

  // The BMP and PNM decoders read offsets from the header, the others size buffers by it:
  // re-derive it from the bytes rather than trusting a caller-supplied ImageInfo.
  ImageInfo fresh;
  const ImageInfo* hdr = &info;
  if (info.format == ImageFormat::kBmp || info.format == ImageFormat::kPnm ||
      info.format == ImageFormat::kTiff || info.format == ImageFormat::kWebp ||
      info.format == ImageFormat::kJpeg2000) {
    fresh = peek_image(data, size);
    if (fresh.width != info.width || fresh.height != info.height ||
        fresh.channels != info.channels) {
      throw InvalidArgument("ImageInfo does not match the image data (use peek_image)");
    }
    fresh.orientation = info.orientation;
    hdr = &fresh;
  }

  const int orientation = params.adjust_orientation ? info.orientation : 1;
  const CropWindow out_win = output_window(info, params);
  const ImageSize raw_size{info.width, info.height};

  detail::RegionRequest req;
  req.window = oriented_to_raw(out_win, raw_size, orientation);
  req.layout = output_layout(info, params.color);
  req.depth = params.dtype == DType::kUInt16 ? 16 : 8;
  req.max_jpeg_scans = params.max_jpeg_scans;
  const int channels = static_cast<int>(shape[2]);
  const size_t elem = req.depth / 8;
  const size_t pixel_bytes = static_cast<size_t>(channels) * elem;
  const bool transform = orientation >= 2 && orientation <= 8;
  req.dst_stride = static_cast<ptrdiff_t>(req.window.w * pixel_bytes);
  req.dst = transform ? scratch.impl().image.get(static_cast<size_t>(req.window.w) *
                                                 static_cast<size_t>(req.window.h) * pixel_bytes)
                      : static_cast<uint8_t*>(out);

  switch (info.format) {
    case ImageFormat::kJpeg:
      detail::decode_jpeg(data, size, *hdr, req, scratch.impl());
      break;
    case ImageFormat::kPng:
      detail::decode_png(data, size, *hdr, req, scratch.impl());
      break;
    case ImageFormat::kBmp:
      detail::decode_bmp(data, size, *hdr, req, scratch.impl());
      break;
    case ImageFormat::kPnm:
      detail::decode_pnm(data, size, *hdr, req, scratch.impl());
      break;
    case ImageFormat::kTiff:
      detail::decode_tiff(data, size, *hdr, req, scratch.impl());
      break;
    case ImageFormat::kWebp:
      detail::decode_webp(data, size, *hdr, req, scratch.impl());
      break;
    case ImageFormat::kJpeg2000:
      detail::decode_jpeg2000(data, size, *hdr, req, scratch.impl());
      break;
    case ImageFormat::kUnknown:
      throw InvalidArgument("unknown image format");
  }
  if (transform) {
    detail::apply_orientation(req.dst, {req.window.w, req.window.h}, channels, elem, orientation,
                              static_cast<uint8_t*>(out));
  }
}

}  // namespace sluice::codecs
