#include "outputs/timeline.hpp"

#include <charconv>

#include "core/json_text.hpp"
#include "core/tool.hpp"
#include "outputs/dmesg.hpp"

namespace nvmesim {

using ojson = nlohmann::ordered_json;

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

// "phases": every phase of the trial.
void append_phases(std::string& out, const Recorder& rec) {
  out += ",\"phases\":[";
  bool first = true;
  for (const Phase& p : rec.phases()) {
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
}

// One element of "events".
void append_event(std::string& out, const Event& e) {
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

// "events" and "dmesg" of a detailed trial.
void append_events_and_dmesg(std::string& out, const Recorder& rec, const Variant* v,
                             const std::vector<StageResult>& stages, double probe_start_s) {
  out += ",\"events\":[";
  bool first = true;
  for (const Event& e : rec.events()) {
    if (!first) out += ',';
    first = false;
    append_event(out, e);
  }
  out += "],\"dmesg\":[";
  first = true;
  for (const Event& e : rec.events()) {
    if (e.kind != EventKind::message) continue;
    if (!first) out += ',';
    first = false;
    append_json_string(out, log_prefix(v, stages, probe_start_s, e.t_ps) + e.detail);
  }
  out += ']';
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
  if (!res.stages.empty()) {
    out += ",\"stages\":[";
    for (size_t k = 0; k < res.stages.size(); ++k) {
      const StageResult& g = res.stages[k];
      if (k) out += ',';
      out += "{\"driver\":";
      append_json_string(out, g.stage->host.driver);
      out += ",\"entry\":\"";
      out += key_in(kStageEntryNames, g.stage->entry);
      out += "\",\"status\":\"";
      out += to_string(g.status);
      out += '"';
      if (g.release_ps >= 0) {
        out += ",\"release_ns\":";
        append_int(out, g.release_ps / 1000);
        out += ",\"release_status\":\"";
        out += to_string(g.release_status);
        out += '"';
      }
      out += ",\"gap_ns\":";
      append_int(out, g.gap_ps / 1000);
      out += ",\"start_ns\":";
      append_int(out, g.start_ps / 1000);
      out += ",\"time_ns\":";
      append_int(out, g.time_ps / 1000);
      out += ",\"probe_ns\":";
      append_int(out, g.probe_ps / 1000);
      out += '}';
    }
    out += ']';
  }
  append_phases(out, *res.recorder);
  if (events && res.recorder->detailed()) append_events_and_dmesg(out, *res.recorder, req.variant, res.stages, probe_start_s);
  out += '}';
}

std::string timeline_header(const Scenario& sc, OutputFormat format) {
  ojson header;
  if (format == OutputFormat::jsonl) {
    header["record"] = "header";
    header["schema"] = "nvmesim.trials/1";
    header["tool"] = tool_json();
    header["scenario"] = sc.resolved;
    return header.dump() + "\n";
  }
  header["schema"] = "nvmesim.timeline/1";
  header["tool"] = tool_json();
  header["scenario"] = sc.resolved;
  std::string h = header.dump();
  h.pop_back();  // reopen the object
  return h + ",\"variants\":[";
}

void append_timeline_trial(std::string& out, const TrialRequest& req, const TrialResult& res, double probe_start_s,
                           OutputFormat format, uint64_t detail_trials) {
  if (format == OutputFormat::jsonl) {
    append_trial_json(out, req, res, probe_start_s, false, &req.variant->name);
    out += '\n';
    return;
  }
  if (req.trial == 0) {
    out += "{\"name\":";
    append_json_string(out, req.variant->name);
    out += ",\"trials\":[";
  } else {
    out += ',';
  }
  append_trial_json(out, req, res, probe_start_s, req.trial < detail_trials, nullptr);
}

std::string timeline_variant_end(const VariantReport& r, bool last) {
  return "],\"summary\":" + summary_json(r).dump() + "}" + (last ? "" : ",");
}

std::string timeline_footer(const RunReport& report, OutputFormat format) {
  ojson paired = ojson::array();
  for (const auto& p : report.paired) paired.push_back(paired_json(p));
  if (format == OutputFormat::json) return "],\"paired\":" + paired.dump() + "}\n";
  ojson s;
  s["record"] = "summary";
  ojson variants = ojson::array();
  for (const auto& r : report.variants) {
    ojson v;
    v["name"] = r.name;
    v["summary"] = summary_json(r);
    variants.push_back(v);
  }
  s["variants"] = variants;
  s["paired"] = paired;
  return s.dump() + "\n";
}

namespace {

class TimelineSink : public FileSink {
 public:
  TimelineSink(const Scenario& sc, const std::string& path, OutputFormat format, uint64_t detail_trials)
      : FileSink(path), variants_(sc.variants.size()), format_(format),
        detail_trials_(detail_trials) {
    write(timeline_header(sc, format));
    buf_.reserve(1 << 16);
  }
  bool wants_events(size_t, uint64_t trial) const override {
    return format_ == OutputFormat::json && trial < detail_trials_;
  }
  void on_trial(const TrialRequest& req, const TrialResult& res) override {
    buf_.clear();
    append_timeline_trial(buf_, req, res, req.variant->probe_start_s, format_, detail_trials_);
    write(buf_);
  }
  // json: closes the variant's object with its summary.
  void on_variant(size_t index, const VariantReport& r) override {
    if (format_ == OutputFormat::json) write(timeline_variant_end(r, index + 1 == variants_));
  }

 private:
  void write_end(const RunReport& report) override { write(timeline_footer(report, format_)); }
  const size_t variants_;
  const OutputFormat format_;
  const uint64_t detail_trials_;
  std::string buf_;
};

}  // namespace

std::unique_ptr<TrialSink> open_timeline_sink(const Scenario& sc, const std::string& path, OutputFormat format,
                                              uint64_t detail_trials) {
  return std::make_unique<TimelineSink>(sc, path, format, detail_trials);
}

}  // namespace nvmesim
