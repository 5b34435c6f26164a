// JPEG decoding through libjpeg-turbo's libjpeg API (see image_decoder.h for the contract).
//
// Note [libjpeg errors]  libjpeg reports fatal errors by calling error_exit, which must not
// return. We longjmp out of it back into one of two small C-style functions (read_header_c,
// decompress_c) whose frames hold only trivially destructible objects, so skipping them is
// well defined; the C++ caller then throws DecodeError with the formatted libjpeg message.
// Warnings go through emit_message(-1); Note [Corrupt data policy] decides which are fatal.
// After any error the decompressor is reset with jpeg_abort_decompress and stays reusable.

#include <algorithm>
#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <string>

// clang-format off
#include <jpeglib.h>
#include <jerror.h>
// clang-format on

#include "sluice/codecs/decoder_internal.h"
#include "sluice/core/error.h"

namespace sluice::codecs::detail {

struct JpegErrorMgr {
  jpeg_error_mgr pub;
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX + 96];
  // Tables defined by DQT / DHT markers of the current image (bit i = table i); see Note
  // [Table hygiene].
  unsigned defined_quant = 0, defined_dc = 0, defined_ac = 0;
};

struct JpegProgress {
  jpeg_progress_mgr pub;
  int max_scans = 0;
};

struct JpegState {
  jpeg_decompress_struct cinfo;
  JpegErrorMgr err;
  JpegProgress progress;
};

namespace {

void on_error_exit(j_common_ptr cinfo) {
  auto* err = reinterpret_cast<JpegErrorMgr*>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, err->message);
  std::longjmp(err->jump, 1);
}

// Note [Table hygiene]  libjpeg keeps quantisation and Huffman tables in the decompressor
// across images (for abbreviated datastreams), so with a reused decompressor an image lacking
// DQT / DHT markers would silently be decoded with the previous image's tables. A fresh
// decompressor instead fails for a missing DQT ("Quantization table 0x00 was not defined") and
// uses the standard (K.3) Huffman tables for a missing DHT 0/1 (Motion-JPEG frames rely on
// that). We restore exactly those semantics: trace messages tell us which tables the current
// image defines, and when a scan (SOS) refers to a table it did not define, a stale quant
// table pointer is cleared (libjpeg then raises its usual error) and a stale Huffman table 0/1
// is overwritten with the standard one (cleared for 2/3: libjpeg then raises its error).
// Clearing abandons that table in libjpeg's permanent pool (about 300 bytes), which only
// happens for such malformed files; overwriting allocates nothing.
struct StdHuffTables {
  JHUFF_TBL dc[2], ac[2];  // luminance, chrominance
  bool valid = false;
};

void std_tables_error_exit(j_common_ptr cinfo) {
  std::longjmp(*static_cast<std::jmp_buf*>(cinfo->client_data), 1);
}

// C-style (Note [libjpeg errors]): libjpeg's own standard tables, as jpeg_set_defaults installs
// them in a compressor.
void load_std_tables_c(StdHuffTables* t, jpeg_compress_struct* c, jpeg_error_mgr* e,
                       std::jmp_buf* jump) {
  c->err = jpeg_std_error(e);
  e->error_exit = std_tables_error_exit;
  c->client_data = jump;
  if (setjmp(*jump)) {
    jpeg_destroy_compress(c);
    return;  // out of memory: t->valid stays false and stale tables are cleared instead
  }
  jpeg_create_compress(c);
  c->client_data = jump;  // jpeg_create_compress resets the struct
  c->in_color_space = JCS_RGB;
  c->input_components = 3;
  jpeg_set_defaults(c);
  for (int i = 0; i < 2; ++i) {
    t->dc[i] = *c->dc_huff_tbl_ptrs[i];
    t->ac[i] = *c->ac_huff_tbl_ptrs[i];
  }
  t->valid = true;
  jpeg_destroy_compress(c);
}

const StdHuffTables& std_huff_tables() {
  static const StdHuffTables tables = [] {
    StdHuffTables t{};
    jpeg_compress_struct c{};
    jpeg_error_mgr e{};
    std::jmp_buf jump;
    load_std_tables_c(&t, &c, &e, &jump);
    return t;
  }();
  return tables;
}

void on_trace(JpegErrorMgr* err, j_decompress_ptr d) {
  const int* parm = err->pub.msg_parm.i;
  switch (err->pub.msg_code) {
    case JTRC_DQT:
      if (parm[0] >= 0 && parm[0] < NUM_QUANT_TBLS) err->defined_quant |= 1u << parm[0];
      break;
    case JTRC_DHT: {
      const int index = parm[0] & 0x0F;
      if (index < NUM_HUFF_TBLS)
        ((parm[0] & 0x10) ? err->defined_ac : err->defined_dc) |= 1u << index;
      break;
    }
    case JTRC_SOS_COMPONENT: {  // parm: component id, DC table, AC table
      for (int ci = 0; ci < d->num_components; ++ci) {
        const int q = d->comp_info[ci].quant_tbl_no;
        if (d->comp_info[ci].component_id == parm[0] && q >= 0 && q < NUM_QUANT_TBLS &&
            !(err->defined_quant >> q & 1)) {
          d->quant_tbl_ptrs[q] = nullptr;
        }
      }
      if (d->arith_code) break;  // no Huffman tables involved
      const StdHuffTables& std_tables = std_huff_tables();
      auto fix = [](JHUFF_TBL** ptrs, int t, unsigned defined, const JHUFF_TBL* std_tbl) {
        if (t < 0 || t >= NUM_HUFF_TBLS || (defined >> t & 1) || ptrs[t] == nullptr) return;
        if (t < 2 && std_tbl != nullptr) {
          *ptrs[t] = std_tbl[t];
        } else {
          ptrs[t] = nullptr;
        }
      };
      fix(d->dc_huff_tbl_ptrs, parm[1], err->defined_dc,
          std_tables.valid ? std_tables.dc : nullptr);
      fix(d->ac_huff_tbl_ptrs, parm[2], err->defined_ac,
          std_tables.valid ? std_tables.ac : nullptr);
      break;
    }
    default:
      break;
  }
}

void on_emit_message(j_common_ptr cinfo, int level) {
  auto* err = reinterpret_cast<JpegErrorMgr*>(cinfo->err);
  if (level >= 0) {  // trace messages
    if (cinfo->is_decompressor) on_trace(err, reinterpret_cast<j_decompress_ptr>(cinfo));
    return;
  }
  const int code = err->pub.msg_code;
  // Metadata-only warnings: the pixel data is unaffected (Note [Corrupt data policy]).
  if (code == JWRN_ADOBE_XFORM || code == JWRN_JFIF_MAJOR || code == JWRN_BOGUS_ICC) {
    ++err->pub.num_warnings;
    return;
  }
  (*cinfo->err->format_message)(cinfo, err->message);
  if (code == JWRN_JPEG_EOF) {
    std::strncat(err->message, " (the data is truncated)",
                 sizeof(err->message) - std::strlen(err->message) - 1);
  }
  std::longjmp(err->jump, 2);
}

void on_progress(j_common_ptr cinfo) {
  if (!cinfo->is_decompressor) return;
  auto* prog = reinterpret_cast<JpegProgress*>(cinfo->progress);
  auto* d = reinterpret_cast<j_decompress_ptr>(cinfo);
  if (prog->max_scans > 0 && d->input_scan_number > prog->max_scans) {
    auto* err = reinterpret_cast<JpegErrorMgr*>(cinfo->err);
    std::snprintf(err->message, sizeof(err->message),
                  "the JPEG has more than %d scans (DecodeParams::max_jpeg_scans); a progressive "
                  "image with that many scans is treated as a decompression bomb",
                  prog->max_scans);
    std::longjmp(err->jump, 3);
  }
}

struct HeaderFacts {
  JDIMENSION width = 0, height = 0;
  int components = 0;
  J_COLOR_SPACE color_space = JCS_UNKNOWN;
  int max_h = 1;  // largest horizontal sampling factor
  bool progressive = false;
};

// Output row handler for decompress_c: receives a decoded row of the crop region.
using JpegRowSink = void (*)(void* ctx, const uint8_t* row, JDIMENSION region_x, JDIMENSION y);

struct DecompressJob {
  J_COLOR_SPACE out_space = JCS_EXT_RGB;
  int out_components = 3;
  bool crop_x = false;
  JDIMENSION region_x = 0, region_w = 0;  // requested column range (crop_x only)
  JDIMENSION skip = 0;                    // rows given to jpeg_skip_scanlines
  JDIMENSION first_row = 0, end_row = 0;  // the window's rows [first_row, end_row)
  uint8_t* row_buf = nullptr;             // one row of the (cropped) output width
  bool direct = false;                    // window rows go to dst directly
  uint8_t* dst = nullptr;
  ptrdiff_t dst_stride = 0;
  JpegRowSink sink = nullptr;
  void* sink_ctx = nullptr;
};

// C-style (Note [libjpeg errors]): no non-trivially destructible objects in this frame.
int read_header_c(JpegState* st, const uint8_t* data, size_t size, HeaderFacts* h) {
  j_decompress_ptr ci = &st->cinfo;
  if (setjmp(st->err.jump)) {
    jpeg_abort_decompress(ci);
    return 1;
  }
  st->err.defined_quant = st->err.defined_dc = st->err.defined_ac = 0;
  jpeg_mem_src(ci, data, static_cast<unsigned long>(size));
  jpeg_read_header(ci, TRUE);
  h->width = ci->image_width;
  h->height = ci->image_height;
  h->components = ci->num_components;
  h->color_space = ci->jpeg_color_space;
  h->max_h = ci->max_h_samp_factor;
  h->progressive = ci->progressive_mode != FALSE;
  return 0;
}

// C-style (Note [libjpeg errors]). Runs after read_header_c on the same object.
int decompress_c(JpegState* st, const DecompressJob* job) {
  j_decompress_ptr ci = &st->cinfo;
  if (setjmp(st->err.jump)) {
    jpeg_abort_decompress(ci);
    return 1;
  }
  ci->out_color_space = job->out_space;
  ci->dct_method = JDCT_ISLOW;
  ci->do_fancy_upsampling = TRUE;
  ci->do_block_smoothing = TRUE;  // libjpeg default (progressive only), as djpeg / Pillow
  ci->scale_num = 1;
  ci->scale_denom = 1;
  ci->quantize_colors = FALSE;
  jpeg_start_decompress(ci);
  if (ci->output_components != job->out_components) {
    std::snprintf(st->err.message, sizeof(st->err.message),
                  "libjpeg produced %d components, expected %d", ci->output_components,
                  job->out_components);
    jpeg_abort_decompress(ci);
    return 1;
  }
  JDIMENSION region_x = 0, region_w = ci->output_width;
  if (job->crop_x) {
    region_x = job->region_x;
    region_w = job->region_w;
    jpeg_crop_scanline(ci, &region_x, &region_w);  // moves region_x left to an iMCU boundary
  }
  if (job->skip > 0) jpeg_skip_scanlines(ci, job->skip);
  for (JDIMENSION y = job->skip; y < job->end_row; ++y) {
    const bool in_window = y >= job->first_row;
    JSAMPROW row = (in_window && job->direct)
                       ? job->dst + static_cast<ptrdiff_t>(y - job->first_row) * job->dst_stride
                       : job->row_buf;
    if (jpeg_read_scanlines(ci, &row, 1) != 1) {
      std::snprintf(st->err.message, sizeof(st->err.message), "libjpeg returned no data for row %u",
                    static_cast<unsigned>(y));
      jpeg_abort_decompress(ci);
      return 1;
    }
    if (in_window && !job->direct) job->sink(job->sink_ctx, row, region_x, y);
  }
  if (job->end_row == ci->output_height) {
    jpeg_finish_decompress(ci);  // reads to EOI: a missing EOI is truncation
  } else {
    jpeg_abort_decompress(ci);  // the rows below the window are not needed
  }
  return 0;
}

struct JpegSinkContext {
  const RegionRequest* req;
  PixelLayout src_layout;
  int src_channels;
};

void sink_row(void* ctx, const uint8_t* row, JDIMENSION region_x, JDIMENSION y) {
  const auto* c = static_cast<const JpegSinkContext*>(ctx);
  const RegionRequest& r = *c->req;
  const uint8_t* src = row + (r.window.x - region_x) * c->src_channels;
  uint8_t* dst = r.dst + (static_cast<int64_t>(y) - r.window.y) * r.dst_stride;
  convert_row(src, c->src_layout, 8, dst, r.layout, r.depth, r.window.w);
}

JpegState& jpeg_state(ScratchImpl& scratch) {
  if (!scratch.jpeg) {
    auto st = std::unique_ptr<JpegState, JpegStateDeleter>(new JpegState());
    st->cinfo.err = jpeg_std_error(&st->err.pub);
    st->err.pub.error_exit = on_error_exit;
    st->err.pub.emit_message = on_emit_message;
    st->err.message[0] = '\0';
    std_huff_tables();                   // computed once per process, before any setjmp frame
    jpeg_create_decompress(&st->cinfo);  // cannot fail but for out-of-memory (error_exit)
    st->progress.pub.progress_monitor = on_progress;
    st->cinfo.progress = &st->progress.pub;
    scratch.jpeg = std::move(st);
  }
  return *scratch.jpeg;
}

// Resets the decompressor on every exit path of decode_jpeg (idempotent).
struct AbortGuard {
  j_decompress_ptr ci;
  ~AbortGuard() { jpeg_abort_decompress(ci); }
};

}  // namespace

void JpegStateDeleter::operator()(JpegState* s) const {
  jpeg_destroy_decompress(&s->cinfo);
  delete s;
}

void decode_jpeg(const uint8_t* data, size_t size, const ImageInfo& info, const RegionRequest& req,
                 ScratchImpl& scratch) {
  const JpegDetails& j = info.jpeg;
  if (j.precision != 8) {
    throw DecodeError(make_string("JPEG with ", j.precision,
                                  "-bit samples is not supported (libjpeg-turbo 2.1.5 decodes "
                                  "8-bit JPEG only; 12-bit needs libjpeg-turbo >= 3.0)"));
  }
  if (j.lossless) {
    throw DecodeError(make_string("lossless JPEG (SOF", j.sof_marker - 0xC0,
                                  ") is not supported (needs libjpeg-turbo >= 3.0)"));
  }
  if (j.hierarchical) {
    throw DecodeError(
        make_string("hierarchical JPEG (SOF", j.sof_marker - 0xC0, ") is not supported"));
  }
  JpegState& st = jpeg_state(scratch);
  AbortGuard guard{&st.cinfo};
  st.progress.max_scans = req.max_jpeg_scans;

  HeaderFacts h;
  if (read_header_c(&st, data, size, &h) != 0) {
    throw DecodeError(make_string("JPEG header: ", st.err.message));
  }
  if (h.width != info.width || h.height != info.height) {
    throw InvalidArgument(make_string("ImageInfo (", info.width, "x", info.height,
                                      ") does not match the JPEG data (", h.width, "x", h.height,
                                      ")"));
  }

  // Choose libjpeg's output colour space: the requested layout when libjpeg produces it
  // itself, otherwise the closest one and a convert_row pass (Notes in pixel_convert.h).
  DecompressJob job;
  PixelLayout src_layout;
  switch (h.color_space) {
    case JCS_GRAYSCALE:
    case JCS_YCbCr:
    case JCS_RGB:
      if (req.layout == PixelLayout::kBGR) {
        job.out_space = JCS_EXT_BGR, src_layout = PixelLayout::kBGR;
      } else if (req.layout == PixelLayout::kGray ||
                 (h.color_space == JCS_GRAYSCALE && req.layout != PixelLayout::kRGB)) {
        job.out_space = JCS_GRAYSCALE, src_layout = PixelLayout::kGray;
      } else if (req.layout == PixelLayout::kYCbCr && h.color_space == JCS_YCbCr) {
        job.out_space = JCS_YCbCr, src_layout = PixelLayout::kYCbCr;
      } else {
        job.out_space = JCS_EXT_RGB, src_layout = PixelLayout::kRGB;
      }
      break;
    case JCS_CMYK:
    case JCS_YCCK:
      job.out_space = JCS_CMYK, src_layout = PixelLayout::kCmykInverted;
      break;
    default:
      throw DecodeError(
          make_string("JPEG with ", h.components, " components in an unsupported colour space"));
  }
  job.out_components = layout_channels(src_layout);

  // Note [Exact crop]  jpeg_crop_scanline makes libjpeg treat the region's left / right edges
  // as image edges for fancy (h2v1 / h2v2) upsampling, so the outermost columns of a cropped
  // decode can differ from a full decode (libjpeg.txt says so; measured here: a margin of 0 or
  // 1 pixel gives mismatches, 2 pixels was enough on the test set). We decode one extra iMCU
  // (8 * max h-sampling pixels) on each side and copy only the window. Progressive files also
  // get block smoothing where coefficients are incomplete (a missing refinement scan), which
  // reads up to 2 blocks of each component on each side and also stops at the region's edges
  // (found by fuzz_image): they get 3 iMCUs, since one iMCU holds a single block of a
  // subsampled component. Vertically, jpeg_skip_scanlines re-creates the upsampling context
  // rows itself and skipping straight to the window's first row was exact for every
  // subsampling / coding mode tested, so no margin is added there. JpegCrop.* tests and the
  // fuzzer verify bit-exactness against full decodes.
  const int64_t W = info.width;
  const CropWindow& win = req.window;
  const int64_t margin = int64_t{h.max_h} * DCTSIZE * (h.progressive ? 3 : 1);
  const int64_t rx0 = std::max<int64_t>(0, win.x - margin);
  const int64_t rx1 = std::min<int64_t>(W, win.x + win.w + margin);
  job.crop_x = !(rx0 == 0 && rx1 == W);
  job.region_x = static_cast<JDIMENSION>(rx0);
  job.region_w = static_cast<JDIMENSION>(rx1 - rx0);
  job.skip = static_cast<JDIMENSION>(win.y);
  job.first_row = static_cast<JDIMENSION>(win.y);
  job.end_row = static_cast<JDIMENSION>(win.y + win.h);
  job.row_buf = scratch.rows.get(static_cast<size_t>(W) * job.out_components);
  job.direct = !job.crop_x && src_layout == req.layout && req.depth == 8 &&
               req.dst_stride == W * job.out_components;
  job.dst = req.dst;
  job.dst_stride = req.dst_stride;
  JpegSinkContext ctx{&req, src_layout, job.out_components};
  job.sink = sink_row;
  job.sink_ctx = &ctx;

  if (decompress_c(&st, &job) != 0) throw DecodeError(make_string("JPEG: ", st.err.message));
}

}  // namespace sluice::codecs::detail
