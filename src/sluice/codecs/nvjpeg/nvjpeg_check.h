#pragma once
// nvJPEG status handling for the files under codecs/nvjpeg/ (includes nvjpeg.h: internal).
//
// SLUICE_NVJPEG_CHECK(expr) throws for calls whose failure is not tied to one sample (handle,
// state and buffer set-up). Per-sample decode statuses are never thrown: they are classified
// with nvjpeg_status_needs_fallback() and reported in that sample's DecodeResult. Tear-down
// checks with release_check(), which reports and goes on.

#include <nvjpeg.h>

#include <string>

#include "sluice/codecs/nvjpeg/nvjpeg_allocator.h"
#include "sluice/core/error.h"
#include "sluice/cuda/cuda_api.h"

namespace sluice::nvjpeg {

// "NVJPEG_STATUS_BAD_JPEG" etc.; "NVJPEG_STATUS_<n>" for values this header does not name.
inline std::string nvjpeg_status_name(nvjpegStatus_t s) {
  switch (s) {
    case NVJPEG_STATUS_SUCCESS:
      return "NVJPEG_STATUS_SUCCESS";
    case NVJPEG_STATUS_NOT_INITIALIZED:
      return "NVJPEG_STATUS_NOT_INITIALIZED";
    case NVJPEG_STATUS_INVALID_PARAMETER:
      return "NVJPEG_STATUS_INVALID_PARAMETER";
    case NVJPEG_STATUS_BAD_JPEG:
      return "NVJPEG_STATUS_BAD_JPEG";
    case NVJPEG_STATUS_JPEG_NOT_SUPPORTED:
      return "NVJPEG_STATUS_JPEG_NOT_SUPPORTED";
    case NVJPEG_STATUS_ALLOCATOR_FAILURE:
      return "NVJPEG_STATUS_ALLOCATOR_FAILURE";
    case NVJPEG_STATUS_EXECUTION_FAILED:
      return "NVJPEG_STATUS_EXECUTION_FAILED";
    case NVJPEG_STATUS_ARCH_MISMATCH:
      return "NVJPEG_STATUS_ARCH_MISMATCH";
    case NVJPEG_STATUS_INTERNAL_ERROR:
      return "NVJPEG_STATUS_INTERNAL_ERROR";
    case NVJPEG_STATUS_IMPLEMENTATION_NOT_SUPPORTED:
      return "NVJPEG_STATUS_IMPLEMENTATION_NOT_SUPPORTED";
    case NVJPEG_STATUS_INCOMPLETE_BITSTREAM:
      return "NVJPEG_STATUS_INCOMPLETE_BITSTREAM";
  }
  return make_string("NVJPEG_STATUS_", static_cast<int>(s));
}

// Note [Fallback or error]
// A per-sample status means "let the CPU codec decode this sample" when it depends on the
// encoded data: nvJPEG rejects the stream (BAD_JPEG, INCOMPLETE_BITSTREAM) or does not
// implement it (JPEG_NOT_SUPPORTED, IMPLEMENTATION_NOT_SUPPORTED). libjpeg-turbo is the
// authority on such files: it decodes many streams nvJPEG rejects (truncated or slightly
// corrupt data, with a warning), and where it fails too, its error message names the real
// problem, so the caller raises DecodeError from the fallback. This is DALI's policy
// (HostFallback on NOT_SUPPORTED and BAD_JPEG), extended to the two statuses of the same kind.
// Every other status (INVALID_PARAMETER, ALLOCATOR_FAILURE, EXECUTION_FAILED, INTERNAL_ERROR,
// ARCH_MISMATCH, NOT_INITIALIZED) points at resources, the device or a bug in how Sluice calls
// nvJPEG, which a CPU decode would only hide: it is reported as a per-sample error.
inline bool nvjpeg_status_needs_fallback(nvjpegStatus_t s) {
  return s == NVJPEG_STATUS_BAD_JPEG || s == NVJPEG_STATUS_JPEG_NOT_SUPPORTED ||
         s == NVJPEG_STATUS_INCOMPLETE_BITSTREAM || s == NVJPEG_STATUS_IMPLEMENTATION_NOT_SUPPORTED;
}

[[noreturn]] inline void throw_nvjpeg_error(nvjpegStatus_t s, const char* expr, const char* file,
                                            int line) {
  std::string msg =
      make_string("nvJPEG error ", nvjpeg_status_name(s), " in ", expr, " at ", file, ":", line);
  if (s == NVJPEG_STATUS_ALLOCATOR_FAILURE) {
    throw OutOfMemory(make_string(msg, ": ", take_allocation_failure()));
  }
  throw CudaError(msg);
}

// Tear-down must not throw: these report a failure on stderr and go on releasing the rest
// (nvjpeg_decoder.cc).
void release_check(nvjpegStatus_t s, const char* what);
void synchronize_quietly(const cuda::Stream& s);

}  // namespace sluice::nvjpeg

// Checks an nvjpegStatus_t; throws CudaError (OutOfMemory for allocator failures) naming it.
#define SLUICE_NVJPEG_CHECK(expr)                                                             \
  do {                                                                                        \
    nvjpegStatus_t sluice_nvjpeg_status_ = (expr);                                            \
    if (sluice_nvjpeg_status_ != NVJPEG_STATUS_SUCCESS) {                                     \
      ::sluice::nvjpeg::throw_nvjpeg_error(sluice_nvjpeg_status_, #expr, __FILE__, __LINE__); \
    }                                                                                         \
  } while (0)
