// DLPack exchange of the tensor bindings: Sluice's data types as DLPack's and back, and the
// capsule that __dlpack__ hands out for a tensor or a dense batch, with the stream handshake.
//
// Note [DLPack stream handshake]: __dlpack__(stream=s) makes the consumer's stream s wait for
// the event recorded after the pipeline's GPU stage (no host synchronisation). When the consumer
// releases the capsule, the storage adopts s as its stream: freeing it, or writing it again from
// the pipeline, is then ordered after the work the consumer queued on s.

#include <Python.h>

#include <vector>

#include "bindings.h"
#include "dlpack.h"
#include "sluice/core/error.h"
#include "sluice/cuda/consumer_load.h"

namespace sluice::python {
namespace {

// One exported tensor: what the capsule keeps alive.
struct ExportCtx {
  std::shared_ptr<Buffer> storage;
  std::shared_ptr<Outputs> owner;
  std::vector<int64_t> shape;
  cuda::StreamHandle consumer = nullptr;
  dlpack::DLManagedTensor unversioned;
  dlpack::DLManagedTensorVersioned versioned;
};

void release_ctx(ExportCtx* ctx) {
  if (ctx->consumer && ctx->storage) ctx->storage->set_stream(ctx->consumer);
  delete ctx;
}

void capsule_destructor(PyObject* cap) {
  if (PyCapsule_IsValid(cap, "dltensor")) {
    auto* m = static_cast<dlpack::DLManagedTensor*>(PyCapsule_GetPointer(cap, "dltensor"));
    if (m && m->deleter) m->deleter(m);
  } else if (PyCapsule_IsValid(cap, "dltensor_versioned")) {
    auto* m = static_cast<dlpack::DLManagedTensorVersioned*>(
        PyCapsule_GetPointer(cap, "dltensor_versioned"));
    if (m && m->deleter) m->deleter(m);
  }
  PyErr_Clear();  // "used_*" capsules are owned by their consumer
}

}  // namespace

dlpack::DLDataType dl_dtype(DType t) {
  switch (t) {
    case DType::kBool:
      return {dlpack::kDLBool, 8, 1};
    case DType::kUInt8:
      return {dlpack::kDLUInt, 8, 1};
    case DType::kInt8:
      return {dlpack::kDLInt, 8, 1};
    case DType::kUInt16:
      return {dlpack::kDLUInt, 16, 1};
    case DType::kInt16:
      return {dlpack::kDLInt, 16, 1};
    case DType::kUInt32:
      return {dlpack::kDLUInt, 32, 1};
    case DType::kInt32:
      return {dlpack::kDLInt, 32, 1};
    case DType::kInt64:
      return {dlpack::kDLInt, 64, 1};
    case DType::kFloat16:
      return {dlpack::kDLFloat, 16, 1};
    case DType::kBFloat16:
      return {dlpack::kDLBfloat, 16, 1};
    case DType::kFloat32:
      return {dlpack::kDLFloat, 32, 1};
    case DType::kFloat64:
      return {dlpack::kDLFloat, 64, 1};
    case DType::kUInt64:
      return {dlpack::kDLUInt, 64, 1};
  }
  throw Error("invalid dtype");
}

DType dtype_from_dl(uint8_t code, uint8_t bits) {
  for (int i = 0; i < kNumDTypes; ++i) {
    auto t = static_cast<DType>(i);
    auto d = dl_dtype(t);
    if (d.code == code && d.bits == bits) return t;
  }
  throw InvalidArgument(
      make_string("unsupported DLPack data type (code ", int(code), ", ", int(bits), " bits)"));
}

nb::object export_dlpack(const View& v, const std::shared_ptr<Outputs>& owner, nb::handle stream,
                         nb::handle max_version) {
  bool versioned = false;
  if (max_version.is_valid() && !max_version.is_none()) {
    nb::tuple mv = nb::cast<nb::tuple>(max_version);
    versioned = mv.size() >= 1 && nb::cast<int>(mv[0]) >= 1;
  }
  auto* ctx = new ExportCtx();
  ctx->storage = v.storage;
  ctx->owner = owner;
  ctx->shape.assign(v.shape.begin(), v.shape.end());
  dlpack::DLTensor dl{};
  dl.data = v.data;
  dl.ndim = static_cast<int32_t>(ctx->shape.size());
  dl.shape = ctx->shape.data();
  dl.strides = nullptr;
  dl.dtype = dl_dtype(v.dtype);
  if (v.kind == MemoryKind::kDevice) {
    dl.device = {dlpack::kDLCUDA, v.device};
    int64_t s = 1;  // None: the legacy default stream (array API rule)
    if (stream.is_valid() && !stream.is_none()) s = nb::cast<int64_t>(stream);
    if (s == 0) {
      delete ctx;
      throw InvalidArgument(
          "__dlpack__(stream=0) is ambiguous for CUDA; use 1 for the legacy "
          "default stream or a stream pointer");
    }
    if (s != -1) {
      ctx->consumer = reinterpret_cast<cuda::StreamHandle>(static_cast<intptr_t>(s));
      if (owner && owner->ready) {
        try {
          // Once per batch, before the consumer's stream waits for it (consumer_load.h). The GIL
          // guards `probed`; a batch freed and another allocated at its address skips one probe.
          static const Outputs* probed = nullptr;
          if (owner.get() != probed) {
            probed = owner.get();
            cuda::probe_consumer_stream(v.device, ctx->consumer);
          }
          cuda::stream_wait_event(ctx->consumer, owner->ready->get());
        } catch (...) {
          delete ctx;
          throw;
        }
      }
    }
  } else {
    dl.device = {dlpack::kDLCPU, 0};
  }
  PyObject* cap;
  if (versioned) {
    ctx->versioned.version = {1, 0};
    ctx->versioned.manager_ctx = ctx;
    ctx->versioned.deleter = [](dlpack::DLManagedTensorVersioned* m) {
      release_ctx(static_cast<ExportCtx*>(m->manager_ctx));
    };
    ctx->versioned.flags = 0;
    ctx->versioned.dl_tensor = dl;
    cap = PyCapsule_New(&ctx->versioned, "dltensor_versioned", capsule_destructor);
  } else {
    ctx->unversioned.dl_tensor = dl;
    ctx->unversioned.manager_ctx = ctx;
    ctx->unversioned.deleter = [](dlpack::DLManagedTensor* m) {
      release_ctx(static_cast<ExportCtx*>(m->manager_ctx));
    };
    cap = PyCapsule_New(&ctx->unversioned, "dltensor", capsule_destructor);
  }
  if (!cap) {
    delete ctx;
    throw nb::python_error();
  }
  return nb::steal(cap);
}

nb::tuple dlpack_device(const View& v) {
  if (v.kind == MemoryKind::kDevice) return nb::make_tuple(int(dlpack::kDLCUDA), v.device);
  return nb::make_tuple(int(dlpack::kDLCPU), 0);
}

}  // namespace sluice::python
