#include <algorithm>
#include <cmath>

#include "scenario/scenario.hpp"
#include "sweep/sweep.hpp"

namespace nvmesim {

namespace {

// Weights of the estimate, in ns of CPU on the development VM (bench/results.md, issue 15; the
// perf review's lean build: about 3.5 us per controller-trial besides polling, 0.1-0.25 us per
// CSTS poll, about 0.2 ms of elaboration per controller). Only their ratios matter: the estimate
// orders points, it never changes what a point computes.
constexpr double kTrialNs = 3500;                 // one controller's trial besides its polls
constexpr double kPollNs = 250;                   // one CSTS read and the sleep before the next
constexpr double kElaborationNsPerController = 200'000;
constexpr double kStartNs = 5'000'000;            // the worker process's start-up
constexpr double kOtherDriverPollPs = 1e9;        // a host driver other than Linux: 1 ms assumed

// The time between two CSTS reads of a readiness wait under `host` with Linux's `sleep`, in ps:
// what the sleep asks for (msleep(100): 100 ms; usleep_range(1000, 2000): 1 ms), at least 1 us
// (a busy poll costs about one read's link round trip).
double poll_interval_ps(const HostParams& host, const SleepPolicy& sleep) {
  if (host.driver == "spdk") return std::max(1e6, static_cast<double>(host.poll_interval.quantile_ps(0.5)));
  if (host.driver != "linux") return kOtherDriverPollPs;
  return std::max(1e6, static_cast<double>(sleep.requested_ps()));
}

// Expected polls of one wait whose condition comes `latency_ps` after it starts (the median of
// the latency's distribution), polling every `interval_ps`: one read, then one per interval.
double polls(double latency_ps, double interval_ps) { return 1.0 + std::max(0.0, latency_ps) / interval_ps; }

double median_ps(const Distribution& d) { return static_cast<double>(d.quantile_ps(0.5)); }

}  // namespace

double point_cost_estimate(const Scenario& sc) {
  double ns = kStartNs;
  size_t controllers = 0;
  for (const Variant& v : sc.variants) {
    controllers = std::max(controllers, v.controllers.size());
    const double poll_ps = poll_interval_ps(v.host, v.host.profile.poll);
    const double shutdown_poll_ps = poll_interval_ps(v.host, v.host.profile.shutdown_poll);
    const size_t boots = (v.chain.empty() ? 1 : v.chain.size()) + (v.workload == Workload::reboot ? 1 : 0);
    double per_trial = 0;
    for (const ControllerParams& c : v.controllers) {
      // A never-ready controller is polled until the enable wait's deadline, CAP.TO x 500 ms.
      const double enable_ps = c.faults.never_ready ? c.cap.to * 5e11 : median_ps(c.enable_latency);
      double p = static_cast<double>(boots) * (polls(enable_ps, poll_ps) + polls(median_ps(c.disable_latency), poll_ps));
      if (v.workload == Workload::shutdown || v.workload == Workload::reboot)
        p += polls(median_ps(c.shutdown_latency), shutdown_poll_ps);
      if (v.workload == Workload::reset) p += polls(median_ps(c.disable_latency), poll_ps);
      per_trial += kTrialNs + kPollNs * p;
    }
    ns += static_cast<double>(sc.trials) * per_trial;
  }
  return ns + kElaborationNsPerController * static_cast<double>(controllers);
}

}  // namespace nvmesim
