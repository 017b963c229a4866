#include "outputs/trace.hpp"

#include <algorithm>
#include <cstdio>
#include <map>

#include "core/stats.hpp"
#include "core/version.hpp"
#include "outputs/dmesg.hpp"

namespace nvmesim {

using ojson = nlohmann::ordered_json;

TraceWriter::TraceWriter(const Scenario& scenario) : sc_(scenario) {}

void TraceWriter::add_trial(const TrialRequest& req, const TrialResult& res) {
  StoredTrial t;
  t.variant = req.variant_index;
  t.trial = req.trial;
  t.status = res.status;
  t.probe_ps = res.probe_ps;
  t.critical_path_ps = res.critical_path_ps;
  t.events = res.recorder->events();
  t.phases = res.recorder->phases();
  t.stages = res.stages;
  t.length_ps = res.critical_path_ps;
  for (const Event& e : t.events) t.length_ps = std::max(t.length_ps, e.t_ps + std::max<int64_t>(e.dur_ps, 0));
  for (const Phase& p : t.phases) t.length_ps = std::max(t.length_ps, p.end_ps);
  trials_.push_back(std::move(t));
}

namespace {

struct Out {
  int pid = 0, tid = 0;
  int64_t ts_ns = 0, dur_ns = -1;
  int order = 0;  // tie-break: enclosing slices first at equal ts (longer first), then record order
  size_t seq = 0;
  ojson ev;
};

double us(int64_t ns) { return static_cast<double>(ns) / 1000.0; }

std::string hex(uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

int64_t ns_of(int64_t base_ps, int64_t t_ps) { return (base_ps + t_ps) / 1000; }

// Trial slots: slot k starts where slot k-1 ended (its longest trial over all variants) plus a
// tenth of that length, at least 10 us.
template <class Trials>
std::map<uint64_t, int64_t> slot_starts(const Trials& trials) {
  std::map<uint64_t, int64_t> slot_len;
  for (const auto& t : trials) slot_len[t.trial] = std::max(slot_len[t.trial], t.length_ps);
  std::map<uint64_t, int64_t> slot_start;
  int64_t at = 0;
  for (const auto& [k, len] : slot_len) {
    slot_start[k] = at;
    at += len + std::max<int64_t>(len / 10, 10'000'000);
  }
  return slot_start;
}

// The names and sort order of the processes (variants) and threads (host and device tracks).
ojson metadata(const Scenario& sc) {
  ojson meta = ojson::array();
  for (size_t v = 0; v < sc.variants.size(); ++v) {
    const int pid = static_cast<int>(v) + 1;
    meta.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", pid}, {"tid", 0}, {"ts", 0},
                    {"args", {{"name", sc.variants[v].name}}}});
    meta.push_back({{"name", "process_sort_index"}, {"ph", "M"}, {"pid", pid}, {"tid", 0}, {"ts", 0},
                    {"args", {{"sort_index", pid}}}});
    for (size_t c = 0; c < sc.variants[v].controllers.size(); ++c) {
      const std::string dev = "nvme" + std::to_string(c);
      const int host_tid = static_cast<int>(2 * c + 1);
      meta.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", pid}, {"tid", host_tid}, {"ts", 0},
                      {"args", {{"name", "host: " + dev + " probe"}}}});
      meta.push_back({{"name", "thread_sort_index"}, {"ph", "M"}, {"pid", pid}, {"tid", host_tid}, {"ts", 0},
                      {"args", {{"sort_index", host_tid}}}});
      meta.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", pid}, {"tid", host_tid + 1}, {"ts", 0},
                      {"args", {{"name", dev + " device (" + sc.variants[v].controllers[c].label + ")"}}}});
      meta.push_back({{"name", "thread_sort_index"}, {"ph", "M"}, {"pid", pid}, {"tid", host_tid + 1}, {"ts", 0},
                      {"args", {{"sort_index", host_tid + 1}}}});
    }
    if (!sc.variants[v].chain.empty()) {
      // boot.chain: one track of the stages (release, gap, stage) after the controllers' tracks.
      const int tid = static_cast<int>(2 * sc.variants[v].controllers.size() + 1);
      meta.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", pid}, {"tid", tid}, {"ts", 0},
                      {"args", {{"name", "boot chain"}}}});
      meta.push_back({{"name", "thread_sort_index"}, {"ph", "M"}, {"pid", pid}, {"tid", tid}, {"ts", 0},
                      {"args", {{"sort_index", tid}}}});
    }
  }
  return meta;
}

}  // namespace

// The trace events of the stored trials, in record order until sorted() (internal to this file).
class TraceEventList {
 public:
  void emit(int pid, int tid, int64_t ts_ns, int64_t dur_ns, ojson ev) {
    outs_.push_back(Out{pid, tid, ts_ns, dur_ns, 0, seq_++, std::move(ev)});
  }
  // An MMIO access, sleep or admin command as a complete event `X`.
  void emit_span(int pid, int tid, int64_t base, const Event& e);
  // A state change (with the CSTS counter), an interrupt, a dmesg line or a warning as an instant.
  void emit_instant(int pid, int tid, int64_t base, const Event& e, const Variant& v,
                    const std::vector<StageResult>& stages);
  // Deterministic order: by process, thread, time; an enclosing slice before what it encloses.
  const std::vector<Out>& sorted() {
    std::stable_sort(outs_.begin(), outs_.end(), [](const Out& a, const Out& b) {
      if (a.pid != b.pid) return a.pid < b.pid;
      if (a.tid != b.tid) return a.tid < b.tid;
      if (a.ts_ns != b.ts_ns) return a.ts_ns < b.ts_ns;
      if (a.dur_ns != b.dur_ns) return a.dur_ns > b.dur_ns;
      return a.seq < b.seq;
    });
    return outs_;
  }

 private:
  std::vector<Out> outs_;
  size_t seq_ = 0;
};

void TraceEventList::emit_span(int pid, int tid, int64_t base, const Event& e) {
  const int64_t ts = ns_of(base, e.t_ps);
  const int64_t end = ns_of(base, e.t_ps + std::max<int64_t>(e.dur_ps, 0));
  std::string name;
  ojson args = ojson::object();
  const char* cat = "mmio";
  if (e.kind == EventKind::mmio_read) {
    name = std::string("read ") + (e.reg ? e.reg : "?");
    args["value"] = hex(e.value);
  } else if (e.kind == EventKind::mmio_write) {
    name = std::string("write ") + (e.reg ? e.reg : "?");
    args["value"] = hex(e.value);
  } else if (e.kind == EventKind::sleep) {
    name = e.detail;
    cat = "sleep";
  } else {
    name = e.reg ? e.reg : "admin";
    cat = "admin";
    args["cid"] = e.value;
  }
  emit(pid, tid, ts, end - ts,
       {{"name", name}, {"cat", cat}, {"ph", "X"}, {"ts", us(ts)}, {"dur", us(end - ts)}, {"pid", pid},
        {"tid", tid}, {"args", args}});
}

void TraceEventList::emit_instant(int pid, int tid, int64_t base, const Event& e, const Variant& v,
                                  const std::vector<StageResult>& stages) {
  const int64_t ts = ns_of(base, e.t_ps);
  if (e.kind == EventKind::state) {
    emit(pid, tid, ts, 0,
         {{"name", "state " + e.detail}, {"cat", "state"}, {"ph", "i"}, {"s", "t"}, {"ts", us(ts)},
          {"pid", pid}, {"tid", tid}, {"args", {{"CSTS", hex(e.value)}}}});
    const regs::Csts csts = regs::Csts::decode(static_cast<uint32_t>(e.value));
    emit(pid, 0, ts, -1,
         {{"name", "nvme" + std::to_string(e.ctrl) + " CSTS"}, {"ph", "C"}, {"ts", us(ts)}, {"pid", pid}, {"tid", 0},
          {"args", {{"RDY", csts.rdy ? 1 : 0}, {"SHST", static_cast<int>(csts.shst)}, {"CFS", csts.cfs ? 1 : 0}}}});
    return;
  }
  const char* cat = e.kind == EventKind::irq ? "irq" : e.kind == EventKind::message ? "dmesg" : "warning";
  ojson args = ojson::object();
  std::string name = e.detail;
  if (e.kind == EventKind::message) args["line"] = log_prefix(&v, stages, v.probe_start_s, e.t_ps) + e.detail;
  if (e.kind == EventKind::warning) name = "warning: " + e.detail;
  emit(pid, tid, ts, 0,
       {{"name", name}, {"cat", cat}, {"ph", "i"}, {"s", "t"}, {"ts", us(ts)}, {"pid", pid}, {"tid", tid},
        {"args", args}});
}

void TraceWriter::emit_trial(TraceEventList& list, const StoredTrial& t, int64_t base) const {
  const Variant& var = sc_.variants[t.variant];
  const int pid = static_cast<int>(t.variant) + 1;
  const size_t n_ctrl = var.controllers.size();
  // Per controller: end of its probe (the trial slice on its host track encloses everything).
  std::vector<int64_t> ctrl_end(n_ctrl, 0);
  for (const Phase& p : t.phases)
    if (p.ctrl >= 0 && static_cast<size_t>(p.ctrl) < n_ctrl) ctrl_end[p.ctrl] = std::max(ctrl_end[p.ctrl], p.end_ps);
  for (const Event& e : t.events)
    if (e.src != EventSource::device && e.ctrl >= 0 && static_cast<size_t>(e.ctrl) < n_ctrl)
      ctrl_end[e.ctrl] = std::max(ctrl_end[e.ctrl], e.t_ps + std::max<int64_t>(e.dur_ps, 0));
  for (size_t c = 0; c < n_ctrl; ++c) {
    const int tid = static_cast<int>(2 * c + 1);
    const int64_t ts = ns_of(base, 0), end = ns_of(base, ctrl_end[c]);
    list.emit(pid, tid, ts, end - ts,
              {{"name", "trial " + std::to_string(t.trial)}, {"cat", "trial"}, {"ph", "X"}, {"ts", us(ts)},
               {"dur", us(end - ts)}, {"pid", pid}, {"tid", tid},
               {"args", {{"trial", t.trial}, {"status", to_string(t.status)},
                         {"probe_ms", round6(static_cast<double>(t.probe_ps) / 1e9)},
                         {"critical_path_ms", round6(static_cast<double>(t.critical_path_ps) / 1e9)}}}});
    // Counters at trial start: the handoff state (RDY=1 when firmware left it enabled).
    const int rdy = var.controllers[c].handoff == Handoff::enabled ? 1 : 0;
    list.emit(pid, 0, ts, -1,
              {{"name", "nvme" + std::to_string(c) + " CSTS"}, {"ph", "C"}, {"ts", us(ts)}, {"pid", pid},
               {"tid", 0}, {"args", {{"RDY", rdy}, {"SHST", 0}, {"CFS", 0}}}});
  }
  // boot.chain: per stage its release (kexec/unbind), its gap and the stage itself, on the
  // "boot chain" track (metadata above).
  const int chain_tid = static_cast<int>(2 * n_ctrl + 1);
  for (size_t k = 0; k < t.stages.size(); ++k) {
    const StageResult& g = t.stages[k];
    const std::string driver = g.stage ? g.stage->host.driver : "?";
    auto slice = [&](const std::string& name, const char* cat, int64_t from_ps, int64_t len_ps) {
      const int64_t ts = ns_of(base, from_ps), end = ns_of(base, from_ps + len_ps);
      list.emit(pid, chain_tid, ts, end - ts,
                {{"name", name}, {"cat", cat}, {"ph", "X"}, {"ts", us(ts)}, {"dur", us(end - ts)}, {"pid", pid},
                 {"tid", chain_tid}, {"args", {{"stage", k + 1}, {"driver", driver}}}});
    };
    const int64_t gap_from = g.start_ps - g.gap_ps;
    if (g.release_ps > 0) slice("release (" + std::string(key_in(kStageEntryNames, g.stage->entry)) + ")", "release",
                                gap_from - g.release_ps, g.release_ps);
    if (g.gap_ps > 0) slice("gap", "gap", gap_from, g.gap_ps);
    slice("stage " + std::to_string(k + 1) + ": " + driver + " (" + to_string(g.status) + ")", "stage", g.start_ps,
          g.time_ps);
  }
  for (const Phase& p : t.phases) {
    const int tid = 2 * p.ctrl + 1;
    const int64_t ts = ns_of(base, p.start_ps), end = ns_of(base, p.end_ps);
    list.emit(pid, tid, ts, end - ts,
              {{"name", p.id.name}, {"cat", "phase"}, {"ph", "X"}, {"ts", us(ts)}, {"dur", us(end - ts)},
               {"pid", pid}, {"tid", tid}, {"args", {{"polls", p.polls}, {"sleeps", p.sleeps}}}});
  }
  for (const Event& e : t.events) {
    const int tid = 2 * e.ctrl + (e.src == EventSource::device ? 2 : 1);
    switch (e.kind) {
      case EventKind::mmio_read:
      case EventKind::mmio_write:
      case EventKind::sleep:
      case EventKind::admin_cmd: list.emit_span(pid, tid, base, e); break;
      case EventKind::state:
      case EventKind::irq:
      case EventKind::message:
      case EventKind::warning: list.emit_instant(pid, tid, base, e, var, t.stages); break;
    }
  }
}

std::string TraceWriter::render() const {
  const std::map<uint64_t, int64_t> slot_start = slot_starts(trials_);
  TraceEventList list;
  for (const auto& t : trials_) emit_trial(list, t, slot_start.at(t.trial));

  std::string s = "{\"traceEvents\":[\n";
  bool first = true;
  auto line = [&](const ojson& j) {
    if (!first) s += ",\n";
    first = false;
    s += j.dump();
  };
  for (const auto& m : metadata(sc_)) line(m);
  for (const auto& o : list.sorted()) line(o.ev);
  ojson other;
  other["tool"] = std::string("nvmesim ") + kVersion;
  other["scenario"] = sc_.name;
  other["seed"] = sc_.seed;
  ojson trials = ojson::array();
  for (const auto& [k, start] : slot_start) trials.push_back({{"trial", k}, {"start_us", us(start / 1000)}});
  other["trial_slots"] = trials;
  s += "\n],\"displayTimeUnit\":\"ns\",\"otherData\":" + other.dump() + "}\n";
  return s;
}

namespace {

class TraceSink : public FileSink {
 public:
  TraceSink(const Scenario& sc, const std::string& path, const TrialSelection& trials)
      : FileSink(path), trials_(trials), writer_(sc) {}
  bool wants_events(size_t, uint64_t trial) const override { return trials_.contains(trial); }
  void on_trial(const TrialRequest& req, const TrialResult& res) override {
    if (trials_.contains(req.trial)) writer_.add_trial(req, res);
  }

 private:
  void write_end(const RunReport&) override { write(writer_.render()); }
  const TrialSelection trials_;
  TraceWriter writer_;
};

}  // namespace

std::unique_ptr<TrialSink> open_trace_sink(const Scenario& sc, const std::string& path, const TrialSelection& trials) {
  return std::make_unique<TraceSink>(sc, path, trials);
}

}  // namespace nvmesim
