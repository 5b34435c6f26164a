#pragma once
// Whether the GPU work of a pipeline's consumer keeps the device busy: a training step in the same
// process. When the consumer takes a batch (the DLPack hand-over, before its stream waits for the
// batch), an event recorded on its stream shows whether the work it queued so far is still
// running. A model that is the bottleneck keeps its queue ahead of the device: most probes find
// it busy. A consumer waiting for data lets its queue drain: most probes find it idle.
//
// The mixed decoder reads it to keep the hardware JPEG decoder out of the way of a busy model
// (Note [A busy consumer] in codecs/nvjpeg/nvjpeg_decode_batch.cc). Thread-safe.

#include "sluice/cuda/cuda_api.h"

namespace sluice::cuda {

// Records a probe on `stream` (on `device`) and notes whether the work queued on it is done.
void probe_consumer_stream(int device, StreamHandle stream);
// True while most of the recent probes on `device` found the consumer's stream busy.
bool consumer_keeps_device_busy(int device);
// Forgets the probes (tests).
void reset_consumer_probes();

}  // namespace sluice::cuda
