#include "engine/system.hpp"

#include <algorithm>
#include <cstdlib>
#include <iostream>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NVMESIM_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) && !defined(NVMESIM_ASAN)
#define NVMESIM_ASAN 1
#endif
#ifdef NVMESIM_ASAN
#include <pthread.h>
#include <sanitizer/common_interface_defs.h>
#endif

#include "core/terminal_text.hpp"
#include "host/registry.hpp"
#include "models/sim_time.hpp"

namespace nvmesim {

namespace {
void report_handler(const sc_core::sc_report& rep, const sc_core::sc_actions& actions) {
  if (rep.get_severity() == sc_core::SC_INFO) return;
  std::cerr << "nvmesim: systemc: " << rep.get_msg_type() << ": " << terminal_text(rep.get_msg()) << "\n";
  if (actions & sc_core::SC_THROW) throw rep;
  if (actions & sc_core::SC_ABORT) std::abort();
}
}  // namespace

void init_systemc() {
  static bool done = false;
  if (done) return;
  done = true;
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  sc_core::sc_report_handler::set_handler(report_handler);
  sc_core::sc_set_time_resolution(1, sc_core::SC_PS);
  // Fixes the resolution now, as SystemC does at the first non-zero sc_time::from_value(): the
  // models build their sc_times inline (models/sim_time.hpp, ps_to_sc_time) and never call it.
  (void)sc_core::sc_time::from_value(1);
}

void run_systemc() {
  sc_core::sc_start();
#ifdef NVMESIM_ASAN
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) != 0) return;
  void* stack_low = nullptr;
  size_t stack_bytes = 0;
  const int got = pthread_attr_getstack(&attr, &stack_low, &stack_bytes);
  pthread_attr_destroy(&attr);
  if (got != 0) return;
  void* fake_stack = nullptr;
  __sanitizer_start_switch_fiber(&fake_stack, stack_low, stack_bytes);
  __sanitizer_finish_switch_fiber(fake_stack, nullptr, nullptr);
#endif
}

nvme_system::nvme_system(sc_core::sc_module_name name, size_t n_controllers) : sc_module(name) {
  for (size_t i = 0; i < n_controllers; ++i) {
    const int idx = static_cast<int>(i);
    const std::string n = std::to_string(i);
    hosts_.push_back(std::make_unique<nvme_host>(("host" + n).c_str(), idx));
    links_.push_back(std::make_unique<pcie_link>(("link" + n).c_str()));
    controllers_.push_back(std::make_unique<nvme_controller>(("nvme" + n).c_str(), idx));
    h_link_one_way_.push_back(fnv1a64("nvme" + n + "/link_one_way"));
    h_link_write_stall_.push_back(fnv1a64("nvme" + n + "/link_write_stall"));
    hosts_[i]->set_target_work(controllers_[i].get());
    hosts_[i]->bar.bind(links_[i]->down_target);
    links_[i]->down_initiator.bind(controllers_[i]->bar0);
    controllers_[i]->dma.bind(links_[i]->up_target);
    links_[i]->up_initiator.bind(hosts_[i]->memory.target);
  }
  SC_THREAD(drive);
}

void nvme_system::trace_signals(sc_core::sc_trace_file* tf) {
  sc_core::sc_trace(tf, trial_sig, "trial");
  sc_core::sc_trace(tf, variant_sig, "variant");
  for (size_t i = 0; i < controllers_.size(); ++i) {
    const std::string dev = "nvme" + std::to_string(i);
    controllers_[i]->trace_signals(tf, dev);
    sc_core::sc_trace(tf, hosts_[i]->state_sig, dev + ".host_state");
  }
  waveform_ = true;  // a waveform shows signals at SystemC time: every access waits (run_trial)
}

Platform& nvme_system::platform_for(const std::string& name) {
  for (DriverSet& d : driver_sets_)
    if (d.name == name) return *d.platform;
  DriverSet d;
  d.name = name;
  std::vector<nvme_host*> hosts;
  std::vector<HostDriver*> drivers;
  for (auto& h : hosts_) {
    d.drivers.push_back(make_driver(name, *h));
    hosts.push_back(h.get());
    drivers.push_back(d.drivers.back().get());
  }
  d.platform = std::make_unique<Platform>(std::move(hosts), std::move(drivers), [this](size_t n) {
    for (size_t i = 0; i < n; ++i) controllers_[i]->platform_reset();
  });
  driver_sets_.push_back(std::move(d));
  return *driver_sets_.back().platform;
}

const std::vector<PciFunction>& nvme_system::functions_of(const TrialRequest& req) {
  if (functions_.size() <= req.variant_index) functions_.resize(req.variant_index + 1);
  auto& [variant, fns] = functions_[req.variant_index];
  // Keyed by the variant itself too: the scenarios of a batch (run_scenarios) share the indices.
  if (variant != req.variant) {
    variant = req.variant;
    fns.clear();
    for (const ControllerParams& c : req.variant->controllers) fns.push_back(PciFunction{c.pci_id, c.pci_address, c.flr});
  }
  return fns;
}

bool nvme_system::run_trial(const TrialRequest& req, TrialResult& r) {
  const Variant& v = *req.variant;
  recorder_.begin_trial(req.detailed);
  // A detailed trial runs coupled too: its event list is cut at 10^6 events in the order they are
  // recorded, which is time order only when every host waits out each access (a decoupled host
  // runs its whole loop ahead of the others). The other trials keep only times, phases and
  // counts, which decoupling leaves exact.
  for (size_t i = 0; i < v.controllers.size(); ++i) hosts_[i]->set_decoupled(!waveform_ && !req.detailed);
  trial_sig.write(static_cast<int>(req.trial));
  variant_sig.write(static_cast<int>(req.variant_index));
  for (size_t i = 0; i < v.controllers.size(); ++i) {
    links_[i]->begin_trial(&v.link, Stream(req.seed, req.trial, h_link_one_way_[i]),
                           Stream(req.seed, req.trial, h_link_write_stall_[i]));
    controllers_[i]->begin_trial(&v.controllers[i], req.seed, req.trial, &recorder_);
  }
  // The controllers this variant does not have (an earlier variant, or an earlier point of a
  // sweep's batch, had more) drop what they still had pending.
  for (size_t i = v.controllers.size(); i < controllers_.size(); ++i) controllers_[i]->leave_out();
  const int64_t t0 = sim_now_ps();
  auto now_rel = [&] { return sim_now_ps() - t0; };
  Platform* chosen = nullptr;
  if (v.chain.empty()) {
    chosen = &platform_for(v.host.driver);
    chosen->begin_trial(v.host, functions_of(req), recorder_, req.seed, req.trial);
    chosen->boot();
    r.probe_status = chosen->result().status;
    r.probe_ps = hosts_[0]->outcome().end_ps;
    r.namespace_ps = hosts_[0]->outcome().namespace_ps;
  } else {
    chosen = run_chain(req, r);
    if (!chosen) return false;
  }
  Platform& platform = *chosen;
  // A shutdown or reset after a boot in which no controller probed acts on nothing (the driver
  // holds no controller): no workload time is reported for it, rather than a 0 over nothing. A
  // reboot still boots a second time.
  bool any_probed = false;
  for (size_t i = 0; i < v.controllers.size(); ++i) any_probed = any_probed || hosts_[i]->outcome().status == ProbeStatus::ok;
  const bool acts = any_probed || v.workload == Workload::reboot;
  if (platform.result().error.empty() && v.workload != Workload::probe && acts) {
    const int64_t start = now_rel();
    switch (v.workload) {
      case Workload::probe: break;
      case Workload::shutdown: platform.shutdown(); break;
      case Workload::reset: platform.reset(); break;
      case Workload::reboot: platform.reboot(); break;
    }
    r.workload_ps = now_rel() - start;
  }
  r.status = platform.result().status;
  // A kexec/unbind release that failed fails the trial as a failed workload shutdown does: the
  // OS's probe after it may be ok, but the trial was not (its first failure counts).
  for (const StageResult& g : r.stages)
    if (r.status == ProbeStatus::ok && g.release_status != ProbeStatus::ok) r.status = g.release_status;
  r.critical_path_ps = platform.result().critical_path_ps;
  error_ = platform.result().error;
  return error_.empty();
}

Platform* nvme_system::run_chain(const TrialRequest& req, TrialResult& r) {
  const Variant& v = *req.variant;
  const int64_t t0 = sim_now_ps();
  auto now_rel = [&] { return sim_now_ps() - t0; };
  while (h_stage_.size() < v.chain.size()) {
    const std::string k = std::to_string(h_stage_.size());
    h_stage_.push_back(fnv1a64("boot/chain/" + k + "/seed"));
    h_gap_.push_back(fnv1a64("boot/chain/" + k + "/gap"));
  }
  Platform* prev = nullptr;
  r.stages.clear();
  for (size_t k = 0; k < v.chain.size(); ++k) {
    const BootStage& st = v.chain[k];
    StageResult sr;
    sr.stage = &st;
    // kexec / unbind: the previous stage's Linux shuts down the controllers it holds (those whose
    // probe ended well; none after a failed probe) before this stage starts.
    if (st.entry != StageEntry::probe && prev) {
      const int64_t start = now_rel();
      const ProbeStatus before = prev->result().status;
      prev->shutdown();
      sr.release_ps = now_rel() - start;
      // The shutdown's own failure (a probe that had failed already is the earlier stage's).
      if (before == ProbeStatus::ok) sr.release_status = prev->result().status;
      if (!prev->result().error.empty()) {
        error_ = prev->result().error;
        return nullptr;
      }
    }
    // Stage 0 draws the host's randomness as a trial without a chain does; a later stage its own
    // (a new boot's clock and scheduler), the same in every variant at the same stage index.
    const uint64_t seed = k == 0 ? req.seed : splitmix64(req.seed ^ h_stage_[k]);
    Platform& p = platform_for(st.host.driver);
    p.begin_trial(st.host, functions_of(req), recorder_, seed, req.trial, k == 0);
    Stream gap(req.seed, req.trial, h_gap_[k]);
    sr.gap_ps = st.gap.sample_ps(gap);
    if (sr.gap_ps > 0) sc_core::wait(sim_delay(sr.gap_ps, "boot.chain gap"));
    sr.start_ps = now_rel();
    sr.first_phase = recorder_.phases().size();
    p.boot();
    sr.status = p.result().status;
    sr.time_ps = std::max<int64_t>(p.result().critical_path_ps - sr.start_ps, 0);
    sr.probe_ps = hosts_[0]->outcome().end_ps - sr.start_ps;
    r.stages.push_back(sr);
    if (!p.result().error.empty()) {
      error_ = p.result().error;
      return nullptr;
    }
    prev = &p;
  }
  // The OS is the last stage: its probe is the trial's probe, measured from its own start.
  const StageResult& os = r.stages.back();
  r.probe_status = os.status;
  r.probe_ps = os.probe_ps;
  const int64_t ns = hosts_[0]->outcome().namespace_ps;
  r.namespace_ps = ns >= 0 ? ns - os.start_ps : -1;
  return prev;
}

void nvme_system::drive() {
  TrialRequest req;
  while (next_trial && next_trial(req)) {
    if (sc_core::sc_time_stamp().value() > kMaxSimulatedPs) {
      error_ = "simulated time reached the limit of one run (2^63 ps, about 106 days) after " +
               std::to_string(req.trial) + " trials of variant \"" + req.variant->name +
               "\"; run fewer trials per run and split the rest over runs with other seeds";
      sc_core::sc_stop();
      return;
    }
    TrialResult r;
    current_ = req;
    if (!run_trial(req, r)) {
      sc_core::sc_stop();
      return;
    }
    // An event past the limit of simulated time stopped the run inside this trial: its result
    // is not a simulated one (the runner reports the limit).
    if (!time_limit_error().empty()) return;
    recorder_.finish_trial();
    r.recorder = &recorder_;
    trial_done(req, r);
  }
  // One picosecond more, so that a trace file records the values of the last time step.
  sc_core::wait(sc_core::sc_time::from_value(1));
  sc_core::sc_stop();
}

}  // namespace nvmesim
