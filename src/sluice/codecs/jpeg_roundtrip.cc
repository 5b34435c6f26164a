// libjpeg reports fatal errors through error_exit, which must not return: as in
// jpeg_decoder.cc (Note [libjpeg errors]), it longjmps back into small C-style functions whose
// frames hold only trivially destructible objects, and the caller throws.

#include "sluice/codecs/jpeg_roundtrip.h"

#include <algorithm>
#include <csetjmp>
#include <cstdio>
#include <cstdlib>
#include <cstring>

// clang-format off
#include <jpeglib.h>
#include <jerror.h>
// clang-format on

#include "sluice/core/error.h"

namespace sluice::codecs {
namespace {

struct ErrorMgr {
  jpeg_error_mgr pub;
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

void on_error_exit(j_common_ptr cinfo) {
  auto* err = reinterpret_cast<ErrorMgr*>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, err->message);
  std::longjmp(err->jump, 1);
}

// Returns false (with err->message) on a libjpeg error; *data (malloc'ed) / *size: the stream.
bool compress_c(const uint8_t* rgb, int height, int width, int quality, unsigned char** data,
                unsigned long* size, ErrorMgr* err) {
  jpeg_compress_struct c;
  c.err = jpeg_std_error(&err->pub);
  err->pub.error_exit = on_error_exit;
  if (setjmp(err->jump)) {
    jpeg_destroy_compress(&c);
    return false;
  }
  jpeg_create_compress(&c);
  jpeg_mem_dest(&c, data, size);
  c.image_width = static_cast<JDIMENSION>(width);
  c.image_height = static_cast<JDIMENSION>(height);
  c.input_components = 3;
  c.in_color_space = JCS_RGB;
  jpeg_set_defaults(&c);
  jpeg_set_quality(&c, quality, TRUE);
  c.dct_method = JDCT_ISLOW;
  jpeg_start_compress(&c, TRUE);
  while (c.next_scanline < c.image_height) {
    JSAMPROW row = const_cast<JSAMPROW>(rgb + static_cast<size_t>(c.next_scanline) * width * 3);
    jpeg_write_scanlines(&c, &row, 1);
  }
  jpeg_finish_compress(&c);
  jpeg_destroy_compress(&c);
  return true;
}

bool decompress_c(const uint8_t* data, size_t size, uint8_t* out, int width, ErrorMgr* err) {
  jpeg_decompress_struct d;
  d.err = jpeg_std_error(&err->pub);
  err->pub.error_exit = on_error_exit;
  if (setjmp(err->jump)) {
    jpeg_destroy_decompress(&d);
    return false;
  }
  jpeg_create_decompress(&d);
  jpeg_mem_src(&d, data, static_cast<unsigned long>(size));
  jpeg_read_header(&d, TRUE);
  d.out_color_space = JCS_RGB;
  d.dct_method = JDCT_ISLOW;
  d.do_fancy_upsampling = TRUE;
  jpeg_start_decompress(&d);
  while (d.output_scanline < d.output_height) {
    JSAMPROW row = out + static_cast<size_t>(d.output_scanline) * width * 3;
    jpeg_read_scanlines(&d, &row, 1);
  }
  jpeg_finish_decompress(&d);
  jpeg_destroy_decompress(&d);
  return true;
}

}  // namespace

void jpeg_roundtrip(const uint8_t* rgb, uint8_t* out, int height, int width, int quality,
                    std::vector<uint8_t>& scratch) {
  if (height == 0 || width == 0) return;
  ErrorMgr err{};
  unsigned char* data = nullptr;
  unsigned long size = 0;
  const bool ok = compress_c(rgb, height, width, std::clamp(quality, 1, 100), &data, &size, &err);
  if (ok) scratch.assign(data, data + size);
  std::free(data);
  SLUICE_CHECK(ok, DecodeError, "JPEG compression failed: ", err.message);
  SLUICE_CHECK(decompress_c(scratch.data(), scratch.size(), out, width, &err), DecodeError,
               "JPEG decompression failed: ", err.message);
}

}  // namespace sluice::codecs
