#include <algorithm>
#include <cstdio>

#include "models/nvme_regs.hpp"
#include "scenario/loader_parts.hpp"

namespace nvmesim::scenario_detail {

using ojson = nlohmann::ordered_json;
using Node = JsonNode;

namespace {

// A lower bound of one trial's simulated time in picoseconds: the first controller cannot finish
// before its driver-init delay plus either its shortest enable latency or, when it never becomes
// ready, the enable wait's deadline (CAP.TO x 500 ms, less two jiffies for the deadline's
// rounding). Used to refuse, before running, a trial count that must overflow simulated time.
int64_t trial_lower_bound_ps(const Variant& v) {
  int64_t best = 0;
  const int64_t jiffy_ps = 1'000'000'000'000 / v.host.timers.hz;
  for (const ControllerParams& c : v.controllers) {
    const int64_t timeout_ps = std::max<int64_t>(0, int64_t{c.cap.to} * 500'000'000'000 - 2 * jiffy_ps);
    const int64_t wait_ps = c.faults.never_ready ? timeout_ps : std::min(c.enable_latency.min_ps(), timeout_ps);
    best = std::max(best, v.host.init_to_probe.min_ps() + wait_ps);
  }
  return best;
}

// Whether every probe of controller `c` fails before the driver creates an I/O queue, whatever
// its draws: CC.EN 0->1 never sets CSTS.RDY (never_ready), every enable ends in CSTS.CFS
// (cfs_on_enable 1), every read returns all ones from before the probe's first access on (a
// surprise removal from the start), or every Identify completes with an error status that the
// driver tests (FreeBSD: SC and SCT; Linux: all 15 bits; either stops with EIO before the queue
// pairs). Such a probe makes only its register accesses and the polls of its wait, which the run
// itself bounds (host.max_events_per_trial).
//
// So does a probe whose CC.CSS the controller does not support (issue 16's last findings, item
// 12): the controller checks CC.CSS against CAP.CSS when enabled and ends in CSTS.CFS
// (regs::cc_css_supported, models/nvme_controller.cpp), before any queue. Linux writes CSS 110b
// (all I/O command sets) when its release takes CSS from CAP (5.10 on, profile.css_from_cap;
// linux-readiness.md section 6) and CAP.CSS has bit 6, else 000b (NVM); FreeBSD and U-Boot write
// 000b. (EDK2 refuses a controller without CAP.CSS bit 0 before enabling it; it creates at most 2
// pairs and is not counted.)
bool css_unsupported(const ControllerParams& c, const Variant& v) {
  uint8_t css = regs::kCcCssNvm;
  if (v.host.driver == "linux" && v.host.profile.css_from_cap && (c.cap.css & regs::kCapCssIoCommandSets) != 0)
    css = regs::kCcCssAllIoCommandSets;
  return !regs::cc_css_supported(css, c.cap.css);
}

bool probe_always_fails(const ControllerParams& c, const Variant& v) {
  const ControllerFaults& f = c.faults;
  const bool removed_from_start = f.all_ones.active && f.all_ones.for_ps < 0 && f.all_ones.from_ps <= v.host.init_to_probe.min_ps();
  // FreeBSD tests SC and SCT (bits 10:0) of Identify's status, Linux all 15 bits: either fails
  // the controller before any queue is created (docs/behaviours.md).
  const bool identify_fails = (v.host.driver == "freebsd" && (f.identify_status & 0x7ff) != 0) ||
                              (v.host.driver == "linux" && f.identify_status != 0);
  return f.never_ready || f.cfs_on_enable >= 1.0 || removed_from_start || identify_fails || css_unsupported(c, v);
}

// A lower bound of the host operations (MMIO accesses and sleeps: what host.max_events_per_trial
// counts) of a trial of `v` in which every probe that can succeed does. The Linux and FreeBSD
// drivers create one I/O queue pair per queue the device grants, min(host.cpus, io_queues) (Set
// Features, Number of Queues), with two admin commands per pair (Create I/O CQ, Create I/O SQ),
// and each command costs at least its SQ tail doorbell write and its CQ head doorbell write: 4 per
// pair. A controller whose probe always fails (probe_always_fails) creates none and counts 0
// here: a what-if in which every trial fails is not refused for queue pairs it never creates.
// The other drivers create at most 2 pairs per controller (0 here: never near the limit).
// The drivers that walk namespaces 1..NN (controllers[].identify.nn: every driver but Linux,
// which does not read it, qemu-userspace, openvmm and nvmewin) send one Identify Namespace per
// namespace once Identify Controller succeeded: at least its SQ tail doorbell write, 1 per
// namespace (a controller whose Identify fails walks none). `counted` receives the number of
// controllers that count; `namespaces` the namespaces counted.
bool walks_namespaces(const std::string& driver) {
  return driver == "freebsd" || driver == "seabios" || driver == "uboot" || driver == "edk2" ||
         driver == "openbsd" || driver == "spdk";
}
uint64_t successful_probe_operations(const Variant& v, size_t& counted, uint64_t& namespaces) {
  counted = 0;
  namespaces = 0;
  const bool queues = v.host.driver == "linux" || v.host.driver == "freebsd";
  const bool walks = walks_namespaces(v.host.driver);
  if (!queues && !walks) return 0;
  uint64_t ops = 0;
  for (const ControllerParams& c : v.controllers) {
    if (probe_always_fails(c, v)) continue;
    if (queues) ops += 4 * uint64_t{std::min(v.host.cpus, c.io_queues)};
    if (walks && c.faults.identify_status == 0) namespaces += c.nn;
    ++counted;
  }
  return ops + namespaces;
}

}  // namespace

void check_operation_budget(const Scenario& sc, const ojson& doc) {
  for (const Variant& v : sc.variants) {
    size_t counted = 0;
    uint64_t namespaces = 0;
    const uint64_t need = successful_probe_operations(v, counted, namespaces);
    if (need <= v.host.max_events_per_trial) continue;
    // The limit is the last boot.chain stage's when that stage sets it (issue 13: the error named
    // /host/max_events_per_trial for a stage's key).
    std::string at = "/host/max_events_per_trial";
    const ojson::json_pointer last_stage("/boot/chain/" + std::to_string(v.chain.empty() ? 0 : v.chain.size() - 1));
    if (!v.chain.empty() && doc.contains(last_stage) && doc.at(last_stage).is_object() &&
        doc.at(last_stage).contains("max_events_per_trial"))
      at = last_stage.to_string() + "/max_events_per_trial";
    if (namespaces > 0 && namespaces >= need / 2) {
      Node(doc, sc.source, at)
          .fail("variant \"" + v.name + "\": a trial whose probes succeed makes at least " + std::to_string(need) +
                " MMIO accesses, " + std::to_string(namespaces) + " of them the Identify Namespace commands of the " +
                "namespaces host.driver \"" + v.host.driver + "\" walks (controllers[].identify.nn, 1 to NN, at " +
                "least a doorbell write each), more than the limit of " + std::to_string(v.host.max_events_per_trial) +
                " host operations per trial (host.max_events_per_trial): each such trial would stop there; use a "
                "smaller identify.nn, or raise host.max_events_per_trial to at least " + std::to_string(need) +
                " (up to " + std::to_string(kMaxOperationsPerTrial) + ")");
    }
    const std::string which = counted == v.controllers.size()
                                  ? std::to_string(counted) + " controllers"
                                  : std::to_string(counted) + " of the " + std::to_string(v.controllers.size()) +
                                        " controllers (the others' probes always fail before their queues)";
    Node(doc, sc.source, at)
        .fail("variant \"" + v.name + "\": a trial whose probes succeed makes at least " + std::to_string(need) +
              " MMIO accesses (" + which + ", each 4 doorbell writes per I/O queue pair, min(host.cpus, io_queues) pairs" +
              (namespaces > 0 ? ", and " + std::to_string(namespaces) + " Identify Namespace commands" : std::string()) +
              "), more "
              "than the limit of " + std::to_string(v.host.max_events_per_trial) +
              " host operations per trial (host.max_events_per_trial): each such trial would stop there; "
              "raise host.max_events_per_trial to at least " + std::to_string(need) +
              " (up to " + std::to_string(kMaxOperationsPerTrial) + "), or use fewer controllers, io_queues or host.cpus");
  }
}

void check_simulated_time_budget(const Scenario& sc, const ojson& doc) {
  // Simulated time runs on across the trials of a process (sc_time never goes back), and is a
  // 64-bit count of picoseconds: refuse what must exceed kMaxSimulatedPs.
  const long double budget_ps = static_cast<long double>(kMaxSimulatedPs);
  long double need_ps = 0;
  const Variant* longest = &sc.variants.front();
  for (const Variant& v : sc.variants) {
    need_ps += static_cast<long double>(sc.trials) * static_cast<long double>(trial_lower_bound_ps(v));
    if (trial_lower_bound_ps(v) > trial_lower_bound_ps(*longest)) longest = &v;
  }
  if (need_ps > budget_ps) {
    long double per_trial_ps = 0;
    for (const Variant& v : sc.variants) per_trial_ps += static_cast<long double>(trial_lower_bound_ps(v));
    const auto max_trials = static_cast<unsigned long long>(budget_ps / per_trial_ps);
    char buf[400];
    std::snprintf(buf, sizeof buf,
                  "%llu trials x %zu variant%s need at least %.0Lf s of simulated time (a trial of variant "
                  "\"%s\" lasts at least %.3Lf s), more than the %.0Lf s (2^63 ps, about 106 days) one run "
                  "can simulate; run at most %llu trials per run and split the rest over runs with other seeds",
                  static_cast<unsigned long long>(sc.trials), sc.variants.size(),
                  sc.variants.size() == 1 ? "" : "s", need_ps / 1e12L, longest->name.c_str(),
                  static_cast<long double>(trial_lower_bound_ps(*longest)) / 1e12L, budget_ps / 1e12L, max_trials);
    Node(doc, sc.source, "/trials").fail(buf);
  }
}

}  // namespace nvmesim::scenario_detail
