#pragma once
// What one trial leaves behind: its phases (always) and, for the trials chosen for full detail,
// its event list (DESIGN section 8), and how it ended. Pure C++; both sides of the socket record
// here, and every output reads it.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/names.hpp"

namespace nvmesim {

/// Event kinds of the timeline (`kind` in nvmesim.timeline/1).
enum class EventKind : uint8_t { mmio_read, mmio_write, sleep, state, admin_cmd, irq, message, warning };
inline constexpr EnumName<EventKind> kEventKindNames[] = {
    {EventKind::mmio_read, "mmio_read"}, {EventKind::mmio_write, "mmio_write"}, {EventKind::sleep, "sleep"},
    {EventKind::state, "state"},         {EventKind::admin_cmd, "admin_cmd"},   {EventKind::irq, "irq"},
    {EventKind::message, "message"},     {EventKind::warning, "warning"}};
/// Which side produced an event (`src`).
enum class EventSource : uint8_t { host, device, link };
inline constexpr EnumName<EventSource> kEventSourceNames[] = {
    {EventSource::host, "host"}, {EventSource::device, "device"}, {EventSource::link, "link"}};

constexpr const char* to_string(EventKind k) { return key_in(kEventKindNames, k); }
constexpr const char* to_string(EventSource s) { return key_in(kEventSourceNames, s); }

/// How a controller's probe (or a later action on it) ended (`status` in the timeline).
enum class ProbeStatus : uint8_t {
  ok,      ///< reached the queues line (or the action's end)
  enodev,  ///< -ENODEV: not ready by the deadline, or CSTS read all ones
  eintr,   ///< -EINTR: a fatal signal during a wait, or an admin command timed out
  fatal,   ///< CSTS.CFS set
  eio,     ///< -EIO: an admin command completed with an error status (its CQE Status Field not 0)
};
/// The statuses in value order: the table also sizes the per-status counts (StatusCounts).
inline constexpr EnumName<ProbeStatus> kProbeStatusNames[] = {
    {ProbeStatus::ok, "ok"}, {ProbeStatus::enodev, "enodev"}, {ProbeStatus::eintr, "eintr"}, {ProbeStatus::fatal, "fatal"},
    {ProbeStatus::eio, "eio"}};
static_assert(in_value_order(kProbeStatusNames), "kProbeStatusNames indexes the status counts");
constexpr const char* to_string(ProbeStatus s) { return key_in(kProbeStatusNames, s); }

/// Trials per ProbeStatus, indexed by the status's value.
using StatusCounts = std::array<uint64_t, std::size(kProbeStatusNames)>;
/// The trials of `c` that did not end ok.
inline uint64_t failed_trials(const StatusCounts& c) {
  uint64_t n = 0;
  for (size_t i = 0; i < c.size(); ++i)
    if (static_cast<ProbeStatus>(i) != ProbeStatus::ok) n += c[i];
  return n;
}

/// A kind of phase, declared by whoever records it (a host driver declares the phases it
/// records): its `name` in the outputs, and `order`, its place in the per-phase summaries, which
/// list every phase a variant's trials recorded in increasing order.
struct PhaseId {
  uint16_t order = 0;
  const char* name = "";
};

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
  PhaseId id;                ///< pre_probe, disable, enable, admin, ...
  int ctrl = 0;
  int64_t start_ps = 0;
  int64_t end_ps = 0;
  uint32_t polls = 0;        ///< CSTS reads inside the readiness wait
  uint32_t sleeps = 0;       ///< sleeps inside the readiness wait
};

/// Most MMIO accesses, sleeps, interrupts and admin commands one detailed trial's event list
/// keeps (about 100 MB): a busy poll under raised host.max_events_per_trial or
/// max_polls_per_wait (allowed up to 1e9) made one trial's list grow to gigabytes (issue 16
/// item 10). Messages, warnings and state changes are always kept (dmesg and the timeline need
/// them; a trial has few); phases, counts and summaries always cover every operation.
inline constexpr size_t kMaxDetailedEvents = 1'000'000;

/// Collects one trial's phases and (when `detailed`) events. Reused across trials: begin_trial()
/// clears it without giving back memory.
class Recorder {
 public:
  void begin_trial(bool detailed) {
    detailed_ = detailed;
    events_.clear();
    phases_.clear();
    operations_ = 0;
    bulk_kept_ = 0;
    bulk_cut_ = 0;
  }
  /// Counts one host operation (MMIO access or sleep) of this trial, detailed or not, and returns
  /// the count so far: the basis of the per-trial event limit (HostParams::max_events_per_trial).
  uint64_t count_operation() { return ++operations_; }
  /// True when this trial keeps its full event list; check before building an event.
  bool detailed() const { return detailed_; }
  /// Keeps `e` when the trial is detailed; past kMaxDetailedEvents bulk events (MMIO, sleep,
  /// irq, admin_cmd) counts instead, and finish_trial() adds a warning saying how many it left out.
  void add(Event e) {
    if (!detailed_) return;
    const bool bulk = e.kind != EventKind::message && e.kind != EventKind::warning && e.kind != EventKind::state;
    if (bulk && bulk_kept_ >= kMaxDetailedEvents) {
      if (bulk_cut_++ == 0) cut_at_ps_ = e.t_ps;
      return;
    }
    bulk_kept_ += bulk;
    events_.push_back(std::move(e));
  }
  /// Opens a phase and returns its index (controllers interleave, so keep the index).
  size_t add_phase(const Phase& p) {
    phases_.push_back(p);
    return phases_.size() - 1;
  }
  Phase& phase(size_t index) { return phases_[index]; }
  /// Adds the warning for a cut list (at the time of the first event left out), then sorts
  /// events by (time, controller) (stable: same-time events of one controller keep the order
  /// they were recorded in).
  void finish_trial();
  const std::vector<Event>& events() const { return events_; }
  const std::vector<Phase>& phases() const { return phases_; }

 private:
  bool detailed_ = false;
  uint64_t operations_ = 0;
  size_t bulk_kept_ = 0;   // bulk events kept this trial
  uint64_t bulk_cut_ = 0;  // bulk events left out this trial
  int64_t cut_at_ps_ = 0;  // time of the first one left out
  std::vector<Event> events_;
  std::vector<Phase> phases_;
};

}  // namespace nvmesim
