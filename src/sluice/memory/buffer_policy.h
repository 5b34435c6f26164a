#pragma once
// Growth and shrink policy of buffers, as DALI documents it (seed 001): pinned and device buffers
// only grow; host buffers shrink when requests are below threshold * capacity (Buffer waits for
// a run of them: buffer.h); when a buffer grows, it takes requested * growth_factor bytes.
//
// Initial values come from SLUICE_HOST_BUFFER_SHRINK_THRESHOLD (default 0.9),
// SLUICE_BUFFER_GROWTH_FACTOR (both kinds), SLUICE_HOST_BUFFER_GROWTH_FACTOR and
// SLUICE_DEVICE_BUFFER_GROWTH_FACTOR (default 1), SLUICE_BUFFER_REGROWTH_FACTOR (default 1.25).
// Setters are thread-safe.

namespace sluice {

struct BufferPolicy {
  double host_shrink_threshold = 0.9;  // 0 = never shrink, 1 = always shrink
  double host_growth_factor = 1.0;     // host and pinned buffers
  double device_growth_factor = 1.0;
  // A pinned or device buffer that grows a second time takes at least this much more than asked.
  // Fixed-size buffers never grow again and keep their exact size; those that grow again hold
  // random crops or whole images, whose sizes vary from batch to batch: at 1.0 each new largest
  // batch cost a cudaMalloc (and the synchronisation of freeing the old block) for the whole
  // run, a few more with every tenfold of batches (bench/RESULTS.md#memory-device).
  double regrowth_factor = 1.25;
};

BufferPolicy buffer_policy();
void set_host_buffer_shrink_threshold(double t);
void set_buffer_growth_factor(double f);
void set_host_buffer_growth_factor(double f);
void set_device_buffer_growth_factor(double f);

}  // namespace sluice
