// Mixed (CPU in, GPU out) image decoders on nvJPEG: decoders.image, image_random_crop,
// image_crop and image_slice with device="mixed".
//
// Per batch: headers are read on the CPU (the same windows as the CPU decoder: same RNG, same
// rules); JPEGs go to the nvJPEG engine (hardware engines for a share of the batch, hybrid
// CPU-Huffman/GPU-IDCT for the rest, or with rest_decoder="cpu" the CPU codec for the rest),
// with the crop as a region of interest; whatever nvJPEG cannot decode (other formats,
// arithmetic coding, CMYK, YCbCr/ANY_DATA output, non-UINT8 types) is decoded by the CPU codec
// into pinned memory and copied up. EXIF orientation is applied on the GPU after decoding.
// Everything is ordered on the pipeline's stream.

#include <chrono>
#include <cstring>
#include <optional>

#include "sluice/codecs/jpeg_structure.h"
#include "sluice/codecs/nvjpeg/nvjpeg_decoder.h"
#include "sluice/memory/param_upload.h"
#include "sluice/kernels/crop/crop_gpu.h"
#include "sluice/ops/decoders/decoder_args.h"

namespace sluice {
namespace {

class ImageDecoderMixed : public Operator {
 public:
  using Operator::Operator;

  void setup(const OpContext& ctx) override {
    args_ = parse_decoder_args(spec_);
    nvjpeg::NvjpegDecoderOptions o;
    o.device = ctx.device_id;
    o.stream_priority = ctx.stream_priority;
    o.num_thread_states = ctx.num_slots;
    o.hw_decoder_load = spec_.arg<float>("hw_decoder_load");
    // From 8 threads the CPU codec next to the hardware decoder beats the hybrid path by 15-20%
    // on an H100 host (bench/RESULTS.md section 3); with fewer it has not the cores.
    const std::string rest = spec_.arg<std::string>("rest_decoder");
    rest_on_cpu_ = rest == "cpu" || (rest == "auto" && ctx.num_threads >= 8);
    // Note [Balancing the hardware share]: a share the user gives stays fixed, as in DALI.
    o.balance_hw_load = rest_on_cpu_ && !spec_.has_arg("hw_decoder_load");
    o.hybrid_huffman_threshold = spec_.arg<int64_t>("hybrid_huffman_threshold");
    o.device_memory_padding = static_cast<size_t>(spec_.arg<int64_t>("device_memory_padding"));
    o.host_memory_padding = static_cast<size_t>(spec_.arg<int64_t>("host_memory_padding"));
    o.preallocate_width_hint = spec_.arg<int>("preallocate_width_hint");
    o.preallocate_height_hint = spec_.arg<int>("preallocate_height_hint");
    o.max_batch_size = ctx.max_batch_size;
    o.fancy_upsampling = spec_.arg<bool>("jpeg_fancy_upsampling");
    o.hardware_setup_in_background = true;  // the first batches go hybrid: sooner first batch
    decoder_ = std::make_unique<nvjpeg::NvjpegDecoder>(o);
    scratch_.resize(ctx.num_slots);
    for (auto& s : scratch_) s = std::make_unique<codecs::DecoderScratch>();
    staging_.resize(ctx.num_slots);
    for (auto& p : pages_) {
      p.done = cuda::Event(ctx.device_id);
      p.data.set_stream(ctx.stream);
    }
    raw_ = Buffer(MemoryKind::kDevice, ctx.device_id);
    raw_.set_stream(ctx.stream);
    transforms_ = std::make_unique<ParamUpload>(ctx.device_id);
    // nvJPEG decodes what it can straight into the output: RGB, BGR or GRAY uint8.
    gpu_color_ = args_.dtype == DType::kUInt8 && (args_.color == codecs::OutputColor::kRGB ||
                                                  args_.color == codecs::OutputColor::kBGR ||
                                                  args_.color == codecs::OutputColor::kGray);
    nv_color_ = args_.color == codecs::OutputColor::kBGR    ? nvjpeg::OutputColor::kBGR
                : args_.color == codecs::OutputColor::kGray ? nvjpeg::OutputColor::kGray
                                                            : nvjpeg::OutputColor::kRGB;
  }

  void run(Workspace& ws) override {
    using Clock = std::chrono::steady_clock;
    const auto t_start = Clock::now();
    const TensorList& in = ws.input(0);
    const int n = ws.batch_size();
    std::vector<codecs::ImageInfo> info(n);
    std::vector<codecs::DecodeParams> params(n);
    std::vector<Shape> shapes(n, Shape{0, 0, 0});
    std::vector<char> bad(n, 0);
    std::vector<std::string> errors(n);
    auto fail = [&](int i, const std::string& msg) {
      if (!args_.skip_bad) throw DecodeError(msg);
      bad[i] = 1;
      errors[i] = ws.sample_context(i) + ": " + msg;
    };
    codecs::DecodeParams base;
    base.color = args_.color;
    base.adjust_orientation = args_.adjust_orientation;
    base.dtype = args_.dtype == DType::kUInt16 ? DType::kUInt16 : DType::kUInt8;
    base.max_pixels = args_.max_pixels;

    // 1. Headers, windows and shapes (on the pool).
    ws.for_each_sample([&](int i, int) {
      try {
        info[i] = codecs::peek_image(in.sample<uint8_t>(i), in.sample_bytes(i));
        if (info[i].format == codecs::ImageFormat::kJpeg) {
          // nvJPEG decodes truncated streams without complaint; libjpeg does not. Agree with it.
          std::string problem =
              codecs::jpeg_structure_problem(in.sample<uint8_t>(i), in.sample_bytes(i));
          if (!problem.empty()) throw DecodeError("corrupt JPEG: " + problem);
        }
        codecs::ImageSize o = codecs::oriented_size(info[i], args_.adjust_orientation);
        params[i] = base;
        params[i].crop = decoder_window(args_, ws, i, o.height, o.width);
        shapes[i] = codecs::decoded_shape(info[i], params[i]);
      } catch (const DecodeError& e) {
        fail(i, e.what());
      }
    });
    TensorList& out = ws.output(0);
    out.resize(shapes, args_.dtype);
    out.set_layout("HWC");

    // 2. nvJPEG for the JPEGs it can take. Rotated samples decode their raw window into a
    // temporary buffer first and are turned upright in step 4.
    std::vector<int> gpu_samples, fallback;
    std::vector<size_t> raw_offset(n, SIZE_MAX);
    size_t raw_bytes = 0;
    // rest_decoder="cpu" without a hardware share leaves nvJPEG nothing: the CPU codec takes
    // the whole batch, in order, so that its copies up merge (finish_cpu).
    const bool all_on_cpu = rest_on_cpu_ && !decoder_->hardware_enabled();
    for (int i = 0; i < n; ++i) {
      if (bad[i]) continue;
      if (all_on_cpu || !gpu_color_ || info[i].format != codecs::ImageFormat::kJpeg) {
        fallback.push_back(i);
        continue;
      }
      gpu_samples.push_back(i);
      if (orientation(i, info) != 1) {
        raw_offset[i] = raw_bytes;
        raw_bytes += out.sample_bytes(i);
      }
    }
    raw_.resize(raw_bytes);
    std::vector<nvjpeg::DecodeRequest> requests(gpu_samples.size());
    for (size_t k = 0; k < gpu_samples.size(); ++k) {
      const int i = gpu_samples[k];
      nvjpeg::DecodeRequest& r = requests[k];
      r.data = in.sample<uint8_t>(i);
      r.size = in.sample_bytes(i);
      if (params[i].crop) {
        CropWindow raw = codecs::oriented_to_raw(*params[i].crop, {info[i].width, info[i].height},
                                                 orientation(i, info));
        r.roi = nvjpeg::Roi{static_cast<int>(raw.x), static_cast<int>(raw.y),
                            static_cast<int>(raw.w), static_cast<int>(raw.h)};
      }
      r.dst = raw_offset[i] == SIZE_MAX ? out.sample<uint8_t>(i)
                                        : static_cast<uint8_t*>(raw_.data()) + raw_offset[i];
      r.dst_bytes = out.sample_bytes(i);
    }
    std::vector<nvjpeg::DecodeResult> results(requests.size());
    // rest_decoder="cpu": what the hardware decoder does not take goes to the CPU codec, on
    // the pool while the hardware sub-batch is submitted (nvJPEG's requests index gpu_samples).
    std::optional<CpuBatch> host_batch;
    std::vector<int> host_page(gpu_samples.size(), -1);
    auto host_prepare = [&](std::span<const int> ks) {
      std::vector<int> samples;
      for (int k : ks) {
        host_page[k] = static_cast<int>(samples.size());
        samples.push_back(gpu_samples[k]);
      }
      host_batch = begin_cpu(std::move(samples), out);
    };
    auto host_decode = [&](int k, int thread) {
      decode_cpu(ws, *host_batch, host_page[k], thread, info, params, out);
    };
    const nvjpeg::HostDecode host{host_prepare, host_decode};
    const auto t_decode = Clock::now();
    if (!requests.empty()) {
      decoder_->decode(requests, nv_color_, *ws.context().pool, ws.stream(), results,
                       rest_on_cpu_ ? &host : nullptr);
    }
    const auto t_after = Clock::now();
    std::vector<int> rotate;
    for (size_t k = 0; k < gpu_samples.size(); ++k) {
      const int i = gpu_samples[k];
      if (results[k].route == nvjpeg::DecodeRoute::kFallback) {
        fallback.push_back(i);
        raw_offset[i] = SIZE_MAX;
      } else if (results[k].route == nvjpeg::DecodeRoute::kHost) {
        raw_offset[i] = SIZE_MAX;  // the CPU codec turned it upright
      } else if (results[k].out_of_memory) {
        throw OutOfMemory("nvJPEG: " + results[k].message);
      } else if (results[k].route == nvjpeg::DecodeRoute::kError) {
        fail(i, "nvJPEG: " + results[k].message);
      } else if (raw_offset[i] != SIZE_MAX) {
        rotate.push_back(i);
      }
    }
    (all_on_cpu ? host_count_ : fallback_count_) += static_cast<int64_t>(fallback.size());
    if (host_batch) {
      host_count_ += static_cast<int64_t>(host_batch->samples.size());
      finish_cpu(ws, *host_batch, bad, errors, out);
    }

    // 3. The CPU codec for what nvJPEG could not take, into pinned staging, then up.
    // The page keeps the batch's order (its copies up merge); the costliest decode first.
    if (!fallback.empty()) {
      CpuBatch b = begin_cpu(std::move(fallback), out);
      std::vector<double> cost;
      for (int i : b.samples)
        cost.push_back(decode_cost(in.sample_bytes(i), info[i], params[i].crop));
      const std::vector<int> order = costliest_first(cost);
      ws.context().pool->parallel_for(
          static_cast<int64_t>(b.samples.size()),
          [&](int64_t k, int thread) { decode_cpu(ws, b, order[k], thread, info, params, out); },
          ws.caller_slot());
      finish_cpu(ws, b, bad, errors, out);
    }

    // 4. EXIF orientation on the GPU.
    if (!rotate.empty()) {
      std::vector<CropGpuSample> samples;
      for (int i : rotate) {
        if (bad[i]) continue;
        const Shape& s = out.shape(i);
        bool swap = codecs::orientation_swaps_axes(orientation(i, info));
        ImageView<const uint8_t> src{static_cast<const uint8_t*>(raw_.data()) + raw_offset[i],
                                     swap ? s[1] : s[0], swap ? s[0] : s[1], s[2],
                                     ImageLayout::kHWC};
        ImageView<uint8_t> dst{out.sample<uint8_t>(i), s[0], s[1], s[2], ImageLayout::kHWC};
        samples.push_back(
            make_exif_orientation_gpu_sample<uint8_t>(src, dst, orientation(i, info), i));
      }
      auto pages = transforms_->begin(
          crop_gpu_descriptor_bytes(static_cast<int64_t>(samples.size())), ws.stream());
      crop_transform_gpu(samples, 1, pages.pinned, pages.device, ws.stream());
      transforms_->end(ws.stream());
    }

    // 5. on_error="skip": replace bad samples by good ones (here and in earlier outputs).
    int num_bad = 0;
    std::string first;
    for (int i = 0; i < n; ++i) {
      if (bad[i] && !num_bad++) first = errors[i];
    }
    if (num_bad) {
      std::vector<int> source = replacement_sources(bad, first);
      out.remap_samples(source, ws.stream());
      ws.remap_earlier_outputs(source);
      skipped_ += num_bad;
    }
    // Where the operator's time goes besides nvJPEG's own phases (one writer: plain adds).
    auto ms = [](Clock::duration d) {
      return std::chrono::duration<double, std::milli>(d).count();
    };
    prepare_ms_.store(prepare_ms_.load() + ms(t_decode - t_start));
    decode_call_ms_.store(decode_call_ms_.load() + ms(t_after - t_decode));
    finish_ms_.store(finish_ms_.load() + ms(Clock::now() - t_after));
  }

  nlohmann::json stats() const override {
    nvjpeg::NvjpegDecoderStats s = decoder_->stats();
    return {{"skipped_samples", skipped_.load()},
            {"hardware_decoded", s.hardware},
            {"hybrid_decoded", s.hybrid},
            {"gpu_hybrid_decoded", s.gpu_hybrid},
            {"cpu_decoded", fallback_count_.load() + host_count_.load()},
            {"cpu_fallback", fallback_count_.load()},
            {"hardware_batch_failures", s.hardware_batch_failures},
            {"last_hardware_failure", s.last_hardware_failure},
            {"nvjpeg_parse_ms", s.parse_ms},
            {"nvjpeg_decode_ms", s.decode_ms},
            {"nvjpeg_hardware_submit_ms", s.hardware_submit_ms},
            {"nvjpeg_hardware_wait_ms", s.hardware_wait_ms},
            {"nvjpeg_batches", s.batches},
            {"hardware_load", s.hardware_load},
            {"prepare_ms", prepare_ms_.load()},
            {"decode_call_ms", decode_call_ms_.load()},
            {"finish_ms", finish_ms_.load()},
            {"hardware_status", decoder_->hardware_status()}};
  }

 private:
  int orientation(int i, const std::vector<codecs::ImageInfo>& info) const {
    return args_.adjust_orientation ? info[i].orientation : 1;
  }

  struct Page {
    TensorList data{MemoryKind::kPinned};
    cuda::Event done;
    bool used = false;
  };

  // The CPU codec's share of a batch: decoded into a pinned page on the pool, then copied up.
  // Two pages alternate; a page is refilled only after its previous copies completed.
  struct CpuBatch {
    std::vector<int> samples;  // operator sample indices, in page order
    std::vector<std::exception_ptr> failure;
    Page* page = nullptr;
  };

  CpuBatch begin_cpu(std::vector<int> samples, const TensorList& out) {
    CpuBatch b;
    b.page = &pages_[next_page_];
    next_page_ ^= 1;
    if (b.page->used) b.page->done.synchronize();
    std::vector<Shape> shapes;
    for (int i : samples) shapes.push_back(out.shape(i));
    b.page->data.resize(shapes, out.dtype());
    b.failure.assign(samples.size(), nullptr);
    b.samples = std::move(samples);
    return b;
  }

  // Decodes page entry k (never throws: the failure is kept for finish_cpu).
  void decode_cpu(Workspace& ws, CpuBatch& b, size_t k, int thread,
                  const std::vector<codecs::ImageInfo>& info,
                  const std::vector<codecs::DecodeParams>& params, const TensorList& out) {
    const TensorList& in = ws.input(0);
    const int i = b.samples[k];
    try {
      void* dst = b.page->data.raw_sample(static_cast<int>(k));
      if (args_.dtype != DType::kFloat32) {
        codecs::decode_image(in.sample<uint8_t>(i), in.sample_bytes(i), info[i], params[i],
                             *scratch_[thread], dst);
        return;
      }
      auto& tmp = staging_[thread];
      tmp.resize(static_cast<size_t>(volume(out.shape(i))));
      codecs::decode_image(in.sample<uint8_t>(i), in.sample_bytes(i), info[i], params[i],
                           *scratch_[thread], tmp.data());
      auto* f = static_cast<float*>(dst);
      for (size_t e = 0; e < tmp.size(); ++e) f[e] = tmp[e] * (1.0f / 255.0f);
    } catch (...) {
      b.failure[k] = std::current_exception();
    }
  }

  // Reports the failures (or marks them bad for on_error="skip") and copies the rest up.
  void finish_cpu(Workspace& ws, CpuBatch& b, std::vector<char>& bad,
                  std::vector<std::string>& errors, TensorList& out) {
    char* run_dst = nullptr;
    const char* run_src = nullptr;
    size_t run_bytes = 0;
    for (size_t k = 0; k < b.samples.size(); ++k) {
      const int i = b.samples[k];
      if (b.failure[k]) {
        try {
          std::rethrow_exception(b.failure[k]);
        } catch (const DecodeError& e) {
          if (!args_.skip_bad) rethrow_with_context(b.failure[k], ws.sample_context(i));
          bad[i] = 1;
          errors[i] = ws.sample_context(i) + ": " + e.what();
          continue;
        }
      }
      // Samples next to each other in both the page and the output go up in one copy.
      auto* dst = static_cast<char*>(out.raw_sample(i));
      auto* src = static_cast<const char*>(b.page->data.raw_sample(static_cast<int>(k)));
      if (run_bytes > 0 && dst == run_dst + run_bytes && src == run_src + run_bytes) {
        run_bytes += out.sample_bytes(i);
        continue;
      }
      if (run_bytes > 0) cuda::memcpy_async(run_dst, run_src, run_bytes, ws.stream());
      run_dst = dst;
      run_src = src;
      run_bytes = out.sample_bytes(i);
    }
    if (run_bytes > 0) cuda::memcpy_async(run_dst, run_src, run_bytes, ws.stream());
    b.page->done.record(ws.stream());
    b.page->used = true;
  }

  DecoderArgs args_;
  bool rest_on_cpu_ = false;
  bool gpu_color_ = false;
  nvjpeg::OutputColor nv_color_ = nvjpeg::OutputColor::kRGB;
  std::unique_ptr<nvjpeg::NvjpegDecoder> decoder_;
  std::vector<std::unique_ptr<codecs::DecoderScratch>> scratch_;
  std::vector<std::vector<uint8_t>> staging_;
  Page pages_[2];
  int next_page_ = 0;
  Buffer raw_{MemoryKind::kDevice};
  std::unique_ptr<ParamUpload> transforms_;
  std::atomic<int64_t> skipped_{0};
  std::atomic<int64_t> fallback_count_{0};  // what nvJPEG could not take
  std::atomic<int64_t> host_count_{0};      // rest_decoder="cpu"
  // Cumulative ms: headers, windows and outputs; the nvJPEG decode() call; fallback, orientation
  // and skipping. Divided by nvjpeg_batches they show the operator's time per batch.
  std::atomic<double> prepare_ms_{0}, decode_call_ms_{0}, finish_ms_{0};
};

SLUICE_REGISTER_OPERATOR("decoders.image", OpDevice::kMixed, ImageDecoderMixed);
SLUICE_REGISTER_OPERATOR("decoders.image_random_crop", OpDevice::kMixed, ImageDecoderMixed);
SLUICE_REGISTER_OPERATOR("decoders.image_crop", OpDevice::kMixed, ImageDecoderMixed);
SLUICE_REGISTER_OPERATOR("decoders.image_slice", OpDevice::kMixed, ImageDecoderMixed);

}  // namespace
}  // namespace sluice
