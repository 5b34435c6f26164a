// Is the driver lock that slows nvJPEG's hardware submissions per CUDA context? N threads each
// submit batches of 256 (nvjpegDecodeBatchedEx, a region per image, as Sluice calls it) for S
// seconds, in one of four ways, next to other threads of the process that make small CUDA calls
// ("spinners", like hybrid decoding) or keep the GPU busy with graphs (like a training step), both
// in the primary context. Prints the summed images/s, each thread's CPU time per image, and a
// checksum of thread 0's first batch (equal across modes: every mode decodes the same pixels).
// Results: bench/RESULTS.md#gpu-contexts.
//
//   nvcc -O2 -std=c++17 -arch=sm_90 bench/lab/nvjpeg_context_probe.cu -lnvjpeg -lcuda -o /tmp/ctxprobe
//   /tmp/ctxprobe DIR THREADS MODE [SECONDS=10] [SPINNERS=0] [BUSY=0]
// MODE 0: every thread in the primary context; 1: each in a context of its own (cuCtxCreate);
//      2: as 1, then half of each batch's output copied to the primary context's memory
//      (cuMemcpyPeerAsync); 3: each in a green context over every SM (shares the primary's
//      memory: decodes straight into it).
#include <cuda.h>
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

constexpr int kBatch = 256;

// A small copy and four tiny kernels, then a blocking wait, in a loop (as hybrid decoding does).
void spin(CUcontext primary, const std::atomic<bool>& stop) {
  CK(cuCtxSetCurrent(primary));
  cudaStream_t st;
  cudaEvent_t ev;
  int* d;
  unsigned char* h;
  CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  CK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming | cudaEventBlockingSync));
  CK(cudaMalloc(&d, 64 << 10));
  CK(cudaMallocHost(&h, 64 << 10));
  while (!stop) {
    CK(cudaMemcpyAsync(d, h, 40 << 10, cudaMemcpyHostToDevice, st));
    for (int k = 0; k < 4; ++k) touch<<<1, 32, 0, st>>>(d);
    CK(cudaEventRecord(ev, st));
    CK(cudaEventSynchronize(ev));
  }
}

// Graphs of 200 kernels of about 100 us filling every SM, 3 queued at most (a training step).
void keep_busy(CUcontext primary, const std::atomic<bool>& stop) {
  CK(cuCtxSetCurrent(primary));
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  cudaStream_t st;
  CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  cudaGraph_t g;
  cudaGraphExec_t graph;
  CK(cudaStreamBeginCapture(st, cudaStreamCaptureModeThreadLocal));
  for (int k = 0; k < 200; ++k) occupy<<<sms * 16, 128, 0, st>>>(170000);
  CK(cudaStreamEndCapture(st, &g));
  CK(cudaGraphInstantiate(&graph, g, 0));
  cudaEvent_t queued[3];
  for (auto& e : queued)
    CK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming | cudaEventBlockingSync));
  for (long n = 0; !stop; ++n) {
    if (n >= 3) CK(cudaEventSynchronize(queued[n % 3]));
    CK(cudaGraphLaunch(graph, st));
    CK(cudaEventRecord(queued[n % 3], st));
  }
  CK(cudaStreamSynchronize(st));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s DIR THREADS MODE [SECONDS] [SPINNERS] [BUSY]\n", argv[0]);
    return 2;
  }
  const int threads = std::atoi(argv[2]);
  const int mode = std::atoi(argv[3]);
  const double seconds = argc > 4 ? std::atof(argv[4]) : 10;
  const int spinners = argc > 5 ? std::atoi(argv[5]) : 0;
  const bool busy = argc > 6 && std::atoi(argv[6]) > 0;

  const std::vector<std::string> paths = probe::list_jpegs(argv[1], 2048);
  std::vector<std::vector<char>> files(paths.size());
  for (size_t i = 0; i < paths.size(); ++i) {
    std::ifstream f(paths[i], std::ios::binary);
    files[i].assign(std::istreambuf_iterator<char>(f), {});
  }

  CK(cuInit(0));
  CUdevice dev;
  CK(cuDeviceGet(&dev, 0));
  CK(cudaSetDevice(0));
  CK(cudaFree(nullptr));
  CUcontext primary;
  CK(cuCtxGetCurrent(&primary));
  size_t max_out = 0;
  {
    nvjpegHandle_t h;
    CK(nvjpegCreateSimple(&h));
    for (auto& f : files) {
      Image im;
      CK(nvjpegGetImageInfo(h, reinterpret_cast<const unsigned char*>(f.data()), f.size(),
                            &im.comps, &im.css, im.w, im.h));
      max_out = std::max(max_out, size_t(im.w[0]) * im.h[0] * 3);
    }
    CK(nvjpegDestroy(h));
  }
  unsigned char* primary_out = nullptr;  // the primary context's memory, a batch per thread
  CK(cudaMalloc(&primary_out, max_out * kBatch * threads));

  std::atomic<int> ready{0};
  std::atomic<bool> go{false}, stop{false};
  std::vector<long> done(threads, 0);
  std::vector<double> cpu(threads, 0);
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      CUcontext ctx = primary;
      CUgreenCtx green = nullptr;
      if (mode == 3) {
        CUdevResource sms;
        CUdevResourceDesc desc;
        CK(cuDeviceGetDevResource(dev, &sms, CU_DEV_RESOURCE_TYPE_SM));
        CK(cuDevResourceGenerateDesc(&desc, &sms, 1));
        CK(cuGreenCtxCreate(&green, desc, dev, CU_GREEN_CTX_DEFAULT_STREAM));
        CK(cuCtxFromGreenCtx(&ctx, green));
      } else if (mode == 1 || mode == 2) {
        CK(cuCtxCreate(&ctx, nullptr, 0, dev));
      }
      CK(cuCtxSetCurrent(ctx));
      const bool own_memory = mode == 1 || mode == 2;
      std::vector<Image> images(files.size());
      size_t total = 0;
      for (size_t i = 0; i < files.size(); ++i) {
        images[i].offset = total;
        images[i].size = files[i].size();
        total += (files[i].size() + 255) / 256 * 256;
      }
      unsigned char* host;
      CK(cudaMallocHost(&host, total));
      for (size_t i = 0; i < files.size(); ++i) {
        std::memcpy(host + images[i].offset, files[i].data(), files[i].size());
      }
      unsigned char* out = primary_out + t * max_out * kBatch;
      if (own_memory) CK(cudaMalloc(&out, max_out * kBatch));
      nvjpegHandle_t handle;
      nvjpegJpegState_t state;
      cudaStream_t stream;
      CK(nvjpegCreateEx(NVJPEG_BACKEND_HARDWARE, nullptr, nullptr, 0, &handle));
      CK(nvjpegJpegStateCreate(handle, &state));
      CK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
      for (auto& im : images) {
        CK(nvjpegGetImageInfo(handle, host + im.offset, im.size, &im.comps, &im.css, im.w, im.h));
      }
      std::vector<nvjpegDecodeParams_t> params(kBatch);
      for (auto& p : params) {
        CK(nvjpegDecodeParamsCreate(handle, &p));
        CK(nvjpegDecodeParamsSetOutputFormat(p, NVJPEG_OUTPUT_RGBI));
      }
      auto run = [&](long b) {
        std::vector<const unsigned char*> data(kBatch);
        std::vector<size_t> lengths(kBatch);
        std::vector<nvjpegImage_t> dst(kBatch);
        for (int k = 0; k < kBatch; ++k) {
          const Image& im = images[(b * kBatch + k + t * 97) % images.size()];
          data[k] = host + im.offset;
          lengths[k] = im.size;
          dst[k] = nvjpegImage_t{};
          const int w = im.w[0] * 8 / 10;  // the central 80% of each side
          CK(nvjpegDecodeParamsSetROI(params[k], im.w[0] / 10, im.h[0] / 10, w, im.h[0] * 8 / 10));
          dst[k].channel[0] = out + k * max_out;
          dst[k].pitch[0] = size_t(w) * 3;
        }
        const double c0 = thread_cpu_s();
        CK(nvjpegDecodeBatchedInitialize(handle, state, kBatch, 1, NVJPEG_OUTPUT_RGBI));
        CK(nvjpegDecodeBatchedEx(handle, state, data.data(), lengths.data(), dst.data(),
                                 params.data(), stream));
        cpu[t] += thread_cpu_s() - c0;
        if (mode == 2) {
          CK(cuMemcpyPeerAsync(reinterpret_cast<CUdeviceptr>(primary_out + t * max_out * kBatch),
                               primary, reinterpret_cast<CUdeviceptr>(out), ctx,
                               max_out * kBatch / 2, reinterpret_cast<CUstream>(stream)));
        }
        CK(cudaStreamSynchronize(stream));
      };
      for (int b = 0; b < 3; ++b) run(b);  // warm-up
      if (t == 0) {                        // thread 0's batch 0 again: a checksum of its pixels
        run(0);
        std::vector<unsigned char> h(max_out * kBatch);
        CK(cudaMemcpy(h.data(), out, h.size(), cudaMemcpyDeviceToHost));
        unsigned long long sum = 0;
        for (int k = 0; k < kBatch; ++k) {
          const Image& im = images[k % images.size()];
          const size_t n = size_t(im.w[0] * 8 / 10) * (im.h[0] * 8 / 10) * 3;
          for (size_t j = 0; j < n; ++j) sum += h[k * max_out + j] * (j % 7 + 1);
        }
        std::printf("mode %d: checksum of batch 0 %llu\n", mode, sum);
      }
      cpu[t] = 0;
      ++ready;
      while (!go) std::this_thread::yield();
      for (long b = 3; !stop; ++b, ++done[t]) run(b);
      for (auto p : params) CK(nvjpegDecodeParamsDestroy(p));
      CK(nvjpegJpegStateDestroy(state));
      CK(nvjpegDestroy(handle));
      CK(cudaStreamDestroy(stream));
      CK(cudaFreeHost(host));
      if (own_memory) {
        CK(cudaFree(out));
        CK(cuCtxDestroy(ctx));
      }
      if (green) CK(cuGreenCtxDestroy(green));
    });
  }
  std::vector<std::thread> others;
  for (int s = 0; s < spinners; ++s) others.emplace_back(spin, primary, std::cref(stop));
  if (busy) others.emplace_back(keep_busy, primary, std::cref(stop));
  while (ready < threads) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  const auto t0 = std::chrono::steady_clock::now();
  go = true;
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  stop = true;
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  for (auto& w : workers) w.join();
  for (auto& o : others) o.join();
  long sum = 0;
  for (long d : done) sum += d;
  std::printf("mode %d, %d thread(s), %d spinner(s), busy %d: %.0f images/s; CPU us/image:", mode,
              threads, spinners, busy, double(sum) * kBatch / wall);
  for (int t = 0; t < threads; ++t) {
    std::printf(" %.1f", 1e6 * cpu[t] / double(std::max(1L, done[t]) * kBatch));
  }
  std::printf("\n");
  return 0;
}
