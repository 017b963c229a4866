#include "outputs/dmesg.hpp"

#include <cmath>
#include <cstdio>

#include "core/json_text.hpp"
#include "host/registry.hpp"

namespace nvmesim {

std::string dmesg_prefix(double probe_start_s, int64_t t_ps) {
  const int64_t ns = std::llround(probe_start_s * 1e9) + t_ps / 1000;
  char buf[48];
  std::snprintf(buf, sizeof buf, "[%5lld.%06lld] ", static_cast<long long>(ns / 1000000000),
                static_cast<long long>((ns % 1000000000) / 1000));
  return buf;
}

std::string dmesg_boot_marker(const std::string& variant, uint64_t trial) {
  std::string s = "# nvmesim boot {\"variant\":";
  append_json_string(s, variant);
  s += ",\"trial\":" + std::to_string(trial) + "}";
  return s;
}

void append_dmesg_text(std::string& out, const std::string& text) {
  static const char* const kHex = "0123456789abcdef";
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c == 0x7f) {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 0xf];
    } else {
      out += ch;
    }
  }
}

std::string msgbuf_prefix(double probe_start_s, int64_t t_ps) {
  const int64_t ns = std::llround(probe_start_s * 1e9) + t_ps / 1000;
  char buf[48];
  std::snprintf(buf, sizeof buf, "[%lld.%06lld] ", static_cast<long long>(ns / 1000000000),
                static_cast<long long>((ns % 1000000000) / 1000));
  return buf;
}

std::string spdk_log_prefix(double probe_start_s, int64_t t_ps) {
  const int64_t ns = std::llround(probe_start_s * 1e9) + t_ps / 1000;
  const int64_t s = ns / 1000000000;
  // Civil date of day s / 86400 since 1970-01-01 (Howard Hinnant's civil_from_days).
  const int64_t z = s / 86400 + 719468;
  const int64_t era = z / 146097;
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  const int64_t d = doy - (153 * mp + 2) / 5 + 1;
  const int64_t m = mp < 10 ? mp + 3 : mp - 9;
  const int64_t y = yoe + era * 400 + (m <= 2);
  const int64_t sod = s % 86400;
  char buf[64];
  std::snprintf(buf, sizeof buf, "[%04lld-%02lld-%02lld %02lld:%02lld:%02lld.%06lld] ", static_cast<long long>(y),
                static_cast<long long>(m), static_cast<long long>(d), static_cast<long long>(sod / 3600),
                static_cast<long long>(sod / 60 % 60), static_cast<long long>(sod % 60),
                static_cast<long long>((ns % 1000000000) / 1000));
  return buf;
}

namespace {

std::string prefix_of(LogFormat f, double probe_start_s, int64_t t_ps) {
  switch (f) {
    case LogFormat::console: return "";
    case LogFormat::msgbuf: return msgbuf_prefix(probe_start_s, t_ps);
    case LogFormat::spdk_log: return spdk_log_prefix(probe_start_s, t_ps);
    case LogFormat::printk: break;
  }
  return dmesg_prefix(probe_start_s, t_ps);
}

}  // namespace

std::string log_prefix(const Variant* v, double probe_start_s, int64_t t_ps) {
  return prefix_of(v ? driver_traits(v->host.driver).log : LogFormat::printk, probe_start_s, t_ps);
}

std::string log_prefix(const Variant* v, const std::vector<StageResult>& stages, double probe_start_s, int64_t t_ps) {
  if (stages.empty() || !stages.front().stage) return log_prefix(v, probe_start_s, t_ps);
  size_t k = 0;
  while (k + 1 < stages.size() && t_ps >= stages[k + 1].start_ps) ++k;
  return prefix_of(driver_traits(stages[k].stage->host.driver).log, probe_start_s, t_ps);
}

void append_dmesg_trial(std::string& out, const TrialRequest& req, const TrialResult& res, double probe_start_s) {
  out += dmesg_boot_marker(req.variant->name, req.trial);
  out += '\n';
  // Without a chain one driver wrote every line. With boot.chain each stage's lines are in its
  // own host's format, and a printk stage (Linux) starts with its own driver-init line at the
  // stage's start: `nvmesim dmesg` then measures the OS's probe from its init, not from the
  // firmware's start. A stage's lines run from its start to the next stage's start; the release
  // before a stage (kexec/unbind: the previous kernel's shutdown) is the previous stage's.
  const size_t n = res.stages.size();
  auto format_of = [&](size_t k) {
    return driver_traits(n ? res.stages[k].stage->host.driver : req.variant->host.driver).log;
  };
  auto init_line = [&](int64_t t_ps) {
    out += dmesg_prefix(probe_start_s, t_ps);
    out += kDmesgInitLine;
    out += '\n';
  };
  size_t k = 0;
  if (format_of(0) == LogFormat::printk) init_line(n ? res.stages[0].start_ps : 0);
  for (const Event& e : res.recorder->events()) {
    if (e.kind != EventKind::message) continue;
    while (k + 1 < n && e.t_ps >= res.stages[k + 1].start_ps) {
      ++k;
      if (format_of(k) == LogFormat::printk) init_line(res.stages[k].start_ps);
    }
    out += prefix_of(format_of(k), probe_start_s, e.t_ps);
    append_dmesg_text(out, e.detail);
    out += '\n';
  }
  // Stages with no line of their own still print their init line.
  while (k + 1 < n) {
    ++k;
    if (format_of(k) == LogFormat::printk) init_line(res.stages[k].start_ps);
  }
}

namespace {

class DmesgSink : public FileSink {
 public:
  DmesgSink(const std::string& path, const TrialSelection& trials) : FileSink(path), trials_(trials) {}
  bool wants_events(size_t, uint64_t trial) const override { return trials_.contains(trial); }
  void on_trial(const TrialRequest& req, const TrialResult& res) override {
    if (!trials_.contains(req.trial)) return;
    buf_.clear();
    append_dmesg_trial(buf_, req, res, req.variant->probe_start_s);
    write(buf_);
  }

 private:
  const TrialSelection trials_;
  std::string buf_;
};

}  // namespace

std::unique_ptr<TrialSink> open_dmesg_sink(const std::string& path, const TrialSelection& trials) {
  return std::make_unique<DmesgSink>(path, trials);
}

}  // namespace nvmesim
