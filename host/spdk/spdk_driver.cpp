#include "host/spdk/spdk_driver.hpp"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>

#include "host/nvme_host.hpp"
#include "host/readiness.hpp"
#include "host/registry.hpp"
#include "models/nvme_regs.hpp"

namespace nvmesim {

namespace {
using probe_phase::kAdmin, probe_phase::kDisable, probe_phase::kEnable;
constexpr PhaseId kResetWait{0, "reset_wait"}, kShutdown{4, "shutdown"};
// The second boot's probe (HostAction::reboot_probe), numbered like Linux's reboot_* phases so
// that summaries keep the two boots apart.
constexpr PhaseId kRebootResetWait{11, "reboot_reset_wait"}, kRebootDisable{12, "reboot_disable"},
    kRebootEnable{13, "reboot_enable"}, kRebootAdmin{14, "reboot_admin"};
constexpr int64_t kMs = 1'000'000'000;                     // ps
constexpr int64_t kResetWait17Ps = 500 * kMs;              // "17.x": 500 ms after a reset or hot insert
constexpr int64_t kResetWaitPs = 2000 * kMs;               // "18.01+": 2 s
constexpr int64_t kQuirkDelayPs = 2500 * kMs;              // NVME_QUIRK_DELAY_BEFORE_CHK_RDY: 2.5 s after EN=0
constexpr uint32_t kEnableDelayUs = 100;                   // spdk_delay_us(100) before CC.EN=1
constexpr uint32_t kShutdownDelayUs = 1000;                // nvme_delay(1000) between SHST reads
constexpr uint64_t kShutdown17Ms = 5000;                   // "17.x": 5 s
constexpr uint64_t kShutdownMinMs = 10000;                 // "18.01+": max(RTD3E, 10 s)
constexpr int64_t kAdminBoundPs = 60'000 * kMs;            // the model's bound on one admin command (SPDK has none)
constexpr unsigned kIdentifyNnOffset = 516;                // Identify Controller NN, bytes 519:516
constexpr uint16_t kStatusScSct = 0x7FF;                   // Status Field bits 10:0: SC and SCT
// The states of nvme_ctrlr_process_init (18.x numbering).
constexpr int kStateInit = 0, kStateDisableWaitReady1 = 1, kStateDisableWaitReady0 = 2, kStateEnableWaitReady1 = 4;
// NVME_QUIRK_DELAY_BEFORE_CHK_RDY: the devices FreeBSD and Linux delay for the same reason.
constexpr const char* kDelayQuirkIds[] = {"1c58:0003", "1c58:0023", "1c5f:0540", "144d:a821", "144d:a822"};
constexpr uint32_t kShstMask = regs::Csts{false, false, regs::Shst{3}, false, false, false}.encode();
constexpr uint32_t kShstComplete = regs::Csts{false, false, regs::Shst::complete, false, false, false}.encode();

// SPDK_ERRLOG's line without its timestamp: "FILE:%4d:FUNC: *ERROR*: TEXT" (line numbers: ours).
std::string errlog(const char* file, int line, const char* func, const std::string& text) {
  char head[96];
  std::snprintf(head, sizeof head, "%s:%4d:%s: *ERROR*: ", file, line, func);
  return head + text;
}

// _nvme_ctrlr_set_state's debug line (a debug build run with `-L nvme`), PCIe controllers named by
// their address: "nvme_ctrlr.c:NNNN:_nvme_ctrlr_set_state: *DEBUG*: [0000:04:00.0] setting state
// to ready (no timeout)". The model prints the first state's ("delay init") and the last
// ("ready"), the interval `nvmesim dmesg` reads back (tools/dmesg_reader.hpp).
std::string state_line(const std::string& address, const char* state) {
  char head[96];
  std::snprintf(head, sizeof head, "%s:%4d:%s: *DEBUG*: ", "nvme_ctrlr.c", 1462, "_nvme_ctrlr_set_state");
  return head + ("[" + address + "] setting state to " + state + " (no timeout)");
}

// The limit is the deadline's amount + 1 ms (see shutdown()).
std::string shutdown_message(const WaitSpec& spec, uint32_t, int64_t) {
  return errlog("nvme_ctrlr.c", 601, "nvme_ctrlr_shutdown",
                "did not shutdown within " + std::to_string(spec.deadline.amount / 1'000'000'000 + 1) + " milliseconds");
}
std::string shutdown_message_17(const WaitSpec&, uint32_t, int64_t) {
  return errlog("nvme_ctrlr.c", 601, "nvme_ctrlr_shutdown", "did not shutdown within 5 seconds");
}
}  // namespace

std::unique_ptr<HostDriver> make_spdk_driver(nvme_host& host) { return std::make_unique<spdk_driver>(host); }

const std::vector<PhaseId>& spdk_driver::phases() const {
  static const std::vector<PhaseId> kAll{kResetWait,       kDisable,       kEnable,       kAdmin,
                                         kShutdown,        kRebootResetWait, kRebootDisable, kRebootEnable,
                                         kRebootAdmin};
  return kAll;
}

PlatformPolicy spdk_driver::platform_policy(const HostParams&) const {
  PlatformPolicy p;
  p.attach = PlatformPolicy::Order::parallel;  // one thread polls all controllers in turn
  p.shutdown = PlatformPolicy::Order::serial;  // detached one after the other
  p.reset = false;
  p.timer_hz = 1000;  // unused: SPDK's timeouts read the TSC, the model's picoseconds
  return p;
}

void spdk_driver::begin_trial(const DriverContext& context) {
  v17_ = context.host->driver_release == "17.x";
  quirk_delay_ = std::find_if(std::begin(kDelayQuirkIds), std::end(kDelayQuirkIds), [&](const char* id) {
                   return context.fn->pci_id == id;
                 }) != std::end(kDelayQuirkIds);
  cap_to_ = 0;
  rtd3e_us_ = 0;
}

void spdk_driver::run(HostAction action) {
  host().set_log_prefix("");
  switch (action) {
    case HostAction::probe: return probe(false);
    case HostAction::reboot_probe: return probe(true);
    case HostAction::shutdown: return shutdown();
    case HostAction::reset: break;
  }
  throw std::logic_error("spdk_driver: no reset sequence");
}

void spdk_driver::next_poll() { host().sleep(SleepPolicy::app_poll()); }

void spdk_driver::fail_init(const std::string& line, ProbeStatus status) {
  host().message(line);
  host().message(errlog("nvme.c", 439, "nvme_init_controllers", "Failed to initialize SSD: " + host().context().fn->address));
  host().finish(status);
}

bool spdk_driver::wait_state(int state, bool ready, int64_t entered_ps, size_t phase) {
  // Each poll: read CSTS; RDY == wanted -> the next state; else the timeout check
  // (spdk_get_ticks() > state_timeout_tsc, the timeout set when the state was entered), and the
  // application's work until the next poll. The time already spent in the state since
  // `entered_ps` (the poll interval before this read, the quirk's delay) counts: the deadline
  // runs from there (Deadline::since_ps).
  const uint64_t timeout_ps = uint64_t{cap_to_} * 500 * static_cast<uint64_t>(kMs);
  WaitSpec s;
  s.mask = regs::Csts::kRdy;
  s.value = ready ? regs::Csts::kRdy : 0;
  s.deadline.rule = Deadline::Rule::elapsed_over;
  s.deadline.check = Deadline::Check::before_sleep;
  s.deadline.amount = timeout_ps;  // 0 (CAP.TO 0): the first read that fails to see it ends
  s.deadline.since_ps = entered_ps;
  s.sleep = SleepPolicy::app_poll();
  s.all_ones = WaitSpec::AllOnes::not_ready;  // a failed register read is retried until the timeout
  s.op = ready ? "enable" : "disable";
  s.limit_hint = "SPDK polls every host.poll_interval: use a shorter CAP.TO or a longer poll_interval";
  const WaitResult r = wait_until_ready(host(), s, phase);
  if (r.ready()) return true;
  host().close_phase(phase);
  fail_init(errlog("nvme_ctrlr.c", 1467, "nvme_ctrlr_process_init",
                   "Initialization timed out in state " + std::to_string(state)));
  return false;
}

void spdk_driver::probe(bool reboot) {
  const PhaseId& reset_wait = reboot ? kRebootResetWait : kResetWait;
  const PhaseId& disable = reboot ? kRebootDisable : kDisable;
  const PhaseId& enable = reboot ? kRebootEnable : kEnable;
  admin_phase_ = reboot ? &kRebootAdmin : &kAdmin;
  host().message(state_line(host().context().fn->address, "delay init"));
  host().set_state(HostState::pci_enable);
  host().reset_admin_queue(hostmem::kAdminQueueDepth);  // SPDK's 128 entries; the host memory holds 32
  size_t ph = host().open_phase(reset_wait);
  host().pass_time(v17_ ? kResetWait17Ps : kResetWaitPs);
  host().check_limits();
  host().close_phase(ph);
  // nvme_ctrlr_construct: CAP.
  const regs::Cap cap = host().read_cap();
  cap_to_ = cap.to;
  // State 0 (INIT), the first poll: CC and CSTS. Its timeout is infinite: a failed read fails.
  ph = host().open_phase(disable);
  host().set_state(HostState::disable_wait);
  const uint32_t cc = host().read32(regs::kCc, "CC");
  const uint32_t csts = host().read32(regs::kCsts, "CSTS");
  if (cc == regs::kAllOnes32 || csts == regs::kAllOnes32) {
    host().close_phase(ph);
    return fail_init(errlog("nvme_ctrlr.c", 1294, "nvme_ctrlr_process_init",
                            "Failed to read CC and CSTS in state " + std::to_string(kStateInit)));
  }
  if (cc & 1u) {
    if (!(csts & regs::Csts::kRdy)) {  // state 1: wait RDY=1 before clearing EN
      const int64_t entered = host().now_rel();
      next_poll();
      if (!wait_state(kStateDisableWaitReady1, true, entered, ph)) return;
    }
    host().write32(regs::kCc, cc & ~1u, "CC");
  }
  // State 2: wait RDY=0; when state 0 itself cleared EN (EN=1, RDY=1), the quirk's 2.5 s
  // without a register access first (state 1's CC write sets no such delay).
  const int64_t entered = host().now_rel();
  if ((cc & 1u) && (csts & regs::Csts::kRdy) && quirk_delay_) {
    host().pass_time(kQuirkDelayPs);
    host().check_limits();
  }
  next_poll();
  if (!wait_state(kStateDisableWaitReady0, false, entered, ph)) return;
  host().close_phase(ph);
  // CC.EN = 0 && CSTS.RDY = 0: 100 us busy, then state 3 at the next poll writes the admin queue
  // and CC.EN = 1; state 4 waits RDY=1.
  ph = host().open_phase(enable);
  host().sleep(SleepPolicy::udelay(kEnableDelayUs));
  next_poll();
  host().set_state(HostState::admin_queue);
  const uint32_t depth = hostmem::kAdminQueueDepth;
  host().write32(regs::kAsq, static_cast<uint32_t>(hostmem::kAdminSq), "ASQ");
  host().write32(regs::kAsq + 4, static_cast<uint32_t>(hostmem::kAdminSq >> 32), "ASQ+4");
  host().write32(regs::kAcq, static_cast<uint32_t>(hostmem::kAdminCq), "ACQ");
  host().write32(regs::kAcq + 4, static_cast<uint32_t>(hostmem::kAdminCq >> 32), "ACQ+4");
  host().write32(regs::kAqa, regs::Aqa{depth - 1, depth - 1}.encode(), "AQA");
  host().set_state(HostState::enable_wait);
  host().write32(regs::kCc, regs::Cc{true, 0, 0, 0, regs::Shn::none, 6, 4, false}.encode(), "CC");
  const int64_t enabled = host().now_rel();
  next_poll();
  if (!wait_state(kStateEnableWaitReady1, true, enabled, ph)) return;
  host().close_phase(ph);
  if (!admin_setup()) return;
  host().message(state_line(host().context().fn->address, "ready"));
  host().finish(ProbeStatus::ok);
  host().namespace_ready();
}

bool spdk_driver::admin_setup() {
  // nvme_ctrlr_start: Identify Controller, Set Features (Number of Queues), Identify Namespace per
  // namespace, each waited by polling the admin queue (spdk_nvme_wait_for_completion: no timeout;
  // the model stops one at 60 s, status eintr). An error status fails the controller (eio).
  const size_t ph = host().open_phase(*admin_phase_);
  host().set_state(HostState::admin_commands);
  auto cmd = [&](const char* line_func, int line, const char* text, uint8_t opcode, uint32_t cdw10, uint32_t cdw11,
                 uint64_t prp1, uint32_t nsid) {
    const auto r = host().admin_cqe(CompletionWait::poll, kAdminBoundPs, opcode, cdw10, cdw11, prp1, nsid);
    if (r && (r->status & kStatusScSct) == 0) return true;
    host().close_phase(ph);
    if (r) fail_init(errlog("nvme_ctrlr.c", line, line_func, text), ProbeStatus::eio);
    else fail_init(errlog("nvme_ctrlr.c", line, line_func, std::string(text) + " (no completion in 60 s)"),
                   ProbeStatus::eintr);
    return false;
  };
  if (!cmd("nvme_ctrlr_identify", 697, "nvme_identify_controller failed!", regs::opcode::kIdentify,
           regs::cns::kController, 0, hostmem::kIdentify, 0))
    return false;
  const uint8_t* id = host().memory.view(hostmem::kIdentify);
  const uint32_t nn = regs::le32(id + kIdentifyNnOffset);
  rtd3e_us_ = regs::le32(id + regs::identify::kRtd3eOffset);
  if (!cmd("nvme_ctrlr_set_num_qpairs", 872, "Set Features - Number of Queues failed!", regs::opcode::kSetFeatures,
           0x07 /* Number of Queues */, 1023 | 1023u << 16 /* 1024 asked, 0's based */, 0, 0))
    return false;
  for (uint32_t ns = 1; ns <= nn; ++ns)
    if (!cmd("nvme_ctrlr_construct_namespaces", 1105, "nvme_identify_namespace failed", regs::opcode::kIdentify,
             regs::cns::kNamespace, 0, hostmem::kIdentify, ns))
      return false;
  host().close_phase(ph);
  return true;
}

void spdk_driver::shutdown() {
  // nvme_ctrlr_shutdown: CC.SHN = 01b, then do { read CSTS; SHST complete -> done;
  // nvme_delay(1000); ms_waited++ } while (ms_waited < limit). As the one loop: read, test,
  // sleep, then the deadline after the sleep: k delays behind after read k, the loop ends after
  // `limit` delays, i.e. when the delays slept exceed limit - 1 ms.
  const size_t ph = host().open_phase(kShutdown);
  host().set_state(HostState::disable_wait);
  regs::Cc cc = regs::Cc::decode(host().read32(regs::kCc, "CC"));
  cc.shn = regs::Shn::normal;
  host().write32(regs::kCc, cc.encode(), "CC");
  const uint64_t limit_ms =
      v17_ ? kShutdown17Ms : std::max<uint64_t>((uint64_t{rtd3e_us_} + 999) / 1000, kShutdownMinMs);
  WaitSpec s;
  s.mask = kShstMask;
  s.value = kShstComplete;
  s.deadline.rule = Deadline::Rule::slept_over;
  s.deadline.check = Deadline::Check::after_sleep;
  s.deadline.amount = (limit_ms - 1) * static_cast<uint64_t>(kMs);
  s.sleep = SleepPolicy::udelay(kShutdownDelayUs);
  s.all_ones = WaitSpec::AllOnes::fail;  // get_csts() fails on all ones
  s.op = "shutdown";
  s.message = v17_ ? shutdown_message_17 : shutdown_message;
  s.kind = "shutdown wait";
  s.limit_hint = "SPDK busy-waits 1 ms per read";
  const WaitResult r = wait_until_ready(host(), s, ph);
  if (r.end == WaitResult::End::gone) host().message(errlog("nvme_ctrlr.c", 586, "nvme_ctrlr_shutdown", "get_csts() failed"));
  host().close_phase(ph);
  host().finish(r.ready() ? ProbeStatus::ok : ProbeStatus::enodev);
}

}  // namespace nvmesim
