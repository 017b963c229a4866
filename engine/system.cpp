#include "engine/system.hpp"

#include <cmath>
#include <cstdlib>
#include <iostream>

namespace nvmesim {

namespace {
void report_handler(const sc_core::sc_report& rep, const sc_core::sc_actions& actions) {
  if (rep.get_severity() == sc_core::SC_INFO) return;
  std::cerr << "nvmesim: systemc: " << rep.get_msg_type() << ": " << rep.get_msg() << "\n";
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
}

nvme_system::nvme_system(sc_core::sc_module_name name, size_t n_controllers) : sc_module(name) {
  for (size_t i = 0; i < n_controllers; ++i) {
    const int idx = static_cast<int>(i);
    const std::string n = std::to_string(i);
    probes_.push_back(std::make_unique<linux_probe>(("host" + n).c_str(), idx));
    links_.push_back(std::make_unique<pcie_link>(("link" + n).c_str()));
    controllers_.push_back(std::make_unique<nvme_controller>(("nvme" + n).c_str(), idx));
    h_link_one_way_.push_back(fnv1a64("nvme" + n + "/link_one_way"));
    h_link_write_stall_.push_back(fnv1a64("nvme" + n + "/link_write_stall"));
    probes_[i]->bar.bind(links_[i]->down_target);
    links_[i]->down_initiator.bind(controllers_[i]->bar0);
    controllers_[i]->dma.bind(links_[i]->up_target);
    links_[i]->up_initiator.bind(probes_[i]->memory.target);
  }
  SC_THREAD(drive);
}

void nvme_system::trace_signals(sc_core::sc_trace_file* tf) const {
  sc_core::sc_trace(tf, trial_sig, "trial");
  sc_core::sc_trace(tf, variant_sig, "variant");
  for (size_t i = 0; i < controllers_.size(); ++i) {
    const std::string dev = "nvme" + std::to_string(i);
    controllers_[i]->trace_signals(tf, dev);
    sc_core::sc_trace(tf, probes_[i]->state_sig, dev + ".host_state");
  }
}

void nvme_system::run_parallel(const std::vector<size_t>& which, HostAction action) {
  for (size_t i : which) probes_[i]->start_action(action);
  for (size_t i : which)
    if (!probes_[i]->done()) sc_core::wait(probes_[i]->done_event());
}

void nvme_system::drive() {
  const uint64_t h_phase = fnv1a64("host/tick_phase");
  TrialRequest req;
  std::vector<size_t> live;  // reused: no allocation per trial
  while (next_trial && next_trial(req)) {
    const Variant& v = *req.variant;
    if (sc_core::sc_time_stamp().value() > kMaxSimulatedPs) {
      error_ = "simulated time reached the limit of one run (2^63 ps, about 106 days) after " +
               std::to_string(req.trial) + " trials of variant \"" + v.name +
               "\"; run fewer trials per run and split the rest over runs with other seeds";
      sc_core::sc_stop();
      return;
    }
    recorder_.begin_trial(req.detailed);
    trial_sig.write(static_cast<int>(req.trial));
    variant_sig.write(static_cast<int>(req.variant_index));
    // The trial starts at a random phase of a random tick (linux-readiness.md section 4).
    Stream tick(req.seed, req.trial, h_phase);
    const double tick_ps = 1e12 / v.host.timers.hz;
    const auto phase_ps = static_cast<int64_t>(std::floor(tick.next_uniform() * tick_ps));
    const auto jiffies_base = static_cast<uint64_t>(tick.next_uniform() * 4294967296.0);
    const TickClock clock(v.host.timers.hz, phase_ps, jiffies_base);
    const size_t n = v.controllers.size();
    bool crto_warned = false;  // dev_warn_once: once per boot for all controllers
    for (size_t i = 0; i < n; ++i) {
      links_[i]->begin_trial(&v.link, Stream(req.seed, req.trial, h_link_one_way_[i]),
                             Stream(req.seed, req.trial, h_link_write_stall_[i]));
      controllers_[i]->begin_trial(&v.controllers[i], req.seed, req.trial, &recorder_);
      probes_[i]->start(ProbeSetup{&v.host, &v.controllers[i], &clock, &recorder_, req.seed, req.trial, &crto_warned});
    }
    const int64_t t0 = static_cast<int64_t>(sc_core::sc_time_stamp().value());
    auto now_rel = [&] { return static_cast<int64_t>(sc_core::sc_time_stamp().value()) - t0; };
    // Asynchronous probe: every controller at once; boot waits for all of them.
    for (size_t i = 0; i < n; ++i)
      if (!probes_[i]->done()) sc_core::wait(probes_[i]->done_event());
    TrialResult r;
    live.clear();
    auto collect = [&](size_t i) {
      const ProbeOutcome& o = probes_[i]->outcome();
      if (!o.error.empty() && error_.empty()) error_ = o.error;
      if (r.status == ProbeStatus::ok && o.status != ProbeStatus::ok) r.status = o.status;
      r.critical_path_ps = std::max(r.critical_path_ps, o.end_ps);
    };
    for (size_t i = 0; i < n; ++i) {
      collect(i);
      if (probes_[i]->outcome().status == ProbeStatus::ok) live.push_back(i);
    }
    r.probe_ps = probes_[0]->outcome().end_ps;
    r.namespace_ps = probes_[0]->outcome().namespace_ps;
    if (error_.empty() && v.workload != Workload::probe) {
      const int64_t start = now_rel();
      if (v.workload == Workload::reset) {
        run_parallel(live, HostAction::reset);
      } else {
        // device_shutdown walks the devices in reverse order of registration, one at a time;
        // host.async_shutdown runs them all at once.
        if (v.host.async_shutdown) {
          run_parallel(live, HostAction::shutdown);
        } else {
          for (auto it = live.rbegin(); it != live.rend(); ++it) run_parallel({*it}, HostAction::shutdown);
        }
        if (v.workload == Workload::reboot) {
          for (size_t i : live) collect(i);
          // The platform resets every function; firmware hands them over again; a new boot probes.
          crto_warned = false;
          for (size_t i = 0; i < n; ++i) controllers_[i]->platform_reset();
          live.clear();
          for (size_t i = 0; i < n; ++i) live.push_back(i);
          run_parallel(live, HostAction::reboot_probe);
        }
      }
      for (size_t i : live) collect(i);
      r.workload_ps = now_rel() - start;
    }
    if (!error_.empty()) {
      sc_core::sc_stop();
      return;
    }
    recorder_.finish_trial();
    r.recorder = &recorder_;
    trial_done(req, r);
  }
  // One picosecond more, so that a trace file records the values of the last time step.
  sc_core::wait(sc_core::sc_time::from_value(1));
  sc_core::sc_stop();
}

}  // namespace nvmesim
