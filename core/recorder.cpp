#include "core/recorder.hpp"

#include <algorithm>

namespace nvmesim {

void Recorder::finish_trial() {
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
