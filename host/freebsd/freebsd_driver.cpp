#include "host/freebsd/freebsd_driver.hpp"

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
// FreeBSD's phases: the whole first hw_reset, then the second one split like Linux's
// (disable; the admin-queue registers; enable), then the admin commands.
constexpr PhaseId kFirstReset{0, "first_reset"}, kResetDelay{1, "reset_delay"}, kDisable{2, "disable"},
    kAdminQueue{3, "admin_queue"}, kEnable{4, "enable"}, kAdmin{5, "admin"};
constexpr uint32_t kResetDelayUs = 100'000;        // DELAY(100*1000) at the start of hw_reset
constexpr uint32_t kRegisterDelayUs = 5'000;       // DELAY(5000) after ASQ, ACQ and AQA
constexpr uint32_t kWaitDelayUs = 1'000;           // DELAY(1000) between two CSTS reads
constexpr uint32_t kIoEntries = 256;               // hw.nvme.io_entries default
constexpr unsigned kIdentifyNnOffset = 516;        // Identify Controller NN, bytes 519:516
constexpr uint64_t kIoCq = 0x100000, kIoSq = 0x200000;  // bus addresses of I/O queue 1 (never DMA'd)
// QUIRK_DELAY_B4_CHK_RDY (nvme_pci.c's table: HGST SN100, WDC SN200, Memblaze Pblaze4, Samsung
// PM1725 and PM1725a; checked: it has no 1bb1:0100, which Linux's list has from 4.19).
constexpr const char* kDelayQuirkIds[] = {"1c58:0003", "1c58:0023", "1c5f:0540", "144d:a821", "144d:a822"};
constexpr uint64_t kQuirkMs = 2300;                // the quirk's pause: MSEC_2_TICKS(2300) ticks
constexpr uint16_t kStatusScSct = 0x7FF;           // Status Field bits 10:0: SC and SCT
constexpr int64_t kAdminPanic131Ps = 10'000'000'000'000;  // 13.1+: the polled command panics after 10 s

// The bus's attach line, "nvme0: <Generic NVMe Device> mem ... irq ... at device 4.0 on pci0",
// without the resources (not modelled); every controller is described as nvme_pci.c describes a
// device missing from its table. "0000:00:04.0" -> "at device 4.0 on pci0" (the bus number as the
// pci unit: one unit per bus in a flat topology).
std::string attach_text(const std::string& address) {
  unsigned domain = 0, bus = 0, slot = 0, func = 0;
  if (std::sscanf(address.c_str(), "%x:%x:%x.%x", &domain, &bus, &slot, &func) != 4) bus = slot = func = 0;
  return "<Generic NVMe Device> at device " + std::to_string(slot) + "." + std::to_string(func) + " on pci" +
         std::to_string(bus);
}

std::string not_ready_text(const WaitSpec& spec, uint64_t ms) {
  // nvme_printf: "controller ready did not become %d within %d ms"; the prefix is "nvme0: ".
  return std::string("controller ready did not become ") + (spec.value ? "1" : "0") + " within " +
         std::to_string(ms) + " ms";
}
// The deadline in ms: older's in ps of DELAYs, 13.1+'s in ticks of the kern.hz clock.
std::string not_ready_message(const WaitSpec& spec, uint32_t, int64_t) {
  return not_ready_text(spec, spec.deadline.amount / 1'000'000'000);
}
template <int Hz>
std::string not_ready_message_131(const WaitSpec& spec, uint32_t, int64_t) {
  return not_ready_text(spec, spec.deadline.amount * 1000 / Hz);
}
}  // namespace

std::unique_ptr<HostDriver> make_freebsd_driver(nvme_host& host) { return std::make_unique<freebsd_driver>(host); }

const std::vector<PhaseId>& freebsd_driver::phases() const {
  static const std::vector<PhaseId> kAll{kFirstReset, kResetDelay, kDisable, kAdminQueue, kEnable, kAdmin};
  return kAll;
}

PlatformPolicy freebsd_driver::platform_policy(const HostParams& host) const {
  return PlatformPolicy::serial_probe_only(host.timers.hz);  // kern.hz: 1000 or 100 (validated)
}

void freebsd_driver::begin_trial(const DriverContext& context) {
  quirk_delay_b4_chk_rdy_ = std::find_if(std::begin(kDelayQuirkIds), std::end(kDelayQuirkIds), [&](const char* id) {
                              return context.fn->pci_id == id;
                            }) != std::end(kDelayQuirkIds);
  older_ = context.host->driver_release == "older";
  lateness_ = context.host->sleep_lateness;
  hz_ = context.host->timers.hz;
  two_resets_ = older_ || context.host->nvme_2x_reset;
  namespaces_ = 0;
  model_.clear();
}

void freebsd_driver::run(HostAction action) {
  if (action != HostAction::probe) throw std::logic_error("freebsd_driver: only the attach exists");
  host().set_log_prefix(host().dev() + ": ");
  host().message(attach_text(host().context().fn->address));
  host().set_state(HostState::pci_enable);
  host().reset_admin_queue(hostmem::kAdminQueueDepth);
  // nvme_ctrlr_construct: CAP as two 32-bit reads.
  const regs::Cap cap = host().read_cap();
  cap_to_ = cap.to;
  cap_mqes_ = cap.mqes;
  // nvme_ctrlr_start_config_hook: two resets before 13.1 (and at 13.1+ with NVME_2X_RESET), one
  // from 13.1; any failure fails the controller.
  if (two_resets_) {
    for (bool first : {true, false}) {
      if (hw_reset(first) != Rc::ok) return host().finish(ProbeStatus::enodev);
    }
  } else if (hw_reset(false) != Rc::ok) {
    return host().finish(ProbeStatus::enodev);
  }
  if (!admin_setup()) return;
  // nvd(4) attaches a disk per namespace: "nvd0: <MODEL> NVMe namespace" (its size line is not
  // modelled). Units are counted from the controller's index (the kernel's are global, in
  // attach order: the same for one namespace per controller).
  host().set_log_prefix("");
  for (uint32_t ns = 1; ns <= namespaces_; ++ns)
    host().message("nvd" + std::to_string(host().index() + static_cast<int>(ns) - 1) + ": <" + model_ +
                   "> NVMe namespace");
  host().set_log_prefix(host().dev() + ": ");
  host().finish(ProbeStatus::ok);
  host().namespace_ready();
}

freebsd_driver::Rc freebsd_driver::hw_reset(bool whole) {
  // nvme_ctrlr_hw_reset: (the qpairs are disabled in memory), [older: DELAY(100 ms)], disable,
  // enable. `whole`: the reset is one phase (older's first reset), else split.
  const size_t whole_ph = whole ? host().open_phase(kFirstReset) : kNoPhase;
  size_t ph = whole_ph;
  if (older_) {
    if (!whole) ph = host().open_phase(kResetDelay);
    host().sleep(SleepPolicy::udelay(kResetDelayUs));
    if (!whole) host().close_phase(ph);
  }
  if (!whole) ph = host().open_phase(kDisable);
  Rc rc = disable(ph);
  if (!whole) host().close_phase(ph);
  if (rc == Rc::ok) {
    const size_t queue_ph = whole ? whole_ph : host().open_phase(kAdminQueue);
    rc = enable(queue_ph, whole_ph);
  }
  if (whole) host().close_phase(whole_ph);
  return rc;
}

freebsd_driver::Rc freebsd_driver::wait_for_ready(bool desired, size_t phase) {
  WaitSpec s;
  s.mask = regs::Csts::kRdy;
  s.value = desired ? regs::Csts::kRdy : 0;
  s.deadline.check = Deadline::Check::before_sleep;
  if (older_) {
    // for (k = 0;; ) { read; all ones -> ENXIO; RDY == desired -> 0; if (k++ > T) fail; DELAY(1000) }:
    // with 1 ms per DELAY, k DELAYs before read k, so "k > T" is "slept > T ms", checked before
    // the sleep. T = (CAP.TO + 1) x 500 ms.
    s.deadline.rule = Deadline::Rule::slept_over;
    s.deadline.amount = (uint64_t{cap_to_} + 1) * 500 * 1'000'000'000;
    s.sleep = SleepPolicy::udelay(kWaitDelayUs);
    s.limit_hint = "FreeBSD busy-waits 1 ms per read: use a shorter CAP.TO";
  } else {
    // 13.1+: read; all ones -> ENXIO; RDY == desired -> 0; ticks > ticks0 + MSEC_2_TICKS(T) ->
    // fail; pause_sbt(d) with d from 1 us growing x 1.5 to 1 ms. At hz 1000 a tick is 1 ms, at
    // hz 100 10 ms: MSEC_2_TICKS(T) = T x hz / 1000 ((TO + 1) x 500 x hz / 1000, exact for both).
    s.deadline.rule = Deadline::Rule::time_after;
    s.deadline.amount = (uint64_t{cap_to_} + 1) * 500 * static_cast<uint64_t>(hz_) / 1000;
    s.sleep = SleepPolicy::pause_sbt(SleepPolicy::kSbt1Us, lateness_);
    s.limit_hint = "FreeBSD sleeps at most 1 ms per read: use a shorter CAP.TO";
  }
  s.all_ones = WaitSpec::AllOnes::fail;  // ENXIO, no message
  s.op = desired ? "enable" : "disable";
  s.message = older_ ? not_ready_message : hz_ == 100 ? not_ready_message_131<100> : not_ready_message_131<1000>;
  const WaitResult r = wait_until_ready(host(), s, phase);
  if (r.ready()) return Rc::ok;
  return r.end == WaitResult::End::gone ? Rc::enxio : Rc::timed_out;
}

freebsd_driver::Rc freebsd_driver::disable(size_t phase) {
  host().set_state(HostState::disable_wait);
  const uint32_t cc = host().read32(regs::kCc, "CC");
  const uint32_t csts = host().read32(regs::kCsts, "CSTS");
  const bool en = cc & 1u, rdy = csts & regs::Csts::kRdy;
  if (!en) return rdy ? wait_for_ready(false, phase) : Rc::ok;  // the EN=0, RDY=0 short cut
  if (!rdy) {  // still enabling: wait for RDY=1 before clearing EN
    const Rc rc = wait_for_ready(true, phase);
    if (rc != Rc::ok) return rc;
  }
  host().write32(regs::kCc, cc & ~1u, "CC");
  if (quirk_delay_b4_chk_rdy_) {  // pause("nvmeR", MSEC_2_TICKS(2300)): until the tick counter has advanced that far
    const TickClock& clock = *host().context().clock;
    const int64_t now = host().now_rel();
    const uint64_t ticks = kQuirkMs * static_cast<uint64_t>(hz_) / 1000;  // 2300 at hz 1000, 230 at 100
    host().pass_time(clock.time_of_jiffy(clock.jiffies_at(now) + ticks) - now);
    host().check_limits();
  }
  return wait_for_ready(false, phase);
}

void freebsd_driver::register_delay() {
  if (older_) host().sleep(SleepPolicy::udelay(kRegisterDelayUs));  // DELAY(5000), before 13.1 only
}

freebsd_driver::Rc freebsd_driver::enable(size_t queue_phase, size_t wait_phase) {
  host().set_state(HostState::admin_queue);
  const uint32_t cc = host().read32(regs::kCc, "CC");
  const uint32_t csts = host().read32(regs::kCsts, "CSTS");
  const bool en = cc & 1u, rdy = csts & regs::Csts::kRdy;
  auto close_queue_phase = [&] {
    if (queue_phase != wait_phase) host().close_phase(queue_phase);
  };
  if (en) {  // the EN=1, RDY=1 short cut; EN=1, RDY=0 only waits
    const Rc rc = rdy ? Rc::ok : wait_for_ready(true, queue_phase);
    close_queue_phase();
    return rc;
  }
  Rc rc = wait_for_ready(false, queue_phase);
  if (rc != Rc::ok) return close_queue_phase(), rc;
  const uint32_t depth = hostmem::kAdminQueueDepth;  // FreeBSD asks 128; the host memory holds 32
  host().write32(regs::kAsq, static_cast<uint32_t>(hostmem::kAdminSq), "ASQ");
  host().write32(regs::kAsq + 4, static_cast<uint32_t>(hostmem::kAdminSq >> 32), "ASQ+4");
  register_delay();
  host().write32(regs::kAcq, static_cast<uint32_t>(hostmem::kAdminCq), "ACQ");
  host().write32(regs::kAcq + 4, static_cast<uint32_t>(hostmem::kAdminCq >> 32), "ACQ+4");
  register_delay();
  host().write32(regs::kAqa, regs::Aqa{depth - 1, depth - 1}.encode(), "AQA");
  register_delay();
  close_queue_phase();
  const size_t ph = wait_phase != kNoPhase ? wait_phase : host().open_phase(kEnable);
  host().set_state(HostState::enable_wait);
  host().write32(regs::kCc, regs::Cc{true, 0, 0, 0, regs::Shn::none, 6, 4, false}.encode(), "CC");
  rc = wait_for_ready(true, ph);
  if (wait_phase == kNoPhase) host().close_phase(ph);
  return rc;
}

freebsd_driver::Cmd freebsd_driver::admin(uint8_t opcode, uint32_t cdw10, uint32_t cdw11, uint64_t prp1,
                                           uint32_t nsid, uint32_t* dw0) {
  // nvme_completion_poll (older): while not done, pause(1): the thread wakes when the tick
  // counter has advanced by one (1 ms at hz 1000, 10 ms at 100); after hz pauses (1 s) the
  // kernel panics. The caller then tests
  // nvme_completion_is_error: SC or SCT not 0 (CRD, M and DNR alone are no error).
  const uint16_t cid = host().submit(opcode, cdw10, cdw11, prp1, nsid);
  const TickClock& clock = *host().context().clock;
  // 13.1+: pause_sbt from 1 us growing x 1.5 to 1 ms between checks, the panic after 10 s.
  SleepPolicy backoff = SleepPolicy::pause_sbt(SleepPolicy::kSbt1Us, lateness_);
  const int64_t start = host().now_rel();
  for (int pauses = 0;; ++pauses) {
    if (const auto r = host().wait_cqe(cid, CompletionWait::poll, 0)) {
      if ((r->status & kStatusScSct) != 0) return Cmd::error;
      if (dw0) *dw0 = r->dw0;
      return Cmd::ok;
    }
    if (older_ ? pauses == hz_ : host().now_rel() - start >= kAdminPanic131Ps) break;
    if (older_) {
      const int64_t now = host().now_rel();
      host().pass_time(clock.next_tick_after(now) - now);
      host().check_limits();
    } else {
      host().sleep(backoff);
      backoff = backoff.next_in_wait(1);
    }
  }
  host().message(older_ ? "panic: NVME polled command failed to complete within 1s."
                        : "panic: NVME polled command failed to complete within 10s.");
  host().finish(ProbeStatus::eintr);
  return Cmd::panic;
}

bool freebsd_driver::admin_ok(Cmd rc, const char* failed_line) {
  if (rc == Cmd::ok) return true;
  if (rc == Cmd::error) {  // "nvme0: nvme_... failed!", then nvme_ctrlr_fail: no disk attaches
    host().message(failed_line);
    host().finish(ProbeStatus::eio);
  }
  return false;
}

bool freebsd_driver::admin_setup() {
  // Older order: Set Features (Number of Queues), Identify Controller; 13.1+: Identify first.
  // Then Create I/O CQ then SQ per queue, Identify Namespace per namespace; an error status of
  // any fails the controller.
  const size_t ph = host().open_phase(kAdmin);
  host().set_state(HostState::admin_commands);
  const uint32_t want = std::clamp<uint32_t>(host().params().cpus, 1, 0xFFFF);
  uint32_t dw0 = 0, nn = 0;
  auto set_num_queues = [&] {
    return admin_ok(admin(regs::opcode::kSetFeatures, 0x07 /* Number of Queues */, (want - 1) | (want - 1) << 16, 0,
                          0, &dw0),
                    "nvme_ctrlr_set_num_qpairs failed!");
  };
  auto identify = [&] {
    const bool ok = admin_ok(admin(regs::opcode::kIdentify, regs::cns::kController, 0, hostmem::kIdentify),
                             "nvme_identify_controller failed!");
    if (ok) {
      const uint8_t* id = host().memory.view(hostmem::kIdentify);
      nn = regs::le32(id + kIdentifyNnOffset);
      model_.assign(reinterpret_cast<const char*>(id + regs::identify::kMnOffset), regs::identify::kMnBytes);
      while (!model_.empty() && (model_.back() == ' ' || model_.back() == '\0')) model_.pop_back();
    }
    return ok;
  };
  bool ok = older_ ? set_num_queues() && identify() : identify() && set_num_queues();
  const uint32_t granted = std::min(want, std::min(dw0 & 0xFFFF, dw0 >> 16) + 1);
  const uint32_t qsize = std::min<uint32_t>(kIoEntries, uint32_t{cap_mqes_} + 1) - 1;  // 0's based
  for (uint32_t qid = 1; ok && qid <= granted; ++qid) {
    ok = admin_ok(admin(regs::opcode::kCreateIoCq, qid | qsize << 16, 0x3 | qid << 16, kIoCq * qid),
                  "nvme_create_io_cq failed!") &&
         admin_ok(admin(regs::opcode::kCreateIoSq, qid | qsize << 16, 0x1 | qid << 16, kIoSq * qid),
                  "nvme_create_io_sq failed!");
  }
  for (uint32_t ns = 1; ok && ns <= nn; ++ns)
    ok = admin_ok(admin(regs::opcode::kIdentify, regs::cns::kNamespace, 0, hostmem::kIdentify, ns),
                  "nvme_identify_namespace failed");
  host().close_phase(ph);
  namespaces_ = ok ? nn : 0;
  return ok;
}

}  // namespace nvmesim
