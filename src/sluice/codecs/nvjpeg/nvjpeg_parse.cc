// One batch of NvjpegDecoder (BatchDecode, nvjpeg_decode_batch.h), first steps: parse every
// sample (what nvJPEG can decode, and where) and route the batch between the hardware and
// hybrid paths. The decode steps are in nvjpeg_decode_batch.cc; the overview is in
// nvjpeg_decoder.h.

#include <algorithm>
#include <climits>
#include <cstring>

#include "sluice/codecs/nvjpeg/jpeg_header_scan.h"
#include "sluice/codecs/nvjpeg/nvjpeg_check.h"
#include "sluice/codecs/nvjpeg/nvjpeg_decode_batch.h"
#include "sluice/codecs/nvjpeg/nvjpeg_decoder.h"
#include "sluice/codecs/nvjpeg/nvjpeg_decoder_impl.h"
#include "sluice/codecs/nvjpeg/nvjpeg_hw_lanes.h"
#include "sluice/core/error.h"

namespace sluice::nvjpeg {
namespace {

std::string_view css_name(nvjpegChromaSubsampling_t c) {
  switch (c) {
    case NVJPEG_CSS_444:
      return "444";
    case NVJPEG_CSS_422:
      return "422";
    case NVJPEG_CSS_420:
      return "420";
    case NVJPEG_CSS_440:
      return "440";
    case NVJPEG_CSS_411:
      return "411";
    case NVJPEG_CSS_410:
      return "410";
    case NVJPEG_CSS_GRAY:
      return "gray";
    case NVJPEG_CSS_410V:
      return "410V";
    case NVJPEG_CSS_UNKNOWN:
      return "unknown";
  }
  return "unknown";
}

// DALI's subsampling_score: the order in which samples are offered to the hardware decoder.
int css_score(nvjpegChromaSubsampling_t c) {
  switch (c) {
    case NVJPEG_CSS_444:
      return 8;
    case NVJPEG_CSS_422:
      return 7;
    case NVJPEG_CSS_440:
      return 6;
    case NVJPEG_CSS_420:
      return 5;
    case NVJPEG_CSS_411:
      return 4;
    case NVJPEG_CSS_410:
      return 3;
    case NVJPEG_CSS_GRAY:
      return 2;
    default:
      return 1;
  }
}

std::string encoding_name(nvjpegJpegEncoding_t e) {
  switch (e) {
    case NVJPEG_ENCODING_BASELINE_DCT:
      return "baseline (SOF0)";
    case NVJPEG_ENCODING_EXTENDED_SEQUENTIAL_DCT_HUFFMAN:
      return "extended sequential (SOF1)";
    case NVJPEG_ENCODING_PROGRESSIVE_DCT_HUFFMAN:
      return "progressive (SOF2)";
    case NVJPEG_ENCODING_LOSSLESS_HUFFMAN:
      return "lossless (SOF3)";
    default:
      return make_string("unknown (", static_cast<int>(e), ")");
  }
}

}  // namespace

// Note [What falls back]
// Besides the decode-phase statuses of Note [Fallback or error] (nvjpeg_check.h), a sample is
// sent to the CPU fallback without a decode attempt when
// - it is empty, or parsing fails (any status but ALLOCATOR_FAILURE): the headers here
//   (nvjpegJpegStreamParseHeader), the whole stream on the hybrid path (nvjpegJpegStreamParse,
//   decode_hybrid): non-JPEG data, arithmetic coding, corrupt or truncated headers, ...;
// - its samples are not 8-bit (12-bit JPEG) or its encoding is lossless (SOF3) or unknown;
// - libjpeg reads it as RGB (Adobe transform 0, 'R','G','B' component ids) or CMYK / YCCK
//   (unless allow_cmyk): nvJPEG would convert it as YCbCr and disagree with the CPU codec;
// - its first scan uses a quantization table no DQT defined (libjpeg refuses such files);
// - it has a component count other than 1 or 3 (4 with allow_cmyk).
// Caller mistakes (no destination, ROI outside the image, destination too small) are kError.
void NvjpegDecoder::Impl::BatchDecode::parse_sample(int slot, int i) {
  const DecodeRequest& req = requests_[i];
  DecodeResult& res = results_[i];
  SampleState& s = samples_[i];
  if (!req.data || req.size == 0) return set_fallback(res, "empty input");
  if (!req.dst) return set_error(res, "no destination buffer");

  // Headers only (frame, tables; not the entropy-coded data), as DALI's and nvImageCodec's
  // hardware decoders do: enough for routing and nvjpegDecodeBatchedSupportedEx. The hybrid path
  // parses its samples in full (decode_hybrid).
  nvjpegJpegStream_t js = d_.threads_[slot]->probe_stream;
  nvjpegStatus_t st = nvjpegJpegStreamParseHeader(d_.handle_, req.data, req.size, js);
  if (st != NVJPEG_STATUS_SUCCESS) {
    return set_parse_failure(res, "nvjpegJpegStreamParseHeader", st, "");
  }
  unsigned width = 0, height = 0, components = 0, precision = 0;
  nvjpegJpegEncoding_t encoding = NVJPEG_ENCODING_UNKNOWN;
  nvjpegChromaSubsampling_t css = NVJPEG_CSS_UNKNOWN;
  const char* query = nullptr;
  if ((st = nvjpegJpegStreamGetFrameDimensions(js, &width, &height)) != NVJPEG_STATUS_SUCCESS) {
    query = "nvjpegJpegStreamGetFrameDimensions";
  } else if ((st = nvjpegJpegStreamGetComponentsNum(js, &components)) != NVJPEG_STATUS_SUCCESS) {
    query = "nvjpegJpegStreamGetComponentsNum";
  } else if ((st = nvjpegJpegStreamGetJpegEncoding(js, &encoding)) != NVJPEG_STATUS_SUCCESS) {
    query = "nvjpegJpegStreamGetJpegEncoding";
  } else if ((st = nvjpegJpegStreamGetChromaSubsampling(js, &css)) != NVJPEG_STATUS_SUCCESS) {
    query = "nvjpegJpegStreamGetChromaSubsampling";
  } else if ((st = nvjpegJpegStreamGetSamplePrecision(js, &precision)) != NVJPEG_STATUS_SUCCESS) {
    query = "nvjpegJpegStreamGetSamplePrecision";
  }
  if (query) return set_fallback(res, make_string(query, ": ", nvjpeg_status_name(st)));
  res.width = static_cast<int>(width);
  res.height = static_cast<int>(height);
  res.components = static_cast<int>(components);
  res.subsampling = css_name(css);
  res.progressive = encoding == NVJPEG_ENCODING_PROGRESSIVE_DCT_HUFFMAN;

  if (width == 0 || height == 0 || width > INT_MAX || height > INT_MAX) {
    return set_fallback(res, make_string("frame size ", width, "x", height));
  }
  if (precision != 8) {
    return set_fallback(res, make_string(precision, "-bit samples: nvJPEG decodes 8-bit only"));
  }
  if (encoding != NVJPEG_ENCODING_BASELINE_DCT &&
      encoding != NVJPEG_ENCODING_EXTENDED_SEQUENTIAL_DCT_HUFFMAN &&
      encoding != NVJPEG_ENCODING_PROGRESSIVE_DCT_HUFFMAN) {
    return set_fallback(
        res, make_string("encoding ", encoding_name(encoding), " is left to the CPU codec"));
  }
  const JpegHeaderScan header = scan_jpeg_header(req.data, req.size);
  if (header.undefined_quant_table) {
    return set_fallback(res, "a quantization table used by the first scan is not defined");
  }
  if (components == 3 && header.color == JpegColorModel::kRGB) {
    return set_fallback(res,
                        "stored as RGB (Adobe transform 0 or 'R','G','B' component ids); "
                        "nvJPEG would convert it as YCbCr");
  }
  if (components == 4 && !d_.opt_.allow_cmyk) {
    return set_fallback(res,
                        make_string(color_model_name(header.color), " stream (allow_cmyk is off)"));
  }
  if (components != 1 && components != 3 && components != 4) {
    return set_fallback(res, make_string(components, " components"));
  }

  const int full_w = static_cast<int>(width);
  const int full_h = static_cast<int>(height);
  Roi roi{0, 0, full_w, full_h};
  if (req.roi) {
    const Roi& r = *req.roi;
    if (r.w <= 0 || r.h <= 0 || r.x < 0 || r.y < 0 || int64_t(r.x) + r.w > full_w ||
        int64_t(r.y) + r.h > full_h) {
      return set_error(res, make_string("ROI {x=", r.x, ", y=", r.y, ", w=", r.w, ", h=", r.h,
                                        "} is not inside the ", full_w, "x", full_h, " image"));
    }
    roi = r;
  }
  const bool use_roi = roi.w != full_w || roi.h != full_h;  // a whole-image ROI is no ROI
  const size_t need = size_t(roi.w) * size_t(roi.h) * size_t(channels_);
  if (need > req.dst_bytes) {
    return set_error(res, make_string("the destination holds ", req.dst_bytes, " bytes but the ",
                                      roi.w, "x", roi.h, "x", channels_, " output needs ", need));
  }
  nvjpegDecodeParams_t p = d_.params_[i];
  if ((st = nvjpegDecodeParamsSetOutputFormat(p, format_)) != NVJPEG_STATUS_SUCCESS ||
      (st = use_roi ? nvjpegDecodeParamsSetROI(p, roi.x, roi.y, roi.w, roi.h)
                    : nvjpegDecodeParamsSetROI(p, 0, 0, -1, -1)) != NVJPEG_STATUS_SUCCESS ||
      (st = nvjpegDecodeParamsSetAllowCMYK(p, d_.opt_.allow_cmyk ? 1 : 0)) !=
          NVJPEG_STATUS_SUCCESS) {
    return set_error(res, make_string("setting nvjpegDecodeParams: ", nvjpeg_status_name(st)));
  }

  s.roi = roi;
  s.use_roi = use_roi;
  s.out_w = roi.w;
  s.out_h = roi.h;
  s.css_score = css_score(css);
  // Huffman decoding covers the rows down to the ROI's bottom (DALI's size estimate).
  const int64_t huffman_pixels =
      use_roi ? int64_t(roi.w) * (int64_t(roi.y) + roi.h) : int64_t(full_w) * full_h;
  // GPU Huffman decoding is for baseline streams only (nvImageCodec asks nvJPEG only for those).
  s.gpu_huffman =
      huffman_pixels > d_.opt_.hybrid_huffman_threshold && encoding == NVJPEG_ENCODING_BASELINE_DCT;
  s.plan = Plan::kHybrid;

  // The engines decode these subsamplings only (nvjpeg.h: "410 and 411 sub-samplings are not
  // supported"; nvImageCodec's hardware plugin filters the same set before asking nvJPEG).
  const bool hw_subsampling = css == NVJPEG_CSS_444 || css == NVJPEG_CSS_422 ||
                              css == NVJPEG_CSS_420 || css == NVJPEG_CSS_440 ||
                              css == NVJPEG_CSS_GRAY;
  if (hw_possible_ && hw_subsampling && header.hardware_safe()) {
    int unsupported = -1;  // nvJPEG sets 0 when the hardware decoder can take the stream
    st = nvjpegDecodeBatchedSupportedEx(d_.handle_, js, p, &unsupported);
    if (st == NVJPEG_STATUS_SUCCESS && unsupported == 0) {  // Note [Hardware staging]
      size_t offset = staged_bytes_.fetch_add(staged_size(req.size));
      uint8_t* staged = staging_ + offset;
      std::memcpy(staged, req.data, req.size);
      s.staged = staged;
      s.hw_candidate = true;
    }
  }
}

void NvjpegDecoder::Impl::BatchDecode::route() {
  int decodable = 0;
  for (int i = 0; i < batch_size_; ++i) {
    if (samples_[i].plan == Plan::kNone) continue;
    ++decodable;
    (samples_[i].hw_candidate ? hw_list_ : hybrid_list_).push_back(i);
  }
  // DALI's RebalanceAndSortSamples: by chroma subsampling (4:4:4 first), then larger first; the
  // hardware decoder keeps the head of the order, the tail overflows to the hybrid path.
  auto order = [this](int a, int b) {
    const SampleState& sa = samples_[a];
    const SampleState& sb = samples_[b];
    if (sa.css_score != sb.css_score) return sa.css_score > sb.css_score;
    if (results_[a].height != results_[b].height) return results_[a].height > results_[b].height;
    if (results_[a].width != results_[b].width) return results_[a].width > results_[b].width;
    return a < b;
  };
  std::sort(hw_list_.begin(), hw_list_.end(), order);
  size_t hw_count = std::min<size_t>(d_.hw_batch_size(decodable), hw_list_.size());
  hybrid_list_.insert(hybrid_list_.end(), hw_list_.begin() + hw_count, hw_list_.end());
  hw_list_.resize(hw_count);
  for (int i : hw_list_) samples_[i].plan = Plan::kHardware;
  std::sort(hybrid_list_.begin(), hybrid_list_.end(), order);
}

}  // namespace sluice::nvjpeg
