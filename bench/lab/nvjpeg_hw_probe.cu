// nvJPEG's hardware decoder alone, outside Sluice: images per second of the batched API on one
// submitting thread and the CPU time each image costs that thread, by API (plain or Ex with a
// region of interest), backend, flags, output format, and with other threads making CUDA calls
// meanwhile ("spinners": a copy and four tiny kernels, then a wait, in a loop, as hybrid
// decoding does), or with another thread keeping every SM busy ("busy": single kernels, or CUDA
// graphs as a captured training step makes). It answers "what can the engines do here and what
// does the host pay" before blaming the pipeline. Results: bench/RESULTS.md#gpu-hw-ceiling.
//
//   nvcc -O2 -std=c++17 -arch=sm_90 bench/lab/nvjpeg_hw_probe.cu -lnvjpeg -o /tmp/nvjpeg_hw_probe
//   /tmp/nvjpeg_hw_probe DIR [--images 2048] [--batch 256] [--iters 20]
//       [--only NAME-PART, e.g. busy] [--seconds S: batches for S seconds instead of --iters]
//   /tmp/nvjpeg_hw_probe --load-seconds S   (the busy-graphs load alone, as another process)
//
// Each batch is waited for before the next (so images/s includes the GPU-side latency of a
// batch); CPU us/img is CLOCK_THREAD_CPUTIME_ID around nvjpegDecodeBatched[Ex], call ms/batch
// its wall time.
#include <cuda_runtime.h>
#include <nvjpeg.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "nvjpeg_probe_common.cuh"

namespace {

using probe::Image;
using probe::occupy;
using probe::thread_cpu_s;
using probe::touch;

// nvJPEG's allocations through counting wrappers: does a batch allocate in steady state (and so
// synchronize with the whole device in cudaFree)?
std::atomic<long> g_allocs{0}, g_frees{0};
int dev_malloc(void** p, size_t s) {
  ++g_allocs;
  return cudaMalloc(p, s);
}
int dev_free(void* p) {
  ++g_frees;
  return cudaFree(p);
}
int pinned_malloc(void** p, size_t s, unsigned flags) {
  ++g_allocs;
  return cudaHostAlloc(p, s, flags);
}
int pinned_free(void* p) {
  ++g_frees;
  return cudaFreeHost(p);
}

// The "busy" load: kernels of about 100 us filling every SM, launched singly (busy 1) or as CUDA
// graphs of 200 of them (busy 2), at most `ahead` launches queued, until `stop`. Returns the
// launches made.
long occupy_gpu(int busy, int ahead, int wait, const std::atomic<bool>& stop) {
  int sms = 0, least = 0, greatest = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  cudaStream_t st;
  CK(cudaStreamCreateWithPriority(&st, cudaStreamNonBlocking, least));
  cudaGraphExec_t graph = nullptr;
  if (busy == 2) {
    cudaGraph_t g;
    CK(cudaStreamBeginCapture(st, cudaStreamCaptureModeThreadLocal));
    for (int k = 0; k < 200; ++k) occupy<<<sms * 16, 128, 0, st>>>(170000);
    CK(cudaStreamEndCapture(st, &g));
    CK(cudaGraphInstantiate(&graph, g, 0));
    CK(cudaGraphDestroy(g));
  }
  std::vector<cudaEvent_t> queued(ahead);
  const unsigned flags = cudaEventDisableTiming | (wait == 0 ? cudaEventBlockingSync : 0);
  for (auto& e : queued) CK(cudaEventCreateWithFlags(&e, flags));
  long n = 0;
  for (; !stop.load(); ++n) {
    cudaEvent_t& e = queued[n % queued.size()];
    if (n >= ahead && wait < 2) CK(cudaEventSynchronize(e));
    while (n >= ahead && wait == 2 && cudaEventQuery(e) == cudaErrorNotReady) {
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
    if (graph) {
      CK(cudaGraphLaunch(graph, st));
    } else {
      occupy<<<sms * 16, 128, 0, st>>>(170000);
    }
    CK(cudaEventRecord(e, st));
  }
  if (graph) CK(cudaGraphExecDestroy(graph));
  CK(cudaStreamSynchronize(st));
  for (auto e : queued) CK(cudaEventDestroy(e));
  CK(cudaStreamDestroy(st));
  return n;
}

struct Config {
  nvjpegBackend_t backend;
  unsigned flags;
  nvjpegOutputFormat_t format;
  bool ex;       // nvjpegDecodeBatchedEx with per-image params (as Sluice calls it)
  bool roi;      // Ex with a region of interest (the central 80% of each side)
  int spinners;  // other threads enqueueing small copies and kernels, like hybrid decoding
  const char* name;
  bool blocking = false;  // spinners wait on cudaEventBlockingSync events (else they spin)
  // Another thread keeps every SM occupied with kernels of about 100 us, up to `ahead` launches
  // queued: single kernels (busy 1) or CUDA graphs of 200 such kernels (busy 2: like a training
  // step replayed as a graph).
  int busy = 0;
  bool high_priority = false;  // the decoder's stream at the greatest priority
  int ahead = 8;
  // How the busy thread waits for the launch `ahead` back: 0 cudaEventSynchronize on a
  // blocking-sync event, 1 on a spinning one, 2 polling cudaEventQuery with 50 us sleeps.
  int wait = 0;
};

struct Lane {
  nvjpegHandle_t handle = nullptr;
  nvjpegJpegState_t state = nullptr;
  cudaStream_t stream = nullptr;
  std::vector<nvjpegDecodeParams_t> params;
  nvjpegJpegStream_t js = nullptr;
  double cpu_s = 0, call_s = 0;
};

const char* format_name(nvjpegOutputFormat_t f) {
  switch (f) {
    case NVJPEG_OUTPUT_RGBI:
      return "RGBI";
    case NVJPEG_OUTPUT_RGB:
      return "RGB";
    case NVJPEG_OUTPUT_YUV:
      return "YUV";
    case NVJPEG_OUTPUT_Y:
      return "Y";
    default:
      return "?";
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s DIR [--images N] [--batch B] [--iters I] [--only NAME-PART]\n",
                 argv[0]);
    return 2;
  }
  int max_images = 2048, batch = 256, iters = 20;
  double seconds = 0;  // when > 0, the timed batches run this long (iters is then their count)
  const char* only = "";
  for (int a = 2; a + 1 < argc; a += 2) {
    if (!std::strcmp(argv[a], "--images")) max_images = std::atoi(argv[a + 1]);
    if (!std::strcmp(argv[a], "--batch")) batch = std::atoi(argv[a + 1]);
    if (!std::strcmp(argv[a], "--iters")) iters = std::atoi(argv[a + 1]);
    if (!std::strcmp(argv[a], "--only")) only = argv[a + 1];  // configurations named so
    if (!std::strcmp(argv[a], "--seconds")) seconds = std::atof(argv[a + 1]);
  }
  if (!std::strcmp(argv[1], "--load-seconds")) {  // the graph load alone, in its own process
    seconds = std::atof(argv[2]);
    std::atomic<bool> stop{false};
    std::thread timer([&] {
      std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
      stop = true;
    });
    const auto t0 = std::chrono::steady_clock::now();
    const long n = occupy_gpu(2, 3, 0, stop);
    timer.join();
    std::printf("load process: %.2f graphs/s\n",
                n / std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    return 0;
  }
  const std::vector<std::string> paths = probe::list_jpegs(argv[1], size_t(max_images));

  // All files in one pinned buffer (as Sluice stages them) and a device copy of it.
  std::vector<Image> images(paths.size());
  size_t total = 0, file_bytes = 0;
  std::vector<std::vector<char>> files(paths.size());
  for (size_t i = 0; i < paths.size(); ++i) {
    std::ifstream f(paths[i], std::ios::binary);
    files[i].assign(std::istreambuf_iterator<char>(f), {});
    images[i].offset = total;
    images[i].size = files[i].size();
    file_bytes += files[i].size();
    total += (files[i].size() + 255) / 256 * 256;
  }
  unsigned char* host = nullptr;
  unsigned char* dev_bits = nullptr;
  CK(cudaMallocHost(&host, total));
  CK(cudaMalloc(&dev_bits, total));
  for (size_t i = 0; i < paths.size(); ++i) {
    std::memcpy(host + images[i].offset, files[i].data(), files[i].size());
  }
  CK(cudaMemcpy(dev_bits, host, total, cudaMemcpyHostToDevice));

  nvjpegHandle_t info_handle = nullptr;
  CK(nvjpegCreateSimple(&info_handle));
  size_t out_bytes = 0, max_out = 0;
  double mp = 0;
  for (auto& im : images) {
    CK(nvjpegGetImageInfo(info_handle, host + im.offset, im.size, &im.comps, &im.css, im.w, im.h));
    max_out = std::max(max_out, size_t(im.w[0]) * im.h[0] * 3);
    mp += 1e-6 * im.w[0] * im.h[0];
  }
  out_bytes = max_out * batch;
  std::printf("%zu images, mean %.3f MP, mean %.1f KB; batch %d, %d timed batches\n", images.size(),
              mp / images.size(), file_bytes / 1024.0 / images.size(), batch, iters);
  unsigned char* out = nullptr;
  CK(cudaMalloc(&out, out_bytes));

  const nvjpegBackend_t HW = NVJPEG_BACKEND_HARDWARE, HWD = NVJPEG_BACKEND_HARDWARE_DEVICE;
  const unsigned NOP = NVJPEG_FLAGS_HW_DECODE_NO_PIPELINE;
  const Config configs[] = {
      {HW, 0, NVJPEG_OUTPUT_RGBI, true, true, 0, "Ex with ROI (as Sluice)"},
      {HW, 0, NVJPEG_OUTPUT_RGBI, false, false, 0, "plain API, whole images"},
      {HW, 0, NVJPEG_OUTPUT_RGB, false, false, 0, "plain, planar RGB"},
      {HW, 0, NVJPEG_OUTPUT_YUV, false, false, 0, "plain, native YUV"},
      {HW, NOP, NVJPEG_OUTPUT_RGBI, false, false, 0, "plain, HW_DECODE_NO_PIPELINE"},
      {HWD, 0, NVJPEG_OUTPUT_RGBI, false, false, 0, "plain, bitstreams on device"},
      {HW, 0, NVJPEG_OUTPUT_RGBI, false, false, 2, "plain + 2 CUDA spinners"},
      {HW, 0, NVJPEG_OUTPUT_RGBI, false, false, 8, "plain + 8 CUDA spinners"},
      {HW, 0, NVJPEG_OUTPUT_RGBI, true, true, 8, "Ex with ROI + 8 CUDA spinners"},
      {HW, 0, NVJPEG_OUTPUT_RGBI, false, false, 2, "plain + 2 blocking spinners", true},
      {HW, 0, NVJPEG_OUTPUT_RGBI, false, false, 8, "plain + 8 blocking spinners", true},
      {HW, 0, NVJPEG_OUTPUT_RGBI, true, true, 16, "Ex ROI + 16 blocking spinners", true},
      {HW, 0, NVJPEG_OUTPUT_RGBI, true, true, 0, "Ex ROI, busy kernels", false, 1},
      {HW, 0, NVJPEG_OUTPUT_RGBI, true, true, 0, "Ex ROI, busy kernels, priority", false, 1, true},
      {HW, 0, NVJPEG_OUTPUT_RGBI, false, false, 0, "plain, busy kernels", false, 1},
      {HW, 0, NVJPEG_OUTPUT_YUV, false, false, 0, "plain YUV, busy kernels", false, 1},
      {HW, 0, NVJPEG_OUTPUT_RGBI, true, true, 0, "Ex ROI, busy graphs, 1 ahead", false, 2, false,
       1},
      {HW, 0, NVJPEG_OUTPUT_RGBI, true, true, 0, "Ex ROI, busy graphs, 3 ahead", false, 2, false,
       3},
      {HW, 0, NVJPEG_OUTPUT_RGBI, true, true, 0, "Ex ROI, busy graphs, 8 ahead", false, 2, false,
       8},
      {HW, 0, NVJPEG_OUTPUT_RGBI, false, false, 0, "plain, busy graphs, 3 ahead", false, 2, false,
       3},
      {HW, 0, NVJPEG_OUTPUT_RGBI, true, true, 0, "Ex ROI, busy graphs 1, spin wait", false, 2,
       false, 1, 1},
      {HW, 0, NVJPEG_OUTPUT_RGBI, true, true, 0, "Ex ROI, busy graphs 1, poll wait", false, 2,
       false, 1, 2},
      {HW, 0, NVJPEG_OUTPUT_RGBI, true, true, 0, "Ex ROI, busy graphs 3, poll wait", false, 2,
       false, 3, 2},
  };
  int least = 0, greatest = 0;
  CK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  std::printf("%-32s %-6s %10s %12s %12s %s\n", "configuration", "format", "images/s", "CPU us/img",
              "call ms/batch", "allocs+frees/batch");
  for (const Config& c : configs) {
    if (!std::strstr(c.name, only)) continue;
    Lane l;
    nvjpegDevAllocator_t dev_alloc{&dev_malloc, &dev_free};
    nvjpegPinnedAllocator_t pinned_alloc{&pinned_malloc, &pinned_free};
    if (nvjpegCreateEx(c.backend, &dev_alloc, &pinned_alloc, c.flags, &l.handle) !=
        NVJPEG_STATUS_SUCCESS) {
      std::printf("%-32s unsupported backend\n", c.name);
      continue;
    }
    CK(nvjpegJpegStateCreate(l.handle, &l.state));
    CK(nvjpegJpegStreamCreate(l.handle, &l.js));
    CK(cudaStreamCreateWithPriority(&l.stream, cudaStreamNonBlocking,
                                    c.high_priority ? greatest : least));
    l.params.resize(batch);
    for (auto& p : l.params) {
      CK(nvjpegDecodeParamsCreate(l.handle, &p));
      CK(nvjpegDecodeParamsSetOutputFormat(p, c.format));
      CK(nvjpegDecodeParamsSetROI(p, 0, 0, -1, -1));
    }
    const bool on_device = c.backend == HWD;

    std::atomic<bool> stop{false};
    std::vector<std::thread> spinners;
    for (int s = 0; s < c.spinners; ++s) {
      spinners.emplace_back([&] {
        cudaStream_t st;
        cudaEvent_t ev;
        int* d;
        CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
        CK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming | cudaEventBlockingSync));
        CK(cudaMalloc(&d, 64 << 10));
        while (!stop.load()) {
          CK(cudaMemcpyAsync(d, host, 40 << 10, cudaMemcpyHostToDevice, st));
          for (int k = 0; k < 4; ++k) touch<<<1, 32, 0, st>>>(d);
          if (c.blocking) {
            CK(cudaEventRecord(ev, st));
            CK(cudaEventSynchronize(ev));
          } else {
            CK(cudaStreamSynchronize(st));
          }
        }
        CK(cudaEventDestroy(ev));
        CK(cudaFree(d));
        CK(cudaStreamDestroy(st));
      });
    }

    if (c.busy) spinners.emplace_back([&] { occupy_gpu(c.busy, c.ahead, c.wait, stop); });

    std::atomic<int> failed{0};
    // Batches walk through the images.
    auto run_batch = [&](int b) {
      const int first = b * batch, count = batch;
      std::vector<const unsigned char*> data(count);
      std::vector<size_t> lengths(count);
      std::vector<nvjpegImage_t> dst(count);
      for (int k = 0; k < count; ++k) {
        const Image& im = images[(first + k) % images.size()];
        data[k] = (on_device ? dev_bits : host) + im.offset;
        lengths[k] = im.size;
        dst[k] = nvjpegImage_t{};
        unsigned char* base = out + size_t(k) * max_out;
        int out_w = im.w[0];
        if (c.ex) {  // as Sluice's parse phase does (outside the timed call)
          nvjpegDecodeParams_t p = l.params[k];
          if (c.roi) {
            out_w = im.w[0] * 8 / 10;
            CK(nvjpegDecodeParamsSetROI(p, im.w[0] / 10, im.h[0] / 10, out_w, im.h[0] * 8 / 10));
          }
          int unsupported = 1;
          CK(nvjpegJpegStreamParse(l.handle, host + im.offset, im.size, 0, 0, l.js));
          CK(nvjpegDecodeBatchedSupportedEx(l.handle, l.js, p, &unsupported));
          if (unsupported) failed = 100 + unsupported;
        }
        if (c.format == NVJPEG_OUTPUT_RGBI) {
          dst[k].channel[0] = base;
          dst[k].pitch[0] = size_t(out_w) * 3;
        } else {
          const int planes = c.format == NVJPEG_OUTPUT_YUV ? im.comps : 3;
          size_t off = 0;
          for (int p = 0; p < planes; ++p) {
            const int w = c.format == NVJPEG_OUTPUT_YUV ? im.w[p] : im.w[0];
            const int h = c.format == NVJPEG_OUTPUT_YUV ? im.h[p] : im.h[0];
            dst[k].channel[p] = base + off;
            dst[k].pitch[p] = size_t(w);
            off += size_t(w) * h;
          }
        }
      }
      const double t0 = thread_cpu_s();
      const auto w0 = std::chrono::steady_clock::now();
      nvjpegStatus_t st = nvjpegDecodeBatchedInitialize(l.handle, l.state, count, 1, c.format);
      if (st == NVJPEG_STATUS_SUCCESS) {
        st = c.ex ? nvjpegDecodeBatchedEx(l.handle, l.state, data.data(), lengths.data(),
                                          dst.data(), l.params.data(), l.stream)
                  : nvjpegDecodeBatched(l.handle, l.state, data.data(), lengths.data(), dst.data(),
                                        l.stream);
      }
      l.cpu_s += thread_cpu_s() - t0;
      l.call_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
      if (st != NVJPEG_STATUS_SUCCESS) failed = st;
      CK(cudaStreamSynchronize(l.stream));
    };
    for (int b = 0; b < 3; ++b) run_batch(b);
    l.cpu_s = l.call_s = 0;
    g_allocs = g_frees = 0;
    const auto t0 = std::chrono::steady_clock::now();
    const auto elapsed = [&] {
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    };
    if (seconds > 0) {
      for (iters = 0; elapsed() < seconds; ++iters) run_batch(3 + iters);
    } else {
      for (int b = 0; b < iters; ++b) run_batch(3 + b);
    }
    const double wall = elapsed();
    stop = true;
    for (auto& s : spinners) s.join();
    const double cpu = l.cpu_s;
    if (failed)
      std::printf("%-32s failed: nvJPEG status %d\n", c.name, failed.load());
    else
      std::printf("%-32s %-6s %10.0f %12.1f %12.2f %.1f+%.1f\n", c.name, format_name(c.format),
                  double(batch) * iters / wall, 1e6 * cpu / (double(batch) * iters),
                  1e3 * l.call_s / iters, double(g_allocs) / iters, double(g_frees) / iters);
    std::fflush(stdout);
    for (auto p : l.params) nvjpegDecodeParamsDestroy(p);
    nvjpegJpegStateDestroy(l.state);
    nvjpegJpegStreamDestroy(l.js);
    nvjpegDestroy(l.handle);
    cudaStreamDestroy(l.stream);
  }
  return 0;
}
