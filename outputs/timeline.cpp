#include "outputs/timeline.hpp"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/signals.hpp"

namespace nvmesim {

std::string dmesg_prefix(double probe_start_s, int64_t t_ps) {
  const int64_t ns = std::llround(probe_start_s * 1e9) + t_ps / 1000;
  char buf[48];
  std::snprintf(buf, sizeof buf, "[%5lld.%06lld] ", static_cast<long long>(ns / 1000000000),
                static_cast<long long>((ns % 1000000000) / 1000));
  return buf;
}

namespace {
// std::to_chars: no locale, no format parsing (snprintf was 14% of a jsonl run under callgrind).
void append_int(std::string& out, int64_t v) {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, static_cast<size_t>(r.ptr - buf));
}
void append_hex(std::string& out, uint64_t v) {
  char buf[24] = {'"', '0', 'x'};
  const auto r = std::to_chars(buf + 3, buf + sizeof buf - 1, v, 16);
  *r.ptr = '"';
  out.append(buf, static_cast<size_t>(r.ptr + 1 - buf));
}
}  // namespace

bool variant_reports_namespace(const Variant& v) {
  for (const auto& c : v.controllers)
    if (c.cap.crims) return true;
  return false;
}

void append_trial_json(std::string& out, const TrialRequest& req, const TrialResult& res,
                       double probe_start_s, bool events, const std::string* variant_name) {
  out += '{';
  if (variant_name) {
    out += "\"record\":\"trial\",\"variant\":";
    append_json_string(out, *variant_name);
    out += ',';
  }
  out += "\"trial\":";
  append_int(out, static_cast<int64_t>(req.trial));
  out += ",\"status\":\"";
  out += to_string(res.status);
  out += "\",\"probe_ns\":";
  append_int(out, res.probe_ps / 1000);
  out += ",\"critical_path_ns\":";
  append_int(out, res.critical_path_ps / 1000);
  if (res.namespace_ps >= 0 && req.variant && variant_reports_namespace(*req.variant)) {
    out += ",\"namespace_ns\":";
    append_int(out, res.namespace_ps / 1000);
  }
  if (res.workload_ps >= 0) {
    out += ",\"workload_ns\":";
    append_int(out, res.workload_ps / 1000);
  }
  out += ",\"phases\":[";
  bool first = true;
  for (const Phase& p : res.recorder->phases()) {
    if (!first) out += ',';
    first = false;
    out += "{\"name\":\"";
    out += p.id.name;
    out += "\",\"ctrl\":";
    append_int(out, p.ctrl);
    out += ",\"start_ns\":";
    append_int(out, p.start_ps / 1000);
    out += ",\"end_ns\":";
    append_int(out, p.end_ps / 1000);
    out += ",\"polls\":";
    append_int(out, p.polls);
    out += ",\"sleeps\":";
    append_int(out, p.sleeps);
    out += '}';
  }
  out += ']';
  if (events && res.recorder->detailed()) {
    out += ",\"events\":[";
    first = true;
    for (const Event& e : res.recorder->events()) {
      if (!first) out += ',';
      first = false;
      out += "{\"t_ns\":";
      append_int(out, e.t_ps / 1000);
      if (e.dur_ps >= 0) {
        out += ",\"dur_ns\":";
        append_int(out, e.dur_ps / 1000);
      }
      out += ",\"ctrl\":";
      append_int(out, e.ctrl);
      out += ",\"src\":\"";
      out += to_string(e.src);
      out += "\",\"kind\":\"";
      out += to_string(e.kind);
      out += '"';
      if (e.reg) {
        out += ",\"reg\":\"";
        out += e.reg;
        out += '"';
      }
      if (e.has_value) {
        out += ",\"value\":";
        append_hex(out, e.value);
      }
      if (!e.detail.empty()) {
        out += ",\"detail\":";
        append_json_string(out, e.detail);
      }
      out += '}';
    }
    out += "],\"dmesg\":[";
    first = true;
    for (const Event& e : res.recorder->events()) {
      if (e.kind != EventKind::message) continue;
      if (!first) out += ',';
      first = false;
      append_json_string(out, dmesg_prefix(probe_start_s, e.t_ps) + e.detail);
    }
    out += ']';
  }
  out += '}';
}

}  // namespace nvmesim
