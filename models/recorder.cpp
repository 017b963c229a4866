#include "models/recorder.hpp"

#include <algorithm>

namespace nvmesim {

const char* to_string(EventKind k) {
  switch (k) {
    case EventKind::mmio_read: return "mmio_read";
    case EventKind::mmio_write: return "mmio_write";
    case EventKind::sleep: return "sleep";
    case EventKind::state: return "state";
    case EventKind::admin_cmd: return "admin_cmd";
    case EventKind::irq: return "irq";
    case EventKind::message: return "message";
    case EventKind::warning: return "warning";
  }
  return "?";
}

const char* to_string(EventSource s) {
  switch (s) {
    case EventSource::host: return "host";
    case EventSource::device: return "device";
    case EventSource::link: return "link";
  }
  return "?";
}

void Recorder::finish_trial() {
  std::stable_sort(events_.begin(), events_.end(),
                   [](const Event& a, const Event& b) { return a.t_ps < b.t_ps; });
  std::stable_sort(phases_.begin(), phases_.end(), [](const Phase& a, const Phase& b) {
    return a.ctrl != b.ctrl ? a.ctrl < b.ctrl : a.start_ps < b.start_ps;
  });
}

}  // namespace nvmesim
