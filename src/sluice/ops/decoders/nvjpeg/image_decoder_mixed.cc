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
#include "sluice/cuda/consumer_load.h"
#include "sluice/kernels/crop/crop_gpu.h"
#include "sluice/memory/param_upload.h"
#include "sluice/ops/decoders/decoder_policy.h"
#include "sluice/ops/decoders/image_decoder_base.h"

namespace sluice {
namespace {

class ImageDecoderMixed : public ImageDecoderBase {
 public:
  using ImageDecoderBase::ImageDecoderBase;

  void setup(const OpContext& ctx) override {
    ImageDecoderBase::setup(ctx);
    nvjpeg::NvjpegDecoderOptions o;
    o.device = ctx.device_id;
    o.stream_priority = ctx.stream_priority;
    o.num_thread_states = ctx.num_slots;
    o.hw_decoder_load = spec_.arg<float>("hw_decoder_load");
    const std::string rest = spec_.arg<std::string>("rest_decoder");
    rest_on_cpu_ =
        rest == "cpu" || (rest == "auto" && ctx.num_threads >= kRestDecoderCpuMinThreads);
    // Note [Balancing the hardware share]: a share the user gives stays fixed, as in DALI.
    o.balance_hw_load = rest_on_cpu_ && !spec_.has_arg("hw_decoder_load");
    make_way_for_consumer_ = o.balance_hw_load;
    device_ = ctx.device_id;
    o.hybrid_huffman_threshold = spec_.arg<int64_t>("hybrid_huffman_threshold");
    o.device_memory_padding = static_cast<size_t>(spec_.arg<int64_t>("device_memory_padding"));
    o.host_memory_padding = static_cast<size_t>(spec_.arg<int64_t>("host_memory_padding"));
    o.preallocate_width_hint = spec_.arg<int>("preallocate_width_hint");
    o.preallocate_height_hint = spec_.arg<int>("preallocate_height_hint");
    o.max_batch_size = ctx.max_batch_size;
    o.fancy_upsampling = spec_.arg<bool>("jpeg_fancy_upsampling");
    o.hardware_setup_in_background = true;  // the first batches go hybrid: sooner first batch
    decoder_ = std::make_unique<nvjpeg::NvjpegDecoder>(o);
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
    const auto t_start = Clock::now();
    MixedBatch b(read_headers(ws));
    TensorList& out = allocate_output(ws, b.decode);
    split_between_decoders(b, out);
    make_nvjpeg_requests(ws, b, out);
    const auto t_decode = Clock::now();
    decode_with_nvjpeg(ws, b, out);
    const auto t_after = Clock::now();
    take_nvjpeg_results(ws, b, out);
    decode_fallback_with_cpu_codec(ws, b, out);
    turn_upright_on_gpu(ws, b, out);
    replace_bad_samples(ws, b.decode, out);
    add_times(t_start, t_decode, t_after);
  }

  nlohmann::json stats() const override {
    nvjpeg::NvjpegDecoderStats s = decoder_->stats();
    nlohmann::json j = ImageDecoderBase::stats();  // skipped samples and files
    j.update({{"hardware_decoded", s.hardware},
              {"hybrid_decoded", s.hybrid},
              {"gpu_hybrid_decoded", s.gpu_hybrid},
              {"cpu_decoded", fallback_count_.load() + host_count_.load()},
              {"cpu_fallback", fallback_count_.load()},
              {"hardware_batch_failures", s.hardware_batch_failures},
              {"hardware_paused_batches", paused_count_.load()},
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
              {"hardware_status", decoder_->hardware_status()}});
    return j;
  }

 protected:
  // nvJPEG decodes truncated streams without complaint; libjpeg does not. Agree with it.
  void check_encoded(const uint8_t* data, size_t size,
                     const codecs::ImageInfo& info) const override {
    if (info.format != codecs::ImageFormat::kJpeg) return;
    std::string problem = codecs::jpeg_structure_problem(data, size);
    if (!problem.empty()) throw DecodeError("corrupt JPEG: " + problem);
  }

 private:
  using Clock = std::chrono::steady_clock;

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

  // One batch's state through the steps of run().
  struct MixedBatch {
    explicit MixedBatch(DecodeBatch d)
        : decode(std::move(d)), raw_offset(decode.bad.size(), SIZE_MAX) {}
    DecodeBatch decode;              // headers, windows, shapes, bad samples
    bool all_on_cpu = false;         // the CPU codec takes every sample
    std::vector<int> gpu_samples;    // for nvJPEG, in request order
    std::vector<int> fallback;       // for the CPU codec
    std::vector<size_t> raw_offset;  // rotated samples: where in raw_ nvJPEG writes them
    std::vector<int> rotate;         // decoded into raw_, to turn upright
    std::vector<nvjpeg::DecodeRequest> requests;
    std::vector<nvjpeg::DecodeResult> results;
    std::optional<CpuBatch> host_batch;  // rest_decoder="cpu": what the hardware does not take
    std::vector<int> host_page;          // per request: its entry in host_batch's page, or -1
  };

  int orientation(int i, const DecodeBatch& d) const {
    return args_.adjust_orientation ? d.info[i].orientation : 1;
  }

  // 2a. nvJPEG takes the JPEGs it can decode in the output's format; the CPU codec the rest.
  // Rotated samples decode their raw window into a temporary buffer first (turn_upright_on_gpu).
  void split_between_decoders(MixedBatch& b, const TensorList& out) {
    const DecodeBatch& d = b.decode;
    size_t raw_bytes = 0;
    // rest_decoder="cpu" without a hardware share leaves nvJPEG nothing: the CPU codec takes
    // the whole batch, in order, so that its copies up merge (finish_cpu). So does a balanced
    // share while the consumer keeps the device busy (Note [A busy consumer]).
    const bool paused = make_way_for_consumer_ && cuda::consumer_keeps_device_busy(device_);
    paused_count_ += paused ? 1 : 0;
    b.all_on_cpu = rest_on_cpu_ && (!decoder_->hardware_enabled() || paused);
    for (int i = 0; i < static_cast<int>(d.bad.size()); ++i) {
      if (d.bad[i]) continue;
      if (b.all_on_cpu || !gpu_color_ || d.info[i].format != codecs::ImageFormat::kJpeg) {
        b.fallback.push_back(i);
        continue;
      }
      b.gpu_samples.push_back(i);
      if (orientation(i, d) != 1) {
        b.raw_offset[i] = raw_bytes;
        raw_bytes += out.sample_bytes(i);
      }
    }
    raw_.resize(raw_bytes);
  }

  // 2b. One request per nvJPEG sample: its bytes, its window in stored orientation, where to.
  void make_nvjpeg_requests(const Workspace& ws, MixedBatch& b, TensorList& out) {
    const TensorList& in = ws.input(0);
    const DecodeBatch& d = b.decode;
    b.requests.resize(b.gpu_samples.size());
    for (size_t k = 0; k < b.gpu_samples.size(); ++k) {
      const int i = b.gpu_samples[k];
      nvjpeg::DecodeRequest& r = b.requests[k];
      r.data = in.sample<uint8_t>(i);
      r.size = in.sample_bytes(i);
      if (d.params[i].crop) {
        CropWindow raw = codecs::oriented_to_raw(
            *d.params[i].crop, {d.info[i].width, d.info[i].height}, orientation(i, d));
        r.roi = nvjpeg::Roi{static_cast<int>(raw.x), static_cast<int>(raw.y),
                            static_cast<int>(raw.w), static_cast<int>(raw.h)};
      }
      r.dst = b.raw_offset[i] == SIZE_MAX ? out.sample<uint8_t>(i)
                                          : static_cast<uint8_t*>(raw_.data()) + b.raw_offset[i];
      r.dst_bytes = out.sample_bytes(i);
    }
    b.results.resize(b.requests.size());
  }

  // 2c. nvJPEG's decode() call. With rest_decoder="cpu", what the hardware decoder does not
  // take goes to the CPU codec, on the pool while the hardware sub-batch is submitted
  // (nvJPEG's requests index gpu_samples).
  void decode_with_nvjpeg(Workspace& ws, MixedBatch& b, const TensorList& out) {
    if (b.requests.empty()) return;
    b.host_page.assign(b.gpu_samples.size(), -1);
    auto host_prepare = [&](std::span<const int> ks) {
      std::vector<int> samples;
      for (int k : ks) {
        b.host_page[k] = static_cast<int>(samples.size());
        samples.push_back(b.gpu_samples[k]);
      }
      b.host_batch = begin_cpu(std::move(samples), out);
    };
    auto host_decode = [&](int k, int thread) {
      decode_cpu(ws, b.decode, *b.host_batch, b.host_page[k], thread);
    };
    const nvjpeg::HostDecode host{host_prepare, host_decode};
    decoder_->decode(b.requests, nv_color_, *ws.context().pool, ws.stream(), b.results,
                     rest_on_cpu_ ? &host : nullptr);
  }

  // 2d. What nvJPEG did with each request: decoded (rotated ones to turn upright), handed back
  // for the CPU codec, or failed. The CPU codec's share from 2c goes up.
  void take_nvjpeg_results(Workspace& ws, MixedBatch& b, TensorList& out) {
    for (size_t k = 0; k < b.gpu_samples.size(); ++k) {
      const int i = b.gpu_samples[k];
      const nvjpeg::DecodeResult& r = b.results[k];
      if (r.route == nvjpeg::DecodeRoute::kFallback) {
        b.fallback.push_back(i);
        b.raw_offset[i] = SIZE_MAX;
      } else if (r.route == nvjpeg::DecodeRoute::kHost) {
        b.raw_offset[i] = SIZE_MAX;  // the CPU codec turned it upright
      } else if (r.out_of_memory) {
        throw OutOfMemory("nvJPEG: " + r.message);
      } else if (r.route == nvjpeg::DecodeRoute::kError) {
        reject(ws, b.decode, i, "nvJPEG: " + r.message);
      } else if (b.raw_offset[i] != SIZE_MAX) {
        b.rotate.push_back(i);
      }
    }
    (b.all_on_cpu ? host_count_ : fallback_count_) += static_cast<int64_t>(b.fallback.size());
    if (b.host_batch) {
      host_count_ += static_cast<int64_t>(b.host_batch->samples.size());
      finish_cpu(ws, b.decode, *b.host_batch, out);
    }
  }

  // 3. The CPU codec for what nvJPEG could not take, into pinned staging, then up.
  // The page keeps the batch's order (its copies up merge); the costliest decode first.
  void decode_fallback_with_cpu_codec(Workspace& ws, MixedBatch& b, TensorList& out) {
    if (b.fallback.empty()) return;
    const TensorList& in = ws.input(0);
    const DecodeBatch& d = b.decode;
    CpuBatch c = begin_cpu(std::move(b.fallback), out);
    std::vector<double> cost;
    for (int i : c.samples)
      cost.push_back(decode_cost(in.sample_bytes(i), d.info[i], d.params[i].crop));
    const std::vector<int> order = costliest_first(cost);
    ws.context().pool->parallel_for(
        static_cast<int64_t>(c.samples.size()),
        [&](int64_t k, int thread) { decode_cpu(ws, d, c, order[k], thread); }, ws.caller_slot());
    finish_cpu(ws, b.decode, c, out);
  }

  // 4. EXIF orientation on the GPU, from raw_ into the output.
  void turn_upright_on_gpu(const Workspace& ws, const MixedBatch& b, TensorList& out) {
    if (b.rotate.empty()) return;
    const DecodeBatch& d = b.decode;
    std::vector<CropGpuSample> samples;
    for (int i : b.rotate) {
      if (d.bad[i]) continue;
      const Shape& s = out.shape(i);
      bool swap = codecs::orientation_swaps_axes(orientation(i, d));
      ImageView<const uint8_t> src{static_cast<const uint8_t*>(raw_.data()) + b.raw_offset[i],
                                   swap ? s[1] : s[0], swap ? s[0] : s[1], s[2], ImageLayout::kHWC};
      ImageView<uint8_t> dst{out.sample<uint8_t>(i), s[0], s[1], s[2], ImageLayout::kHWC};
      samples.push_back(make_exif_orientation_gpu_sample<uint8_t>(src, dst, orientation(i, d), i));
    }
    auto pages = transforms_->begin(crop_gpu_descriptor_bytes(static_cast<int64_t>(samples.size())),
                                    ws.stream());
    crop_transform_gpu(samples, 1, pages.pinned, pages.device, ws.stream());
    transforms_->end(ws.stream());
  }

  // Where the operator's time goes besides nvJPEG's own phases (one writer: plain adds).
  void add_times(Clock::time_point start, Clock::time_point decode, Clock::time_point after) {
    auto ms = [](Clock::duration d) {
      return std::chrono::duration<double, std::milli>(d).count();
    };
    prepare_ms_.store(prepare_ms_.load() + ms(decode - start));
    decode_call_ms_.store(decode_call_ms_.load() + ms(after - decode));
    finish_ms_.store(finish_ms_.load() + ms(Clock::now() - after));
  }

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
  void decode_cpu(const Workspace& ws, const DecodeBatch& d, CpuBatch& b, size_t k, int thread) {
    try {
      decode_with_cpu_codec(ws, d, b.samples[k], thread,
                            b.page->data.raw_sample(static_cast<int>(k)));
    } catch (...) {
      b.failure[k] = std::current_exception();
    }
  }

  // Reports the failures (or marks them bad for on_error="skip") and copies the rest up.
  void finish_cpu(const Workspace& ws, DecodeBatch& d, CpuBatch& b, TensorList& out) {
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
          d.mark_bad(i, ws.sample_context(i) + ": " + e.what());
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

  bool rest_on_cpu_ = false;
  bool gpu_color_ = false;
  nvjpeg::OutputColor nv_color_ = nvjpeg::OutputColor::kRGB;
  std::unique_ptr<nvjpeg::NvjpegDecoder> decoder_;
  Page pages_[2];
  int next_page_ = 0;
  Buffer raw_{MemoryKind::kDevice};
  std::unique_ptr<ParamUpload> transforms_;
  std::atomic<int64_t> fallback_count_{0};  // what nvJPEG could not take
  // Note [A busy consumer]
  // In the training process, the hardware decoder's submissions wait behind the model's queued
  // work, and its CUDA calls from the mixed thread delay the training loop's own launches: with a
  // balanced share next to ResNet-18 the model ran at 81% of its synthetic rate, with the CPU
  // decoding every image at 95% (bench/RESULTS.md#train-busy-consumer). So a balanced share steps
  // aside while the consumer's queued GPU work keeps the device busy (cuda/consumer_load.h): the
  // CPU decoder takes whole batches. A consumer waiting for data lets its queue drain, the probes
  // find it idle and the hardware comes back with its share: the CPU decoder alone does not starve
  // a model for long. A share given as hw_decoder_load is kept, as given.
  bool make_way_for_consumer_ = false;
  int device_ = 0;
  std::atomic<int64_t> paused_count_{0};  // batches decoded without the hardware for that
  std::atomic<int64_t> host_count_{0};    // rest_decoder="cpu"
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
