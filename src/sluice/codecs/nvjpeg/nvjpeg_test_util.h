#pragma once
// Helpers for the nvJPEG decoder tests (test binaries only): test files, a libjpeg-turbo
// reference decoder written with plain jpeglib.h calls, pixel diffs, and a batch runner that
// decodes into one poisoned device buffer and copies the outputs back.

// jpeglib.h needs size_t and FILE declared first.
#include <cstddef>
#include <cstdio>

#include <gtest/gtest.h>
#include <jpeglib.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <csetjmp>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "sluice/codecs/nvjpeg/nvjpeg_decoder.h"
#include "sluice/core/error.h"
#include "sluice/cuda/cuda_api.h"
#include "sluice/parallel/thread_pool.h"
#include "sluice/memory/buffer.h"

namespace sluice::nvjpeg::test {

namespace fs = std::filesystem;

// Largest per-component difference accepted between nvJPEG and libjpeg (same chroma upsampling).
// Both inverse DCTs are accurate to +-1 per sample (IEEE 1180 class), so Y, Cb and Cr may each
// differ by 1, and the colour conversion amplifies chroma: |dR| <= 1 + 1.402, |dG| <= 1 + 0.344
// + 0.714, |dB| <= 1 + 1.772, plus 1 for each side's rounding: at most 5. Two more levels of
// headroom cover the hardware engines' IDCT, whose accuracy is not documented.
inline constexpr int kMaxAbsDiff = 7;
inline constexpr double kMaxMeanDiff = 1.5;

inline std::vector<uint8_t> read_file(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  SLUICE_CHECK(f.good(), IOError, "cannot open ", p.string());
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), {});
}

// Regular files under `dir` (recursive), sorted; only *.jpg / *.jpeg when `jpeg_only`; never the
// SOURCES.md / README files.
inline std::vector<fs::path> list_files(const fs::path& dir, bool jpeg_only) {
  std::vector<fs::path> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    std::string ext = e.path().extension().string();
    for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (ext == ".md" || ext == ".txt") continue;
    if (jpeg_only && ext != ".jpg" && ext != ".jpeg") continue;
    out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

struct RefImage {
  int width = 0;
  int height = 0;
  int channels = 0;
  int warnings = 0;   // libjpeg warnings (corrupt data it decoded anyway)
  std::string error;  // libjpeg's message when it failed
  std::vector<uint8_t> pixels;
  bool ok() const { return error.empty(); }
};

namespace detail {
struct ErrorManager {
  jpeg_error_mgr pub;
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};
inline void on_error(j_common_ptr cinfo) {
  auto* err = reinterpret_cast<ErrorManager*>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, err->message);
  std::longjmp(err->jump, 1);
}
inline void on_message(j_common_ptr cinfo, int level) {
  if (level < 0) ++cinfo->err->num_warnings;  // counted, not printed
}

// The setjmp-protected part of libjpeg_decode. Every object it changes lives in the caller's
// frame (so nothing is indeterminate after a longjmp, and no destructor is skipped).
inline bool libjpeg_decode_into(const std::vector<uint8_t>& data, J_COLOR_SPACE out, bool fancy,
                                bool header_only, jpeg_decompress_struct* cinfo, ErrorManager* err,
                                RefImage* img) {
  if (setjmp(err->jump)) return false;
  jpeg_create_decompress(cinfo);
  jpeg_mem_src(cinfo, data.data(), static_cast<unsigned long>(data.size()));
  jpeg_read_header(cinfo, TRUE);
  img->width = static_cast<int>(cinfo->image_width);
  img->height = static_cast<int>(cinfo->image_height);
  img->channels = cinfo->num_components;
  if (header_only) return true;
  cinfo->out_color_space = out;
  cinfo->do_fancy_upsampling = fancy ? TRUE : FALSE;
  cinfo->dct_method = JDCT_ISLOW;
  jpeg_start_decompress(cinfo);
  img->channels = cinfo->output_components;
  img->pixels.resize(size_t(cinfo->output_width) * cinfo->output_height * img->channels);
  while (cinfo->output_scanline < cinfo->output_height) {
    JSAMPROW row =
        img->pixels.data() + size_t(cinfo->output_scanline) * cinfo->output_width * img->channels;
    jpeg_read_scanlines(cinfo, &row, 1);
  }
  jpeg_finish_decompress(cinfo);
  return true;
}
}  // namespace detail

// Decodes with libjpeg-turbo (JDCT_ISLOW). `out` is JCS_RGB or JCS_GRAYSCALE; `fancy` selects
// libjpeg's default "fancy" (triangle) chroma upsampling instead of plain replication. With
// `header_only`, stops after jpeg_read_header (size and components filled, no pixels).
inline RefImage libjpeg_decode(const std::vector<uint8_t>& data, J_COLOR_SPACE out, bool fancy,
                               bool header_only = false) {
  RefImage img;
  jpeg_decompress_struct cinfo;
  detail::ErrorManager err;
  std::memset(&cinfo, 0, sizeof(cinfo));
  cinfo.err = jpeg_std_error(&err.pub);
  err.pub.error_exit = detail::on_error;
  err.pub.emit_message = detail::on_message;
  err.message[0] = '\0';
  bool ok = detail::libjpeg_decode_into(data, out, fancy, header_only, &cinfo, &err, &img);
  img.warnings = static_cast<int>(err.pub.num_warnings);
  jpeg_destroy_decompress(&cinfo);
  if (!ok) {
    img.error = err.message[0] ? err.message : "libjpeg error";
    img.pixels.clear();
  }
  return img;
}

struct Diff {
  double mean = 0;
  int max = 0;
};
inline Diff diff(const uint8_t* a, const uint8_t* b, size_t n) {
  Diff d;
  uint64_t sum = 0;
  for (size_t i = 0; i < n; ++i) {
    int v = std::abs(int(a[i]) - int(b[i]));
    sum += static_cast<uint64_t>(v);
    d.max = std::max(d.max, v);
  }
  d.mean = n ? double(sum) / double(n) : 0.0;
  return d;
}

// Rows [y, y+h) and columns [x, x+w) of an HWC image `width` pixels wide.
inline std::vector<uint8_t> crop(const std::vector<uint8_t>& img, int width, int channels,
                                 const Roi& r) {
  std::vector<uint8_t> out(size_t(r.w) * r.h * channels);
  for (int row = 0; row < r.h; ++row) {
    std::memcpy(out.data() + size_t(row) * r.w * channels,
                img.data() + (size_t(r.y + row) * width + r.x) * channels, size_t(r.w) * channels);
  }
  return out;
}

// One sample for run_batch: the encoded data and the output the test expects to hold.
struct Job {
  const std::vector<uint8_t>* data = nullptr;
  std::optional<Roi> roi;
  int out_w = 0;  // output size the destination is allocated for (0: a 1-byte destination)
  int out_h = 0;
};

struct BatchOutput {
  std::vector<DecodeResult> results;
  std::vector<std::vector<uint8_t>> pixels;  // per job, out_w * out_h * channels bytes
  std::vector<uint8_t> before;               // with `hold`: every destination byte, see below
  double seconds = 0;  // decode() call to stream completion, including the copy back
};

// Decodes `jobs` as one batch into a single device buffer pre-filled with 0xA5 on `stream`
// (poison: an output nvJPEG did not write shows up in the diffs). The outputs are copied back
// by a copy queued on `stream` right after decode(), so they are what later work on the stream
// sees. With `hold`, which queues something slow on the stream, the stream then copies the
// destinations into `before`: work queued before decode(), which must see only the poison.
inline BatchOutput run_batch(NvjpegDecoder& decoder, ThreadPool& pool, cuda::Stream& stream,
                             const std::vector<Job>& jobs, OutputColor color,
                             const std::function<void(cuda::StreamHandle)>& hold = {}) {
  const int c = output_channels(color);
  std::vector<size_t> offsets(jobs.size()), sizes(jobs.size());
  size_t total = 0;
  for (size_t i = 0; i < jobs.size(); ++i) {
    sizes[i] = jobs[i].out_w > 0 ? size_t(jobs[i].out_w) * jobs[i].out_h * c : 1;
    offsets[i] = total;
    total += (sizes[i] + 255) / 256 * 256;
  }
  Buffer dev(MemoryKind::kDevice, decoder.options().device);
  dev.resize(std::max<size_t>(total, 1));
  dev.set_stream(stream.get());
  cuda::memset_async(dev.data(), 0xA5, dev.size(), stream.get());
  Buffer before(MemoryKind::kDevice, decoder.options().device);
  if (hold) {
    before.resize(dev.size());
    before.set_stream(stream.get());
    stream.synchronize();
    hold(stream.get());
    cuda::memcpy_async(before.data(), dev.data(), dev.size(), stream.get());
  }

  std::vector<DecodeRequest> requests(jobs.size());
  for (size_t i = 0; i < jobs.size(); ++i) {
    requests[i].data = jobs[i].data->data();
    requests[i].size = jobs[i].data->size();
    requests[i].roi = jobs[i].roi;
    requests[i].dst = static_cast<uint8_t*>(dev.data()) + offsets[i];
    requests[i].dst_bytes = sizes[i];
  }
  BatchOutput out;
  out.results.resize(jobs.size());
  auto t0 = std::chrono::steady_clock::now();
  decoder.decode(requests, color, pool, stream.get(), out.results);
  std::vector<uint8_t> host(dev.size());
  cuda::memcpy_async(host.data(), dev.data(), dev.size(), stream.get());
  stream.synchronize();
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (hold) {
    out.before.resize(before.size());
    cuda::memcpy_async(out.before.data(), before.data(), before.size(), stream.get());
    stream.synchronize();
  }
  out.pixels.resize(jobs.size());
  for (size_t i = 0; i < jobs.size(); ++i) {
    out.pixels[i].assign(host.begin() + offsets[i], host.begin() + offsets[i] + sizes[i]);
  }
  return out;
}

// Stats must add up: the change since `before` matches the routes in `results`.
inline ::testing::AssertionResult stats_match(const NvjpegDecoderStats& before,
                                              const NvjpegDecoderStats& after,
                                              const std::vector<DecodeResult>& results) {
  NvjpegDecoderStats want;
  for (const DecodeResult& r : results) {
    switch (r.route) {
      case DecodeRoute::kHardware:
        ++want.hardware;
        break;
      case DecodeRoute::kHybrid:
        ++want.hybrid;
        break;
      case DecodeRoute::kGpuHybrid:
        ++want.gpu_hybrid;
        break;
      case DecodeRoute::kHost:
        ++want.host;
        break;
      case DecodeRoute::kFallback:
        ++want.fallback;
        break;
      case DecodeRoute::kError:
        ++want.failed;
        break;
    }
  }
  auto d = [](uint64_t a, uint64_t b) { return a - b; };
  bool ok = d(after.samples, before.samples) == results.size() &&
            d(after.hardware, before.hardware) == want.hardware &&
            d(after.hybrid, before.hybrid) == want.hybrid &&
            d(after.gpu_hybrid, before.gpu_hybrid) == want.gpu_hybrid &&
            d(after.host, before.host) == want.host &&
            d(after.fallback, before.fallback) == want.fallback &&
            d(after.failed, before.failed) == want.failed &&
            after.hardware + after.hybrid + after.gpu_hybrid + after.host + after.fallback +
                    after.failed ==
                after.samples;
  if (ok) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "stats do not add up: samples " << after.samples << " (+" << results.size()
         << " expected), hw " << after.hardware << ", hybrid " << after.hybrid << ", gpu-hybrid "
         << after.gpu_hybrid << ", host " << after.host << ", fallback " << after.fallback
         << ", failed " << after.failed << "; this batch's results: hw " << want.hardware
         << ", hybrid " << want.hybrid << ", gpu-hybrid " << want.gpu_hybrid << ", host "
         << want.host << ", fallback " << want.fallback << ", failed " << want.failed;
}

inline std::string stats_line(const NvjpegDecoderStats& s) {
  return make_string("batches ", s.batches, ", samples ", s.samples, ": hw ", s.hardware,
                     ", hybrid ", s.hybrid, ", gpu-hybrid ", s.gpu_hybrid, ", host ", s.host,
                     ", fallback ", s.fallback, ", failed ", s.failed, ", hw batch failures ",
                     s.hardware_batch_failures);
}

}  // namespace sluice::nvjpeg::test
