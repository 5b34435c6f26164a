// One batch of NvjpegDecoder: parse, route, decode (hybrid path on the pool while the calling
// thread submits the hardware sub-batch), join. The overview is in nvjpeg_decoder.h.

#include <cuda_runtime.h>
#include <chrono>

#include <algorithm>
#include <climits>
#include <cstring>
#include <thread>

#include "sluice/codecs/nvjpeg/jpeg_header_scan.h"
#include "sluice/codecs/nvjpeg/nvjpeg_check.h"
#include "sluice/codecs/nvjpeg/nvjpeg_decoder.h"
#include "sluice/codecs/nvjpeg/nvjpeg_decoder_impl.h"
#include "sluice/core/error.h"

namespace sluice::nvjpeg {
namespace {

constexpr size_t kStagingAlignment = 64;

size_t align_up(size_t x, size_t a) {
  return (x + a - 1) / a * a;
}

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

nvjpegOutputFormat_t to_nvjpeg_format(OutputColor c) {
  switch (c) {
    case OutputColor::kRGB:
      return NVJPEG_OUTPUT_RGBI;
    case OutputColor::kBGR:
      return NVJPEG_OUTPUT_BGRI;
    case OutputColor::kGray:
      return NVJPEG_OUTPUT_Y;
  }
  return NVJPEG_OUTPUT_RGBI;
}

void set_decoded(DecodeResult& r, DecodeRoute route) {
  r.route = route;
  r.message.clear();
}
void set_fallback(DecodeResult& r, std::string msg) {
  r.route = DecodeRoute::kFallback;
  r.message = std::move(msg);
}
void set_error(DecodeResult& r, std::string msg) {
  r.route = DecodeRoute::kError;
  r.message = std::move(msg);
}
// A failed decode phase: fallback or error per Note [Fallback or error] (nvjpeg_check.h).
void set_failure(DecodeResult& r, const char* phase, nvjpegStatus_t s, const std::string& note) {
  std::string msg = make_string(phase, ": ", nvjpeg_status_name(s), note);
  if (nvjpeg_status_needs_fallback(s)) {
    set_fallback(r, std::move(msg));
  } else if (s == NVJPEG_STATUS_ALLOCATOR_FAILURE) {
    set_error(r, make_string(msg, ": ", take_allocation_failure()));
    r.out_of_memory = true;
  } else {
    set_error(r, std::move(msg));
  }
}

}  // namespace

void NvjpegDecoder::Impl::decode(std::span<const DecodeRequest> batch, OutputColor color,
                                 ThreadPool& pool, cuda::StreamHandle stream,
                                 std::span<DecodeResult> results) {
  SLUICE_CHECK(results.size() == batch.size(), InvalidArgument, "nvJPEG decode: ", batch.size(),
               " requests but ", results.size(), " result slots");
  SLUICE_CHECK(batch.size() <= static_cast<size_t>(INT_MAX), InvalidArgument,
               "nvJPEG decode: batch of ", batch.size(), " samples is too large");
  SLUICE_CHECK(stream != nullptr, InvalidArgument,
               "nvJPEG decode needs the caller's CUDA stream (the legacy default stream is never "
               "used)");
  SLUICE_CHECK(pool.num_threads() <= opt_.num_thread_states, InvalidArgument,
               "nvJPEG decode: the thread pool has ", pool.num_threads(),
               " threads but the decoder has num_thread_states=", opt_.num_thread_states);
  if (batch.empty()) return;
  cuda::DeviceGuard guard(opt_.device);
  begin_batch(batch, color, results);
  entry_.record(stream);
  using Clock = std::chrono::steady_clock;
  auto ms_since = [](Clock::time_point t) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
  };
  const auto t_start = Clock::now();
  auto t_decode = t_start;
  try {
    {  // 1. Parse every sample; stage hardware candidates.
      std::atomic<int> next{0};
      ThreadPool::TaskGroup group(pool);
      launch(group, pool, next, batch_size_, [this](int i, int slot) { parse_sample(slot, i); });
      group.wait();
    }
    route();  // 2.
    t_decode = Clock::now();
    {  // 3. Hybrid samples on the pool; meanwhile the hardware sub-batch from here.
      std::atomic<int> next{0};
      ThreadPool::TaskGroup group(pool);
      launch(group, pool, next, static_cast<int>(hybrid_list_.size()), [this](int k, int slot) {
        begin_slot(slot, /*after_hardware=*/false);
        decode_hybrid(slot, hybrid_list_[k], /*retry=*/false);
      });
      const auto t_hw = Clock::now();
      submit_hardware();
      hw_submit_ms_ = ms_since(t_hw);
      group.wait();
    }
    if (!retry_list_.empty()) {  // 3b. nvJPEG rejected the hardware sub-batch as a whole.
      std::atomic<int> next{0};
      ThreadPool::TaskGroup group(pool);
      launch(group, pool, next, static_cast<int>(retry_list_.size()), [this](int k, int slot) {
        begin_slot(slot, /*after_hardware=*/true);
        decode_hybrid(slot, retry_list_[k], /*retry=*/true);
      });
      group.wait();
    }
  } catch (...) {
    // CUDA itself failed. Still order whatever was queued before the caller's next work.
    try {
      join(stream);
    } catch (...) {
    }
    throw;
  }
  join(stream);  // 4.
  parse_ms_ = std::chrono::duration<double, std::milli>(t_decode - t_start).count();
  decode_ms_ = ms_since(t_decode);
  account();
}

void NvjpegDecoder::Impl::launch(ThreadPool::TaskGroup& group, ThreadPool& pool,
                                 std::atomic<int>& next, int count,
                                 const std::function<void(int, int)>& body) {
  int tasks = std::min(count, pool.num_threads());
  for (int t = 0; t < tasks; ++t) {
    group.submit([this, &next, count, body](int slot) {
      SLUICE_ENFORCE(slot >= 0 && slot < static_cast<int>(threads_.size()), "pool thread index ",
                     slot, " has no nvJPEG state");
      cuda::DeviceGuard guard(opt_.device);
      for (int k = next.fetch_add(1); k < count; k = next.fetch_add(1)) body(k, slot);
    });
  }
}

void NvjpegDecoder::Impl::begin_batch(std::span<const DecodeRequest> batch, OutputColor color,
                                      std::span<DecodeResult> results) {
  requests_ = batch.data();
  results_ = results.data();
  batch_size_ = static_cast<int>(batch.size());
  format_ = to_nvjpeg_format(color);
  channels_ = output_channels(color);
  params_.reserve(batch.size());
  while (params_.size() < batch.size()) {
    nvjpegDecodeParams_t p = nullptr;
    SLUICE_NVJPEG_CHECK(nvjpegDecodeParamsCreate(handle_, &p));
    params_.push_back(p);
  }
  samples_.assign(batch.size(), SampleState{});
  for (DecodeResult& r : results) {
    r = DecodeResult{};
    r.message = "not processed";  // overwritten by every path; kept if a CUDA failure aborts
  }
  hw_list_.clear();
  hybrid_list_.clear();
  retry_list_.clear();
  hw_submitted_ = false;
  hw_failure_.clear();
  for (auto& ts : threads_) ts->active = false;

  // Note [Hardware set-up in the background]
  hw_possible_ = hw_ready() && hw_batch_size(batch_size_) > 0;
  if (hw_possible_) {  // Note [Hardware staging]
    staging_index_ ^= 1;
    staging_done_[staging_index_].synchronize();
    size_t total = 0;
    for (const DecodeRequest& r : batch) total += align_up(r.size, kStagingAlignment);
    staging_[staging_index_].resize(std::max<size_t>(total, 1));
    staged_bytes_ = 0;
  }
}

// Note [What falls back]
// Besides the decode-phase statuses of Note [Fallback or error] (nvjpeg_check.h), a sample is
// sent to the CPU fallback without a decode attempt when
// - it is empty, or nvjpegJpegStreamParse fails (any status but ALLOCATOR_FAILURE): non-JPEG
//   data, arithmetic coding, corrupt or truncated headers, ...;
// - its samples are not 8-bit (12-bit JPEG) or its encoding is lossless (SOF3) or unknown;
// - libjpeg reads it as RGB (Adobe transform 0, 'R','G','B' component ids) or CMYK / YCCK
//   (unless allow_cmyk): nvJPEG would convert it as YCbCr and disagree with the CPU codec;
// - its first scan uses a quantization table no DQT defined (libjpeg refuses such files);
// - it has a component count other than 1 or 3 (4 with allow_cmyk).
// Caller mistakes (no destination, ROI outside the image, destination too small) are kError.
void NvjpegDecoder::Impl::parse_sample(int slot, int i) {
  const DecodeRequest& req = requests_[i];
  DecodeResult& res = results_[i];
  SampleState& s = samples_[i];
  if (!req.data || req.size == 0) return set_fallback(res, "empty input");
  if (!req.dst) return set_error(res, "no destination buffer");

  nvjpegJpegStream_t js = threads_[slot]->probe_stream;
  nvjpegStatus_t st = nvjpegJpegStreamParse(handle_, req.data, req.size, 0, 0, js);
  if (st != NVJPEG_STATUS_SUCCESS) {
    if (st == NVJPEG_STATUS_ALLOCATOR_FAILURE) {
      return set_failure(res, "nvjpegJpegStreamParse", st, "");
    }
    return set_fallback(res, make_string("nvjpegJpegStreamParse: ", nvjpeg_status_name(st)));
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
  if (components == 4 && !opt_.allow_cmyk) {
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
  nvjpegDecodeParams_t p = params_[i];
  if ((st = nvjpegDecodeParamsSetOutputFormat(p, format_)) != NVJPEG_STATUS_SUCCESS ||
      (st = use_roi ? nvjpegDecodeParamsSetROI(p, roi.x, roi.y, roi.w, roi.h)
                    : nvjpegDecodeParamsSetROI(p, 0, 0, -1, -1)) != NVJPEG_STATUS_SUCCESS ||
      (st = nvjpegDecodeParamsSetAllowCMYK(p, opt_.allow_cmyk ? 1 : 0)) != NVJPEG_STATUS_SUCCESS) {
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
      huffman_pixels > opt_.hybrid_huffman_threshold && encoding == NVJPEG_ENCODING_BASELINE_DCT;
  s.plan = Plan::kHybrid;

  // The engines decode these subsamplings only (nvjpeg.h: "410 and 411 sub-samplings are not
  // supported"; nvImageCodec's hardware plugin filters the same set before asking nvJPEG).
  const bool hw_subsampling = css == NVJPEG_CSS_444 || css == NVJPEG_CSS_422 ||
                              css == NVJPEG_CSS_420 || css == NVJPEG_CSS_440 ||
                              css == NVJPEG_CSS_GRAY;
  if (hw_possible_ && hw_subsampling && header.hardware_safe()) {
    int unsupported = -1;  // nvJPEG sets 0 when the hardware decoder can take the stream
    st = nvjpegDecodeBatchedSupportedEx(handle_, js, p, &unsupported);
    if (st == NVJPEG_STATUS_SUCCESS && unsupported == 0) {
      size_t offset = staged_bytes_.fetch_add(align_up(req.size, kStagingAlignment));
      auto* staged = static_cast<uint8_t*>(staging_[staging_index_].data()) + offset;
      std::memcpy(staged, req.data, req.size);
      s.staged = staged;
      s.hw_candidate = true;
    }
  }
}

void NvjpegDecoder::Impl::route() {
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
  size_t hw_count = std::min<size_t>(hw_batch_size(decodable), hw_list_.size());
  hybrid_list_.insert(hybrid_list_.end(), hw_list_.begin() + hw_count, hw_list_.end());
  hw_list_.resize(hw_count);
  for (int i : hw_list_) samples_[i].plan = Plan::kHardware;
  std::sort(hybrid_list_.begin(), hybrid_list_.end(), order);
}

void NvjpegDecoder::Impl::submit_hardware() {
  if (hw_list_.empty()) return;
  // The batched states are reused: their previous batch must have finished before they are
  // re-initialized (DALI and nvImageCodec wait here too). Normally long done: it was submitted
  // one decode() ago; hardware_wait_ms says how long this waits (engines slower than the rest).
  const auto t0 = std::chrono::steady_clock::now();
  hw_done_.synchronize();
  hw_wait_ms_ =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  hw_submitted_ = true;
  // Contiguous shares of the sorted hardware list, one per lane.
  const int m = static_cast<int>(hw_list_.size());
  const int lanes = std::min<int>(static_cast<int>(hw_lanes_.size()), m);
  for (int l = 0; l < static_cast<int>(hw_lanes_.size()); ++l) {
    HwLane& lane = hw_lanes_[l];
    lane.samples.assign(hw_list_.begin() + (l < lanes ? int64_t(m) * l / lanes : m),
                        hw_list_.begin() + (l < lanes ? int64_t(m) * (l + 1) / lanes : m));
  }
  std::vector<std::thread> helpers;
  for (int l = 1; l < lanes; ++l) {
    helpers.emplace_back([this, l] {
      cuda::DeviceGuard guard(opt_.device);
      submit_lane(hw_lanes_[l]);
    });
  }
  if (lanes > 0) submit_lane(hw_lanes_[0]);
  for (auto& t : helpers) t.join();
  for (int l = 0; l < lanes; ++l)
    cuda::stream_wait_event(hw_stream_.get(), hw_lanes_[l].done.get());
  // Recorded after a failure too: nvJPEG may have queued part of the work.
  staging_done_[staging_index_].record(hw_stream_.get());
  hw_done_.record(hw_stream_.get());
  for (int l = 0; l < lanes; ++l) {
    HwLane& lane = hw_lanes_[l];
    if (lane.status == NVJPEG_STATUS_SUCCESS) {
      for (int i : lane.samples) set_decoded(results_[i], DecodeRoute::kHardware);
      continue;
    }
    hw_failure_ = make_string(lane.phase, " for ", lane.samples.size(), " samples returned ",
                              nvjpeg_status_name(lane.status));
    for (int i : lane.samples) {
      retry_list_.push_back(i);
      samples_[i].plan = Plan::kHybrid;
    }
  }
}

void NvjpegDecoder::Impl::submit_lane(HwLane& lane) {
  const int m = static_cast<int>(lane.samples.size());
  lane.data.resize(m);
  lane.lengths.resize(m);
  lane.dst.resize(m);
  lane.params.resize(m);
  for (int k = 0; k < m; ++k) {
    const int i = lane.samples[k];
    lane.data[k] = samples_[i].staged;
    lane.lengths[k] = requests_[i].size;
    lane.dst[k] = nvjpegImage_t{};
    lane.dst[k].channel[0] = requests_[i].dst;
    lane.dst[k].pitch[0] = size_t(samples_[i].out_w) * size_t(channels_);
    if (lane.handle == handle_) {
      lane.params[k] = params_[i];
      continue;
    }
    // Parameters belong to their handle: this lane's own, set like params_[i].
    if (lane.own_params.size() <= static_cast<size_t>(k)) {
      nvjpegDecodeParams_t p = nullptr;
      lane.status = nvjpegDecodeParamsCreate(lane.handle, &p);
      if (lane.status != NVJPEG_STATUS_SUCCESS) {
        lane.phase = "nvjpegDecodeParamsCreate";
        return lane.done.record(lane.stream.get());
      }
      lane.own_params.push_back(p);
    }
    nvjpegDecodeParams_t p = lane.own_params[k];
    const Roi& r = samples_[i].roi;
    lane.status = nvjpegDecodeParamsSetOutputFormat(p, format_);
    if (lane.status == NVJPEG_STATUS_SUCCESS) {
      lane.status = samples_[i].use_roi ? nvjpegDecodeParamsSetROI(p, r.x, r.y, r.w, r.h)
                                        : nvjpegDecodeParamsSetROI(p, 0, 0, -1, -1);
    }
    if (lane.status != NVJPEG_STATUS_SUCCESS) {
      lane.phase = "nvjpegDecodeParamsSet";
      return lane.done.record(lane.stream.get());
    }
    lane.params[k] = p;
  }
  cuda::stream_wait_event(lane.stream.get(), entry_.get());
  lane.phase = "nvjpegDecodeBatchedInitialize";
  // max_cpu_threads is not used by the hardware backend (DALI passes 1 as well).
  lane.status = nvjpegDecodeBatchedInitialize(lane.handle, lane.state, m, 1, format_);
  if (lane.status == NVJPEG_STATUS_SUCCESS) {
    lane.phase = "nvjpegDecodeBatchedEx";
    lane.status = nvjpegDecodeBatchedEx(lane.handle, lane.state, lane.data.data(),
                                        lane.lengths.data(), lane.dst.data(), lane.params.data(),
                                        static_cast<cudaStream_t>(lane.stream.get()));
  }
  lane.done.record(lane.stream.get());
}

void NvjpegDecoder::Impl::begin_slot(int slot, bool after_hardware) {
  ThreadState& ts = *threads_[slot];
  if (!ts.active) {
    // Work queued on the caller's stream before decode() (e.g. producing the destinations).
    cuda::stream_wait_event(ts.stream.get(), entry_.get());
    ts.active = true;
  }
  // A retried sample's destination may have been partly written by the hardware stream.
  if (after_hardware) cuda::stream_wait_event(ts.stream.get(), hw_done_.get());
}

void NvjpegDecoder::Impl::decode_hybrid(int slot, int i, bool retry) {
  ThreadState& ts = *threads_[slot];
  const DecodeRequest& req = requests_[i];
  DecodeResult& res = results_[i];
  const SampleState& s = samples_[i];
  // hw_failure_ is written while the first hybrid round runs: read it in the retry round only.
  const std::string note = retry ? make_string(" (retried after ", hw_failure_, ")") : "";

  // Note [Double buffering]
  const int current = ts.next_page;
  ts.next_page ^= 1;
  PageState& page = ts.pages[current];
  PageState& previous = ts.pages[current ^ 1];  // this thread's previous sample
  page.done.synchronize();

  nvjpegStatus_t st = nvjpegJpegStreamParse(handle_, req.data, req.size, 0, 0, page.jpeg_stream);
  if (st != NVJPEG_STATUS_SUCCESS) return set_failure(res, "nvjpegJpegStreamParse", st, note);
  int b = kHybridCpu;
  if (s.gpu_huffman) {
    // GPU Huffman decoding handles fewer stream layouts: ask first, else keep CPU Huffman.
    int unsupported = 1;
    st = nvjpegDecoderJpegSupported(ts.decoders[kHybridGpu], page.jpeg_stream, params_[i],
                                    &unsupported);
    if (st == NVJPEG_STATUS_SUCCESS && unsupported == 0) b = kHybridGpu;
  }
  nvjpegJpegDecoder_t decoder = ts.decoders[b];
  nvjpegJpegState_t state = page.states[b];
  // The buffers are attached before every use, as DALI does: both backends' states share them,
  // so this never depends on a state remembering a buffer the other state has since resized.
  st = nvjpegStateAttachPinnedBuffer(state, page.pinned);
  if (st != NVJPEG_STATUS_SUCCESS) {
    return set_failure(res, "nvjpegStateAttachPinnedBuffer", st, note);
  }
  st = nvjpegDecodeJpegHost(handle_, decoder, state, params_[i], page.jpeg_stream);
  if (st != NVJPEG_STATUS_SUCCESS) return set_failure(res, "nvjpegDecodeJpegHost", st, note);

  auto stream = static_cast<cudaStream_t>(ts.stream.get());
  previous.done.synchronize();
  const char* phase = "nvjpegStateAttachDeviceBuffer";
  st = nvjpegStateAttachDeviceBuffer(state, ts.device_buffer);
  if (st == NVJPEG_STATUS_SUCCESS) {
    phase = "nvjpegDecodeJpegTransferToDevice";
    st = nvjpegDecodeJpegTransferToDevice(handle_, decoder, state, page.jpeg_stream, stream);
  }
  if (st == NVJPEG_STATUS_SUCCESS) {
    phase = "nvjpegDecodeJpegDevice";
    nvjpegImage_t image{};
    image.channel[0] = req.dst;
    image.pitch[0] = size_t(s.out_w) * size_t(channels_);
    st = nvjpegDecodeJpegDevice(handle_, decoder, state, &image, stream);
  }
  // Whatever was queued, succeeded or not, must finish before this page is written again.
  page.done.record(ts.stream.get());
  if (st != NVJPEG_STATUS_SUCCESS) return set_failure(res, phase, st, note);
  set_decoded(res, b == kHybridGpu ? DecodeRoute::kGpuHybrid : DecodeRoute::kHybrid);
}

void NvjpegDecoder::Impl::join(cuda::StreamHandle stream) {
  for (auto& ts : threads_) {
    if (!ts->active) continue;
    ts->join.record(ts->stream.get());
    cuda::stream_wait_event(stream, ts->join.get());
  }
  if (hw_submitted_) cuda::stream_wait_event(stream, hw_done_.get());
}

void NvjpegDecoder::Impl::account() {
  NvjpegDecoderStats d;
  for (int i = 0; i < batch_size_; ++i) {
    switch (results_[i].route) {
      case DecodeRoute::kHardware:
        ++d.hardware;
        break;
      case DecodeRoute::kHybrid:
        ++d.hybrid;
        break;
      case DecodeRoute::kGpuHybrid:
        ++d.gpu_hybrid;
        break;
      case DecodeRoute::kFallback:
        ++d.fallback;
        break;
      case DecodeRoute::kError:
        ++d.failed;
        break;
    }
  }
  std::lock_guard<std::mutex> lk(stats_mu_);
  stats_.parse_ms += parse_ms_;
  stats_.decode_ms += decode_ms_;
  stats_.hardware_submit_ms += hw_submit_ms_;
  stats_.hardware_wait_ms += hw_wait_ms_;
  hw_submit_ms_ = 0;
  hw_wait_ms_ = 0;
  stats_.batches += 1;
  stats_.samples += static_cast<uint64_t>(batch_size_);
  stats_.hardware += d.hardware;
  stats_.hybrid += d.hybrid;
  stats_.gpu_hybrid += d.gpu_hybrid;
  stats_.fallback += d.fallback;
  stats_.failed += d.failed;
  if (!hw_failure_.empty()) stats_.hardware_batch_failures += 1;
}

}  // namespace sluice::nvjpeg
