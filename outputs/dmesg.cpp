#include "outputs/dmesg.hpp"

#include "outputs/timeline.hpp"

namespace nvmesim {

void append_dmesg_trial(std::string& out, const TrialResult& res, double probe_start_s) {
  out += dmesg_prefix(probe_start_s, 0);
  out += kDmesgInitLine;
  out += '\n';
  for (const Event& e : res.recorder->events()) {
    if (e.kind != EventKind::message) continue;
    out += dmesg_prefix(probe_start_s, e.t_ps);
    out += e.detail;
    out += '\n';
  }
}

}  // namespace nvmesim
