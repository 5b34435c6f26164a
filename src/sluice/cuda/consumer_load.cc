#include "sluice/cuda/consumer_load.h"

#include <map>
#include <mutex>

namespace sluice::cuda {
namespace {

// Each probe moves the estimate an eighth of the way: about eight batches in a row decide, so
// that a single slow step or a validation pass does not flip the decoder back and forth.
constexpr double kProbeWeight = 0.125;

struct DeviceProbes {
  Event event;
  double busy = 0;  // moving share of probes that found the stream busy
};

struct Probes {
  std::mutex mu;
  std::map<int, DeviceProbes> devices;
};

Probes& probes() {
  static auto* p = new Probes();  // never destroyed: read by pipeline threads at exit
  return *p;
}

}  // namespace

void probe_consumer_stream(int device, StreamHandle stream) {
  Probes& p = probes();
  std::lock_guard<std::mutex> lk(p.mu);
  DeviceProbes& d = p.devices[device];
  if (!d.event.get()) d.event = Event(device);
  d.event.record(stream);
  const double sample = d.event.query() ? 0.0 : 1.0;
  d.busy += kProbeWeight * (sample - d.busy);
}

bool consumer_keeps_device_busy(int device) {
  Probes& p = probes();
  std::lock_guard<std::mutex> lk(p.mu);
  auto it = p.devices.find(device);
  return it != p.devices.end() && it->second.busy > 0.5;
}

void reset_consumer_probes() {
  Probes& p = probes();
  std::lock_guard<std::mutex> lk(p.mu);
  for (auto& [device, d] : p.devices) d.busy = 0;
}

}  // namespace sluice::cuda
