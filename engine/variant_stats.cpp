#include "engine/variant_stats.hpp"

#include <algorithm>
#include <cstring>

#include "core/stats.hpp"

namespace nvmesim {

using ojson = nlohmann::ordered_json;

void CountStats::add(uint64_t v) {
  min = std::min(min, v);
  max = std::max(max, v);
  sum += v;
  ++n;
}

ojson CountStats::json() const {
  ojson j;
  j["min"] = n ? min : 0;
  j["max"] = max;
  j["mean"] = n ? round6(static_cast<double>(sum) / static_cast<double>(n)) : 0.0;
  return j;
}

VariantStats::PhaseStats& VariantStats::phase(const PhaseId& id) {
  for (auto& p : phases_)
    if (p.id.name == id.name || std::strcmp(p.id.name, id.name) == 0) return p;
  phases_.push_back(PhaseStats{id, {}, {}});
  return phases_.back();
}

void VariantStats::add(const TrialRequest& req, const TrialResult& res) {
  // The probe's statistics cover the trials whose probe succeeded (a shutdown that then times
  // out does not unmake the probe); the critical path, the whole trial's, covers the ok trials.
  if (res.probe_status == ProbeStatus::ok) probe_ps_.add(res.probe_ps);
  if (res.status == ProbeStatus::ok) critical_ps_.add(res.critical_path_ps);
  // Time to failure: driver init to the probe's failure, or to the end of the workload that
  // failed (the critical path: its last controller's end).
  if (res.status != ProbeStatus::ok)
    failure_ps_.add(res.probe_status != ProbeStatus::ok ? res.probe_ps : res.critical_path_ps);
  if (res.namespace_ps >= 0 && variant_reports_namespace(*req.variant)) namespace_ps_.add(res.namespace_ps);
  if (res.workload_ps >= 0) workload_ps_.add(res.workload_ps);
  ++counts_[static_cast<size_t>(res.status)];
  if (stages_.size() < res.stages.size()) stages_.resize(res.stages.size());
  for (size_t k = 0; k < res.stages.size(); ++k) {
    const StageResult& g = res.stages[k];
    StageStats& st = stages_[k];
    ++st.counts[static_cast<size_t>(g.status)];
    if (g.status == ProbeStatus::ok) {
      st.time_ps.add(g.time_ps);
      st.probe_ps.add(g.probe_ps);
    }
    st.gap_ps.add(g.gap_ps);
    if (g.release_ps >= 0) st.release_ps.add(g.release_ps);
  }
  // summary.phases is the OS's: with a boot chain, the last stage's phases (and the workload's)
  // only. Counting every stage would fold e.g. EDK2's and Linux's `disable` into one summary
  // (docs/output.md); the earlier stages have their times in `stages`.
  const std::vector<Phase>& phases = res.recorder->phases();
  const size_t first = res.stages.empty() ? 0 : std::min(res.stages.back().first_phase, phases.size());
  for (size_t i = first; i < phases.size(); ++i) {
    const Phase& p = phases[i];
    auto& ps = phase(p.id);
    ps.polls.add(p.polls);
    ps.sleeps.add(p.sleeps);
  }
}

RanSettings ran_settings(const Variant& v) {
  RanSettings r;
  r.driver = v.host.driver;
  if (!r.is_linux()) {
    r.release = v.host.driver_release;
    return r;
  }
  const KernelProfile& p = v.host.profile;
  r.kernel = v.host.kernel.to_string();
  r.mainline = v.host.kernel.distribution() ? v.host.kernel.mainline() : r.kernel;
  r.profile = p.first == p.last ? p.first : p.first + "-" + p.last;
  r.poll_sleep = p.poll.to_string();
  r.hz = v.host.timers.hz;
  return r;
}

VariantReport VariantStats::report(const Variant& v) const {
  VariantReport r;
  r.name = v.name;
  r.ran = ran_settings(v);
  r.status_counts = counts_;
  for (uint64_t n : counts_) r.trials += n;
  // Sketches hold picoseconds: 1e9 of them make a millisecond.
  r.probe_ms = probe_ps_.summary(1e9);
  r.critical_path_ms = critical_ps_.summary(1e9);
  r.time_to_failure_ms = failure_ps_.summary(1e9);
  r.namespace_ms = namespace_ps_.summary(1e9);
  r.workload_ms = workload_ps_.summary(1e9);
  for (size_t k = 0; k < stages_.size() && k < v.chain.size(); ++k) {
    const StageStats& st = stages_[k];
    StageReport g;
    g.driver = v.chain[k].host.driver;
    g.entry = key_in(kStageEntryNames, v.chain[k].entry);
    g.status_counts = st.counts;
    g.time_ms = st.time_ps.summary(1e9);
    g.probe_ms = st.probe_ps.summary(1e9);
    g.gap_ms = st.gap_ps.summary(1e9);
    g.release_ms = st.release_ps.summary(1e9);
    r.stages.push_back(std::move(g));
  }
  std::vector<const PhaseStats*> order;
  for (const auto& p : phases_) order.push_back(&p);
  std::sort(order.begin(), order.end(), [](const PhaseStats* a, const PhaseStats* b) {
    return a->id.order != b->id.order ? a->id.order < b->id.order : std::strcmp(a->id.name, b->id.name) < 0;
  });
  r.phases = ojson::object();
  for (const PhaseStats* ph : order) {
    r.phases[ph->id.name]["polls"] = ph->polls.json();
    r.phases[ph->id.name]["sleeps"] = ph->sleeps.json();
  }
  return r;
}

Summary VariantStats::delta_ms() const { return delta_ps_.summary(1e9); }

void pair_with_baseline(BaselineSpill& spill, const TrialRequest& req, const TrialResult& res, VariantStats& stats) {
  if (req.variant_index == 0) {
    spill.put(res.probe_ps, res.probe_status);
    return;
  }
  if (req.trial == 0) spill.rewind();
  int64_t base_ps = 0;
  ProbeStatus base_status = ProbeStatus::ok;
  if (spill.get(base_ps, base_status) && res.probe_status == ProbeStatus::ok && base_status == ProbeStatus::ok)
    stats.add_delta_ps(res.probe_ps - base_ps);
}

RunStats::RunStats(size_t variants) : stats_(variants) {
  if (variants > 1) baseline_ = std::make_unique<BaselineSpill>();
}

void RunStats::add(const TrialRequest& req, const TrialResult& res) {
  VariantStats& s = stats_[req.variant_index];
  s.add(req, res);
  if (baseline_) pair_with_baseline(*baseline_, req, res, s);
}

std::vector<PairedReport> RunStats::paired(const Scenario& sc) const {
  if (baseline_) baseline_->check();
  std::vector<PairedReport> out;
  for (size_t i = 1; i < sc.variants.size(); ++i) {
    PairedReport p;
    p.variant = sc.variants[i].name;
    p.baseline = sc.variants[0].name;
    p.delta_ms = stats_[i].delta_ms();
    p.trials = sc.trials;
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace nvmesim
