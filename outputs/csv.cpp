#include "outputs/csv.hpp"

#include <cstdio>
#include <cstdlib>

namespace nvmesim {

std::string csv_trials_header() {
  return "variant,trial,status,probe_ms,critical_path_ms,namespace_ms,workload_ms,polls,sleeps,phases\n";
}

std::string csv_quote(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) {
    if (c == '"') q += '"';
    q += c;
  }
  return q + '"';
}

std::string csv_ms(int64_t t_ps) {
  const int64_t ns = t_ps / 1000;  // toward zero
  const long long whole = std::llabs(ns / 1'000'000), frac = std::llabs(ns % 1'000'000);
  char buf[48];
  std::snprintf(buf, sizeof buf, "%s%lld.%06lld", ns < 0 ? "-" : "", whole, frac);
  return buf;
}

void append_csv_trial(std::string& out, const TrialRequest& req, const TrialResult& res) {
  out += csv_quote(req.variant->name);
  out += ',' + std::to_string(req.trial) + ',' + to_string(res.status);
  out += ',' + csv_ms(res.probe_ps) + ',' + csv_ms(res.critical_path_ps) + ',';
  if (res.namespace_ps >= 0 && variant_reports_namespace(*req.variant)) out += csv_ms(res.namespace_ps);
  out += ',';
  if (res.workload_ps >= 0) out += csv_ms(res.workload_ps);
  uint64_t polls = 0, sleeps = 0;
  std::string phases;
  for (const Phase& p : res.recorder->phases()) {
    polls += p.polls;
    sleeps += p.sleeps;
    if (!phases.empty()) phases += ' ';
    phases += std::string(p.id.name) + '[' + std::to_string(p.ctrl) + "]:" + std::to_string(p.polls) + '/' +
              std::to_string(p.sleeps);
  }
  out += ',' + std::to_string(polls) + ',' + std::to_string(sleeps) + ',' + csv_quote(phases) + '\n';
}

namespace {

class CsvSink : public FileSink {
 public:
  explicit CsvSink(const std::string& path) : FileSink(path) { write(csv_trials_header()); }
  void on_trial(const TrialRequest& req, const TrialResult& res) override {
    buf_.clear();
    append_csv_trial(buf_, req, res);
    write(buf_);
  }

 private:
  std::string buf_;
};

}  // namespace

std::unique_ptr<TrialSink> open_csv_sink(const std::string& path) { return std::make_unique<CsvSink>(path); }

}  // namespace nvmesim
