#include "sluice/cuda/own_context.h"

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#include <iostream>
#include <utility>

#include "sluice/cuda/cuda_check.h"

namespace sluice::cuda {
namespace {

// The driver functions used here, from the runtime's entry points (Note [Contexts of their own]).
struct Driver {
  PFN_cuCtxCreate_v12050 ctx_create = nullptr;
  PFN_cuCtxDestroy_v4000 ctx_destroy = nullptr;
  PFN_cuCtxPushCurrent_v4000 push = nullptr;
  PFN_cuCtxPopCurrent_v4000 pop = nullptr;
  PFN_cuDevicePrimaryCtxRetain_v7000 primary_retain = nullptr;
  PFN_cuDevicePrimaryCtxRelease_v11000 primary_release = nullptr;
  PFN_cuMemcpyPeerAsync_v4000 copy_peer = nullptr;
  PFN_cuGetErrorName_v6000 error_name = nullptr;
  std::string missing;  // the first function not found
};

template <typename F>
void load(const char* name, F& fn, unsigned version, std::string& missing) {
  void* p = nullptr;
  cudaDriverEntryPointQueryResult found{};
  cudaError_t e = cudaGetDriverEntryPointByVersion(name, &p, version, cudaEnableDefault, &found);
  if (e != cudaSuccess || found != cudaDriverEntryPointSuccess || !p) {
    if (missing.empty()) missing = name;
    return;
  }
  fn = reinterpret_cast<F>(p);
}

const Driver& driver() {
  static const Driver d = [] {
    Driver r;
    load("cuCtxCreate", r.ctx_create, 12050, r.missing);
    load("cuCtxDestroy", r.ctx_destroy, 12000, r.missing);
    load("cuCtxPushCurrent", r.push, 12000, r.missing);
    load("cuCtxPopCurrent", r.pop, 12000, r.missing);
    load("cuDevicePrimaryCtxRetain", r.primary_retain, 12000, r.missing);
    load("cuDevicePrimaryCtxRelease", r.primary_release, 12000, r.missing);
    load("cuMemcpyPeerAsync", r.copy_peer, 12000, r.missing);
    load("cuGetErrorName", r.error_name, 12000, r.missing);
    return r;
  }();
  SLUICE_CHECK(d.missing.empty(), CudaError, "the CUDA driver does not provide ", d.missing,
               " (needed for a context of its own)");
  return d;
}

void check(CUresult r, const char* what) {
  if (r == CUDA_SUCCESS) return;
  const char* name = nullptr;
  if (driver().error_name(r, &name) != CUDA_SUCCESS || !name) name = "unknown error";
  if (r == CUDA_ERROR_OUT_OF_MEMORY) throw OutOfMemory(make_string(what, " failed: ", name));
  throw CudaError(make_string(what, " failed: ", name, " (", static_cast<int>(r), ")"));
}

}  // namespace

OwnContext::OwnContext(int device) : device_(device) {
  const Driver& d = driver();
  SLUICE_CUDA_CHECK(cudaFree(nullptr));  // the runtime's primary context exists before ours
  CUcontext primary = nullptr;
  check(d.primary_retain(&primary, device), "cuDevicePrimaryCtxRetain");
  primary_ = primary;
  CUcontext ctx = nullptr;
  CUctxCreateParams params{};
  CUresult r = d.ctx_create(&ctx, &params, 0, device);
  if (r != CUDA_SUCCESS) {
    d.primary_release(device);
    primary_ = nullptr;
    check(r, "cuCtxCreate");
  }
  ctx_ = ctx;
  // cuCtxCreate leaves the new context current: give the thread its previous one back.
  CUcontext popped = nullptr;
  check(d.pop(&popped), "cuCtxPopCurrent");
}

OwnContext::~OwnContext() {
  if (!ctx_) return;
  const Driver& d = driver();
  CUresult r = d.ctx_destroy(static_cast<CUcontext>(ctx_));
  if (r != CUDA_SUCCESS) std::cerr << "sluice: cuCtxDestroy failed: " << r << std::endl;
  d.primary_release(device_);
}

OwnContext::OwnContext(OwnContext&& o) noexcept
    : ctx_(std::exchange(o.ctx_, nullptr)),
      primary_(std::exchange(o.primary_, nullptr)),
      device_(o.device_) {}

OwnContext& OwnContext::operator=(OwnContext&& o) noexcept {
  if (this != &o) {
    this->~OwnContext();
    ctx_ = std::exchange(o.ctx_, nullptr);
    primary_ = std::exchange(o.primary_, nullptr);
    device_ = o.device_;
  }
  return *this;
}

OwnContext::Scope::Scope(const OwnContext& c) {
  if (!c.ctx_) return;
  check(driver().push(static_cast<CUcontext>(c.ctx_)), "cuCtxPushCurrent");
  pushed_ = true;
}

OwnContext::Scope::~Scope() {
  if (!pushed_) return;
  CUcontext popped = nullptr;
  driver().pop(&popped);
}

void OwnContext::copy_to_primary(void* dst, const void* src, size_t bytes,
                                 StreamHandle stream) const {
  check(driver().copy_peer(reinterpret_cast<CUdeviceptr>(dst), static_cast<CUcontext>(primary_),
                           reinterpret_cast<CUdeviceptr>(src), static_cast<CUcontext>(ctx_), bytes,
                           static_cast<CUstream>(stream)),
        "cuMemcpyPeerAsync (hardware lane's context to the primary)");
}

}  // namespace sluice::cuda
