#pragma once
// Internal interface between decode_image() and the per-format decoders. Not a public API.

#include <cstddef>
#include <cstdint>
#include <memory>

#include "sluice/codecs/image_info.h"
#include "sluice/codecs/pixel_convert.h"

namespace sluice::codecs::detail {

// A grow-only byte buffer: get(n) returns at least n bytes, reallocating only to grow. The
// contents are uninitialised after growth.
class ByteBuffer {
 public:
  uint8_t* get(size_t n) {
    if (n > capacity_) {
      data_.reset();  // free first: the old contents are not needed
      data_.reset(new uint8_t[n]);
      capacity_ = n;
    }
    return data_.get();
  }
  void release() {
    data_.reset();
    capacity_ = 0;
  }
  size_t capacity() const { return capacity_; }

 private:
  std::unique_ptr<uint8_t[]> data_;
  size_t capacity_ = 0;
};

struct JpegState;  // jpeg_decoder.cc: libjpeg decompressor + error / progress managers
struct JpegStateDeleter {
  void operator()(JpegState* s) const;
};

struct ScratchImpl {
  std::unique_ptr<JpegState, JpegStateDeleter> jpeg;  // created on first JPEG decode
  ByteBuffer image;                                   // stored-orientation window before rotation
  ByteBuffer rows;  // row buffers and row-pointer arrays of the decoders
};

// What a format decoder must produce: the stored-grid window `window` (raw coordinates,
// validated to lie inside the image), converted to `layout` at `depth` bits (8 or 16), written
// as rows of `window.w` pixels at `dst + r * dst_stride` (bytes).
struct RegionRequest {
  CropWindow window;
  PixelLayout layout = PixelLayout::kRGB;
  int depth = 8;
  uint8_t* dst = nullptr;
  ptrdiff_t dst_stride = 0;
  int max_jpeg_scans = 0;  // 0 = unlimited
};

// The natural output layout of `info` (DecodeParams::kAnyData, see image_decoder.h).
PixelLayout natural_layout(const ImageInfo& info);

void decode_jpeg(const uint8_t* data, size_t size, const ImageInfo& info, const RegionRequest& req,
                 ScratchImpl& scratch);
void decode_png(const uint8_t* data, size_t size, const ImageInfo& info, const RegionRequest& req,
                ScratchImpl& scratch);
void decode_bmp(const uint8_t* data, size_t size, const ImageInfo& info, const RegionRequest& req,
                ScratchImpl& scratch);
void decode_pnm(const uint8_t* data, size_t size, const ImageInfo& info, const RegionRequest& req,
                ScratchImpl& scratch);
// The optional formats: without their library (SLUICE_HAS_TIFF / _WEBP / _OPENJPEG) these throw
// DecodeError naming the package to install.
void decode_tiff(const uint8_t* data, size_t size, const ImageInfo& info, const RegionRequest& req,
                 ScratchImpl& scratch);
void decode_webp(const uint8_t* data, size_t size, const ImageInfo& info, const RegionRequest& req,
                 ScratchImpl& scratch);
void decode_jpeg2000(const uint8_t* data, size_t size, const ImageInfo& info,
                     const RegionRequest& req, ScratchImpl& scratch);

// The layout a TIFF decodes to before colour conversion (its kAnyData layout): grey, grey+alpha,
// RGB (palette and YCbCr images too) or RGBA, from the header's photometric and sample count.
PixelLayout tiff_layout(const ImageInfo& info);

// Header parsers for the simple formats (the format's magic bytes already matched).
ImageInfo peek_bmp(const uint8_t* data, size_t size);
ImageInfo peek_pnm(const uint8_t* data, size_t size);
ImageInfo peek_jpeg(const uint8_t* data, size_t size);
ImageInfo peek_png(const uint8_t* data, size_t size);
ImageInfo peek_tiff(const uint8_t* data, size_t size);
ImageInfo peek_webp(const uint8_t* data, size_t size);
ImageInfo peek_jpeg2000(const uint8_t* data, size_t size);

// Rotates / flips the HWC image `src` (stored size `raw`, `channels` x `elem_size` bytes per
// pixel) into `dst` by EXIF orientation `orientation` (geometry in image_info.h). src != dst.
void apply_orientation(const uint8_t* src, ImageSize raw, int channels, size_t elem_size,
                       int orientation, uint8_t* dst);

}  // namespace sluice::codecs::detail
