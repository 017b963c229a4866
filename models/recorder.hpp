#pragma once
// What one trial leaves behind: its phases (always) and, for the trials chosen for full detail,
// its event list (DESIGN section 8). Pure C++; both sides of the socket record here.
#include <cstdint>
#include <string>
#include <vector>

namespace nvmesim {

/// Event kinds of the timeline (`kind` in nvmesim.timeline/1).
enum class EventKind : uint8_t { mmio_read, mmio_write, sleep, state, admin_cmd, irq, message, warning };
/// Which side produced an event (`src`).
enum class EventSource : uint8_t { host, device, link };

const char* to_string(EventKind k);
const char* to_string(EventSource s);

/// One timeline event. Times are picoseconds from the start of the trial (driver init).
struct Event {
  int64_t t_ps = 0;
  int64_t dur_ps = -1;       ///< duration (MMIO round trip, sleep, command), -1 when none
  int ctrl = 0;              ///< controller index (nvmeN)
  EventSource src = EventSource::host;
  EventKind kind = EventKind::message;
  const char* reg = nullptr; ///< register or command name, when there is one
  bool has_value = false;
  uint64_t value = 0;        ///< register value read or written
  std::string detail;        ///< message text, sleep call, state name...
};

/// One phase of a controller's probe (`phases` in the timeline).
struct Phase {
  const char* name = "";     ///< pre_probe, disable, enable, admin
  int ctrl = 0;
  int64_t start_ps = 0;
  int64_t end_ps = 0;
  uint32_t polls = 0;        ///< CSTS reads inside the readiness wait
  uint32_t sleeps = 0;       ///< sleeps inside the readiness wait
};

/// Collects one trial's phases and (when `detailed`) events. Reused across trials: begin_trial()
/// clears it without giving back memory.
class Recorder {
 public:
  void begin_trial(bool detailed) {
    detailed_ = detailed;
    events_.clear();
    phases_.clear();
    operations_ = 0;
  }
  /// Counts one host operation (MMIO access or sleep) of this trial, detailed or not, and returns
  /// the count so far: the basis of the per-trial event limit (HostParams::max_events_per_trial).
  uint64_t count_operation() { return ++operations_; }
  /// True when this trial keeps its full event list; check before building an event.
  bool detailed() const { return detailed_; }
  void add(Event e) {
    if (detailed_) events_.push_back(std::move(e));
  }
  /// Opens a phase and returns its index (controllers interleave, so keep the index).
  size_t add_phase(const Phase& p) {
    phases_.push_back(p);
    return phases_.size() - 1;
  }
  Phase& phase(size_t index) { return phases_[index]; }
  /// Sorts events into time order (stable: same-time events keep the order they were recorded).
  void finish_trial();
  const std::vector<Event>& events() const { return events_; }
  const std::vector<Phase>& phases() const { return phases_; }

 private:
  bool detailed_ = false;
  uint64_t operations_ = 0;
  std::vector<Event> events_;
  std::vector<Phase> phases_;
};

}  // namespace nvmesim
