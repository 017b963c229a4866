#include "core/recorder.hpp"

#include <algorithm>
#include <string>

namespace nvmesim {

void Recorder::finish_trial() {
  if (bulk_cut_ > 0) {
    Event w;
    w.t_ps = cut_at_ps_;
    w.kind = EventKind::warning;
    w.detail = "the event list keeps the first " + std::to_string(kMaxDetailedEvents) +
               " MMIO accesses, sleeps, interrupts and admin commands of a trial; " + std::to_string(bulk_cut_) +
               " more from here on are not listed (phases, counts and summaries include them)";
    events_.push_back(std::move(w));
  }
  // By (time, controller): same-time events of different controllers in controller order, so that
  // no output depends on the order in which SystemC ran their processes.
  std::stable_sort(events_.begin(), events_.end(), [](const Event& a, const Event& b) {
    return a.t_ps != b.t_ps ? a.t_ps < b.t_ps : a.ctrl < b.ctrl;
  });
  std::stable_sort(phases_.begin(), phases_.end(), [](const Phase& a, const Phase& b) {
    return a.ctrl != b.ctrl ? a.ctrl < b.ctrl : a.start_ps < b.start_ps;
  });
}

}  // namespace nvmesim
