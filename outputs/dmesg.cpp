#include "outputs/dmesg.hpp"

#include <cmath>
#include <cstdio>

namespace nvmesim {

std::string dmesg_prefix(double probe_start_s, int64_t t_ps) {
  const int64_t ns = std::llround(probe_start_s * 1e9) + t_ps / 1000;
  char buf[48];
  std::snprintf(buf, sizeof buf, "[%5lld.%06lld] ", static_cast<long long>(ns / 1000000000),
                static_cast<long long>((ns % 1000000000) / 1000));
  return buf;
}

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
