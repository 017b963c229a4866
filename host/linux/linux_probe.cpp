#include "host/linux/linux_probe.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "models/nvme_regs.hpp"
#include "models/pcie_transport.hpp"

namespace nvmesim {

namespace {
int64_t now_ps() { return static_cast<int64_t>(sc_core::sc_time_stamp().value()); }
sc_core::sc_time ps_time(int64_t ps) { return sc_core::sc_time::from_value(static_cast<uint64_t>(ps)); }

using regs::le32;
using regs::put_le32;
using regs::put_le64;

std::string hex32(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%x", v);
  return buf;
}
}  // namespace

namespace {
/// nvme_core.admin_timeout: 60 s (ADMIN_TIMEOUT), in picoseconds.
constexpr int64_t kAdminTimeoutPs = 60'000'000'000'000;
}  // namespace

linux_probe::linux_probe(sc_core::sc_module_name name, int index)
    : sc_module(name), bar("bar"), memory("memory"), index_(index), dev_("nvme" + std::to_string(index)) {
  h_init_ = fnv1a64("host/init_to_probe/" + dev_);
  h_wakeup_ = fnv1a64("host/wakeup/" + dev_);
  h_irq_ = fnv1a64("host/background_irq/" + dev_);
  SC_THREAD(run);
}

void linux_probe::start(const ProbeSetup& setup) {
  s_ = setup;
  done_ = false;
  action_ = HostAction::probe;
  outcome_ = ProbeOutcome{};
  t0_ps_ = -1;  // set by the thread when it wakes
  start_ev_.notify(sc_core::SC_ZERO_TIME);
}

void linux_probe::start_action(HostAction action) {
  done_ = false;
  action_ = action;
  outcome_ = ProbeOutcome{};
  start_ev_.notify(sc_core::SC_ZERO_TIME);
}

int64_t linux_probe::now_rel() const { return now_ps() - t0_ps_; }

void linux_probe::set_state(HostState st) {
  if (st != HostState::sleep) awake_state_ = st;
  state_sig.write(static_cast<unsigned>(st));
}

void linux_probe::check_limits() {
  const uint64_t ops = s_.recorder->count_operation();
  if (ops > s_.host->max_events_per_trial)
    throw SimulationLimitError("the trial made more than " + std::to_string(s_.host->max_events_per_trial) +
                               " MMIO accesses and sleeps over all controllers (limit host.max_events_per_trial); "
                               "use a poll policy that sleeps, fewer controllers or a shorter CAP.TO");
  if (now_rel() > kMaxTrialPs)
    throw SimulationLimitError("controller " + dev_ + ": the trial ran past 1000000 s of simulated time (the "
                               "limit of one trial); use shorter latencies");
}

void linux_probe::run() {
  using namespace linux_phase;
  static const PhaseNames kBoot{&kPreProbe, &kDisable, &kEnable, &kAdmin, &kNamespace};
  static const PhaseNames kReboot{&kRebootPreProbe, &kRebootDisable, &kRebootEnable, &kRebootAdmin, &kRebootNamespace};
  for (;;) {
    sc_core::wait(start_ev_);
    if (t0_ps_ < 0) {
      // A new trial.
      t0_ps_ = now_ps();
      init_stream_ = Stream(s_.seed, s_.trial, h_init_);
      wakeup_stream_ = Stream(s_.seed, s_.trial, h_wakeup_);
      irq_stream_ = Stream(s_.seed, s_.trial, h_irq_);
      granted_queues_ = 0;
      model_quirk_ = false;
    }
    outcome_.start_ps = now_rel();
    set_state(HostState::init_to_probe);
    try {
      switch (action_) {
        case HostAction::probe: probe(kBoot); break;
        case HostAction::shutdown: shutdown(); break;
        case HostAction::reset: reset(); break;
        case HostAction::reboot_probe:
          model_quirk_ = false;  // a new boot learns its quirks again
          probe(kReboot);
          break;
      }
    } catch (const SimulationLimitError& e) {
      outcome_.error = e.what();
    } catch (const AdminTimeout&) {
      // The timed-out command is aborted and the synchronous submit returns -EINTR.
      fail(ProbeStatus::eintr, EINTR);
    }
    set_state(outcome_.status == ProbeStatus::ok ? HostState::done : HostState::failed);
    done_ = true;
    done_ev_.notify(sc_core::SC_ZERO_TIME);
  }
}

void linux_probe::message(const std::string& text) {
  if (!s_.recorder->detailed()) return;
  Event e;
  e.t_ps = now_rel();
  e.ctrl = index_;
  e.kind = EventKind::message;
  e.detail = "nvme " + dev_ + ": " + text;
  s_.recorder->add(std::move(e));
}

void linux_probe::fail(ProbeStatus status, int errno_value) {
  // nvme_reset_work's error path (5.x): "Removing after probe failure status: %d".
  if (s_.recorder->detailed()) message("Removing after probe failure status: " + std::to_string(-errno_value));
  outcome_.status = status;
  outcome_.end_ps = now_rel();
}

void linux_probe::mmio(tlm::tlm_command cmd, uint64_t address, uint8_t* data, uint32_t len, const char* reg,
                       uint32_t value, const char* detail) {
  const int64_t start = now_rel();
  trans_.set_command(cmd);
  trans_.set_address(address);
  trans_.set_data_ptr(data);
  trans_.set_data_length(len);
  trans_.set_streaming_width(len);
  trans_.set_byte_enable_ptr(nullptr);
  trans_.set_dmi_allowed(false);
  trans_.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  bar->b_transport(trans_, delay);
  sc_core::wait(delay);
  // A request the function rejects (an Unsupported Request or Completer Abort on PCIe): the root
  // complex completes a read with all ones, and a posted write is simply lost.
  const bool rejected = trans_.get_response_status() != tlm::TLM_OK_RESPONSE;
  if (rejected && cmd == tlm::TLM_READ_COMMAND) std::memset(data, 0xFF, len);
  check_limits();
  if (s_.recorder->detailed()) {
    Event e;
    e.t_ps = start;
    e.dur_ps = now_rel() - start;
    e.ctrl = index_;
    e.kind = cmd == tlm::TLM_READ_COMMAND ? EventKind::mmio_read : EventKind::mmio_write;
    e.reg = reg;
    e.has_value = true;
    const uint32_t mask = len >= 4 ? 0xFFFFFFFFu : (1u << (8 * len)) - 1;
    e.value = (cmd == tlm::TLM_READ_COMMAND ? le32(data) : value) & mask;
    if (detail) e.detail = detail;
    s_.recorder->add(std::move(e));
    if (rejected) {
      Event w;
      w.t_ps = now_rel();
      w.ctrl = index_;
      w.kind = EventKind::warning;
      w.reg = reg;
      w.detail = std::string(cmd == tlm::TLM_READ_COMMAND ? "read of " : "write to ") + reg + " answered " +
                 trans_.get_response_string() + (cmd == tlm::TLM_READ_COMMAND ? ": the CPU reads all ones" : ": dropped");
      s_.recorder->add(std::move(w));
    }
  }
}

uint32_t linux_probe::read32(uint32_t offset, const char* reg) {
  uint8_t data[4];
  mmio(tlm::TLM_READ_COMMAND, offset, data, 4, reg, 0);
  return le32(data);
}

void linux_probe::write32(uint32_t offset, uint32_t value, const char* reg) {
  uint8_t data[4];
  put_le32(data, value);
  mmio(tlm::TLM_WRITE_COMMAND, offset, data, 4, reg, value);
}

int64_t linux_probe::sleep_once(const SleepPolicy& policy) {
  const int64_t start = now_ps();
  const TimerRules& rules = s_.host->profile.timer;
  const SleepPolicy p = policy.resolved(s_.host->timers, rules);
  const double irq_u = irq_stream_.next_uniform();
  int64_t end = t0_ps_ + p.end_ps(*s_.clock, s_.host->timers, rules, start - t0_ps_, irq_u);
  if (p.schedules()) end += s_.host->wakeup_latency.sample_ps(wakeup_stream_);
  const HostState awake = awake_state_;
  set_state(HostState::sleep);
  sc_core::wait(ps_time(end - start));
  set_state(awake);
  check_limits();
  if (s_.recorder->detailed()) {
    Event e;
    e.t_ps = start - t0_ps_;
    e.dur_ps = end - start;
    e.ctrl = index_;
    e.kind = EventKind::sleep;
    e.detail = policy.to_string();
    s_.recorder->add(std::move(e));
  }
  return end - start;
}

void linux_probe::config_access(tlm::tlm_command cmd, uint32_t offset, uint8_t* data, uint32_t len, const char* reg,
                                uint32_t value, const char* detail) {
  // A configuration request: the same socket, marked by the payload's extension, which must not
  // stay on the reused payload (whatever mmio() throws).
  struct Marked {
    tlm::tlm_generic_payload& t;
    pcie_config_extension ext;
    explicit Marked(tlm::tlm_generic_payload& p) : t(p) { t.set_extension(&ext); }
    ~Marked() { t.clear_extension(&ext); }
  } marked(trans_);
  mmio(cmd, offset, data, len, reg, value, detail);
}

uint32_t linux_probe::read_config16(uint32_t offset) {
  // A configuration read the function does not answer returns all ones (mmio()).
  uint8_t data[2];
  config_access(tlm::TLM_READ_COMMAND, offset, data, 2, "PCI_VENDOR_ID", 0);
  return data[0] | data[1] << 8;
}

int linux_probe::wait_ready(uint64_t timeout, bool seconds, uint32_t mask, uint32_t value, const char* op,
                            size_t phase_index) {
  const KernelProfile& prof = s_.host->profile;
  const TickClock& clock = *s_.clock;
  const int hz = s_.host->timers.hz;
  const uint64_t j0 = clock.jiffies_at(now_rel());
  uint64_t deadline;
  if (seconds) deadline = j0 + timeout * static_cast<uint64_t>(hz);
  else if (prof.deadline == DeadlineForm::half_jiffies) deadline = deadline_half_jiffies(j0, timeout, hz);
  else deadline = deadline_whole_seconds_jiffies(j0, timeout, hz);
  for (uint64_t polls = 1;; ++polls) {
    // 1. read CSTS
    const uint32_t csts = read32(regs::kCsts, "CSTS");
    ++s_.recorder->phase(phase_index).polls;
    // 2. all ones: the device is gone
    if (csts == regs::kAllOnes32) {
      last_csts_ = csts;
      return -ENODEV;
    }
    // 3. wanted state reached
    if ((csts & mask) == value) return 0;
    // 4. sleep
    sleep_once(prof.poll);
    ++s_.recorder->phase(phase_index).sleeps;
    // 5. fatal signal pending: no signals are modelled, so never
    // 6. deadline: time_after(jiffies, deadline)
    if (time_after(clock.jiffies_at(now_rel()), deadline)) {
      if (s_.recorder->detailed()) {  // no string building for trials that keep no events
        std::string text = std::string("Device not ready; aborting ") + op;
        if (prof.csts_in_message) text += ", CSTS=" + hex32(csts);
        message(text);
      }
      last_csts_ = csts;
      return -ENODEV;
    }
    if (polls >= s_.host->max_polls_per_wait)
      throw SimulationLimitError("controller " + dev_ + " made " + std::to_string(polls) +
                                 " CSTS reads in one readiness wait (limit host.max_polls_per_wait = " +
                                 std::to_string(s_.host->max_polls_per_wait) +
                                 "); use a poll policy that sleeps, or a shorter CAP.TO");
    // 7. read again
  }
}

int linux_probe::wait_shutdown_msleep_loop(uint64_t timeout_s, size_t phase_index) {
  // Up to 6.1 the shutdown has a loop of its own: read CSTS, SHST complete -> done, sleep, signal
  // check, deadline check (jiffies + shutdown_timeout * HZ). No all-ones check: a vanished device
  // (SHST reads 11b) keeps it polling until the deadline.
  const TickClock& clock = *s_.clock;
  const uint64_t deadline = clock.jiffies_at(now_rel()) + timeout_s * static_cast<uint64_t>(s_.host->timers.hz);
  const uint32_t mask = regs::Csts::mask().shst().value();
  const uint32_t complete = regs::Csts{}.with_shst(regs::Shst::complete).encode();
  for (uint64_t polls = 1;; ++polls) {
    const uint32_t csts = read32(regs::kCsts, "CSTS");
    ++s_.recorder->phase(phase_index).polls;
    if ((csts & mask) == complete) return 0;
    sleep_once(s_.host->profile.shutdown_poll);
    ++s_.recorder->phase(phase_index).sleeps;
    if (time_after(clock.jiffies_at(now_rel()), deadline)) {
      message("Device shutdown incomplete; abort shutdown");
      last_csts_ = csts;
      return -ENODEV;
    }
    if (polls >= s_.host->max_polls_per_wait)
      throw SimulationLimitError("controller " + dev_ + " made " + std::to_string(polls) +
                                 " CSTS reads in one shutdown wait (limit host.max_polls_per_wait)");
  }
}

uint16_t linux_probe::submit(uint8_t opcode, uint32_t cdw10, uint32_t cdw11, uint64_t prp1, uint32_t nsid) {
  // Build the SQE in host memory and ring the SQ tail doorbell, as nvme_submit_cmd does.
  uint8_t* sqe = memory.at(hostmem::kAdminSq + uint64_t{sq_tail_} * regs::kSqeBytes);
  std::memset(sqe, 0, regs::kSqeBytes);
  const uint16_t cid = next_cid_++;
  sqe[0] = opcode;
  sqe[2] = static_cast<uint8_t>(cid);
  sqe[3] = static_cast<uint8_t>(cid >> 8);
  put_le32(sqe + 4, nsid);
  put_le64(sqe + 24, prp1);
  put_le32(sqe + 40, cdw10);
  put_le32(sqe + 44, cdw11);
  sq_tail_ = static_cast<uint16_t>((sq_tail_ + 1) % hostmem::kAdminQueueDepth);
  write32(regs::sq_tail_doorbell(0, cap_.dstrd), sq_tail_, "SQ0TDBL");
  return cid;
}

uint32_t linux_probe::wait_completion(uint16_t cid) {
  // Consume CQEs in order (the interrupt handler) until the one for `cid`; an Asynchronous Event
  // completion on the way is noted.
  // A device that drops the doorbell (not ready, gone) never completes: the kernel's admin
  // timeout (nvme_core.admin_timeout, 60 s) ends the wait, reports it and disables the controller.
  const int64_t deadline_ps = now_ps() + kAdminTimeoutPs;
  for (;;) {
    uint8_t* cqe = memory.at(hostmem::kAdminCq + uint64_t{cq_head_} * regs::kCqeBytes);
    // Wait for a CQE with the expected phase tag; an interrupt may come before we wait for it.
    while (((le32(cqe + 12) >> 16) & 1u) != (cq_phase_ ? 1u : 0u)) {
      if (now_ps() >= deadline_ps) {
        message("I/O " + std::to_string(cid) + " QID 0 timeout, disable controller");
        throw AdminTimeout{};
      }
      sc_core::wait(ps_time(deadline_ps - now_ps()), memory.irq);
      check_limits();
    }
    if (s_.recorder->detailed()) {
      Event e;
      e.t_ps = memory.last_irq_ps() - t0_ps_;
      e.ctrl = index_;
      e.kind = EventKind::irq;
      e.detail = "MSI-X vector 0";
      s_.recorder->add(std::move(e));
    }
    const uint32_t dw0 = le32(cqe);
    const uint16_t got = static_cast<uint16_t>(le32(cqe + 12) & 0xFFFF);
    if (++cq_head_ == hostmem::kAdminQueueDepth) {
      cq_head_ = 0;
      cq_phase_ = !cq_phase_;
    }
    write32(regs::cq_head_doorbell(0, cap_.dstrd), cq_head_, "CQ0HDBL");
    if (got == aer_cid_) {
      aen_received_ = true;
      aer_cid_ = 0xFFFF;
    }
    if (got == cid) return dw0;
  }
}

uint32_t linux_probe::admin_command(uint8_t opcode, uint32_t cdw10, uint32_t cdw11, uint64_t prp1, uint32_t nsid) {
  return wait_completion(submit(opcode, cdw10, cdw11, prp1, nsid));
}

bool linux_probe::delay_quirk() const {
  const KernelProfile& prof = s_.host->profile;
  for (const auto& id : prof.delay_quirk_ids)
    if (id == s_.ctrl->pci_id) return true;  // PCI ids come from enumeration, not from BAR0
  return prof.delay_quirk_model_rule && model_quirk_;
}

int linux_probe::disable(size_t phase) {
  // nvme_disable_ctrl(shutdown=false): clear SHN and EN, write CC, the quirk's msleep(2300),
  // then wait for RDY=0 bounded by CAP.TO.
  ctrl_config_ &= ~regs::Cc::mask().shn().en().value();
  write32(regs::kCc, ctrl_config_, "CC");
  if (delay_quirk()) sleep_once(SleepPolicy::msleep(kDelayQuirkMs));
  return wait_ready(cap_.to, false, regs::Csts::kRdy, 0, "reset", phase);
}

int linux_probe::function_level_reset() {
  // pcie_flr: set Initiate FLR in Device Control, wait 100 ms (a function must complete an FLR in
  // 100 ms), then poll the function until configuration reads return data again, sleeping 1, 2,
  // 4, ... ms, giving up after 60 s.
  uint8_t data[4];
  put_le32(data, regs::pcicfg::kDevCtlInitiateFlr);
  config_access(tlm::TLM_WRITE_COMMAND, regs::pcicfg::kDevCtl, data, 2, "PCI_EXP_DEVCTL",
                regs::pcicfg::kDevCtlInitiateFlr, "function-level reset");
  sleep_once(SleepPolicy::msleep(100));
  int64_t waited_ms = 0;
  for (uint32_t delay_ms = 1; read_config16(regs::pcicfg::kVendorId) == 0xFFFFu; delay_ms *= 2) {
    if (waited_ms > 60000) {
      if (s_.recorder->detailed()) message("not ready " + std::to_string(waited_ms) + "ms after FLR; giving up");
      return -ENOTTY;
    }
    sleep_once(SleepPolicy::msleep(delay_ms));
    waited_ms += delay_ms;
  }
  ctrl_config_ = 0;  // registers are at their reset values
  return 0;
}

void linux_probe::delete_io_queues() {
  // nvme_dev_disable on a live controller: Delete I/O SQ, then Delete I/O CQ, for every queue.
  for (uint32_t qid = granted_queues_; qid >= 1; --qid) admin_command(regs::opcode::kDeleteIoSq, qid, 0, 0);
  for (uint32_t qid = granted_queues_; qid >= 1; --qid) admin_command(regs::opcode::kDeleteIoCq, qid, 0, 0);
  granted_queues_ = 0;
}

void linux_probe::check_namespace(const PhaseNames& names) {
  // Ready independent of media (CC.CRIME=1): RDY came before the namespaces. The driver arms an
  // Asynchronous Event Request, reads the namespace's readiness (NSTAT.NRDY of the I/O command
  // set independent Identify Namespace), and when not ready scans again on the namespace-changed
  // event. Without CRIME, RDY=1 already meant the namespaces were ready.
  Recorder& rec = *s_.recorder;
  if (!crime_set_) {
    outcome_.namespace_ps = now_rel();
    return;
  }
  const size_t ph = rec.add_phase(Phase{*names.ns, index_, now_rel(), 0, 0, 0});
  aen_received_ = false;
  aer_cid_ = submit(regs::opcode::kAsyncEventRequest, 0, 0, 0, 0);
  for (;;) {
    admin_command(regs::opcode::kIdentify, regs::cns::kNamespaceCsIndep, 0, hostmem::kIdentify, 1);
    ++rec.phase(ph).polls;
    if (memory.at(hostmem::kIdentify)[regs::identify::kNstatOffset] & regs::identify::kNstatNrdy) break;
    if (!aen_received_) {
      // Sleep until the event's interrupt delivers its completion.
      const uint16_t cid = aer_cid_;
      wait_completion(cid);
    }
    aen_received_ = false;
  }
  rec.phase(ph).end_ps = now_rel();
  outcome_.namespace_ps = now_rel();
}

void linux_probe::probe(const PhaseNames& names) {
  const HostParams& host = *s_.host;
  const KernelProfile& prof = host.profile;
  Recorder& rec = *s_.recorder;
  memory.clear();
  sq_tail_ = cq_head_ = next_cid_ = 0;
  cq_phase_ = true;
  if (names.pre_probe) ctrl_config_ = 0;  // a new boot; a reset keeps the driver's CC value
  crime_set_ = false;
  aer_cid_ = 0xFFFF;
  last_csts_ = 0;
  auto failed = [&](int rc) {
    const regs::Csts csts = regs::Csts::decode(last_csts_);
    fail(rc == -ENODEV && csts.cfs && last_csts_ != regs::kAllOnes32 ? ProbeStatus::fatal : ProbeStatus::enodev, -rc);
  };

  if (names.pre_probe) {
    // nvme_init to the probe of this function (async probe scheduling).
    size_t ph = rec.add_phase(Phase{*names.pre_probe, index_, now_rel(), 0, 0, 0});
    sc_core::wait(ps_time(host.init_to_probe.sample_ps(init_stream_)));
    rec.phase(ph).end_ps = now_rel();
    if (rec.detailed()) message("pci function " + s_.ctrl->pci_address);
  }
  set_state(HostState::pci_enable);

  // nvme_pci_enable: CSTS read all ones means the function is gone.
  if (read32(regs::kCsts, "CSTS") == regs::kAllOnes32) return fail(ProbeStatus::enodev, ENODEV);
  // CAP is read as two 32-bit reads (lo_hi_readq).
  auto read_cap = [&]() {
    const uint64_t lo = read32(regs::kCap, "CAP");
    const uint64_t hi = read32(regs::kCap + 4, "CAP+4");
    return lo | hi << 32;
  };
  uint64_t cap_raw = read_cap();
  cap_ = regs::Cap::decode(cap_raw);

  // nvme_pci_configure_admin_queue: NVMe 1.1+ with NSSRS: clear a latched NSSRO.
  const regs::Vs vs = regs::Vs::decode(read32(regs::kVs, "VS"));
  if ((vs.mjr > 1 || (vs.mjr == 1 && vs.mnr >= 1)) && cap_.nssrs) {
    const uint32_t csts = read32(regs::kCsts, "CSTS");
    if (csts & regs::Csts::kNssro) write32(regs::kCsts, regs::Csts::kNssro, "CSTS");
  }

  // Disable: CC.EN=0 (and SHN cleared), [quirk delay], wait for RDY=0 with the CAP.TO deadline.
  size_t ph = rec.add_phase(Phase{*names.disable, index_, now_rel(), 0, 0, 0});
  set_state(HostState::disable_wait);
  int rc = disable(ph);
  if (rc != 0 && prof.flr_retry) {
    // 6.19: the controller reset did not complete; a function-level reset, then one more try.
    rc = function_level_reset();
    if (rc == 0) rc = disable(ph);
  }
  rec.phase(ph).end_ps = now_rel();
  if (rc != 0) return failed(rc);

  // Admin queue registers: AQA, then ASQ and ACQ as two 32-bit writes each (lo_hi_writeq).
  set_state(HostState::admin_queue);
  const HostParams::BadConfig& bad = host.bad_config;
  if (!bad.skip_admin_queue) {
    const uint32_t depth = bad.aqa_zero ? 0 : hostmem::kAdminQueueDepth - 1;
    const uint64_t skew = bad.asq_misaligned ? 0x100 : 0;
    write32(regs::kAqa, regs::Aqa{static_cast<uint16_t>(depth), static_cast<uint16_t>(depth)}.encode(), "AQA");
    write32(regs::kAsq, static_cast<uint32_t>(hostmem::kAdminSq + skew), "ASQ");
    write32(regs::kAsq + 4, static_cast<uint32_t>(hostmem::kAdminSq >> 32), "ASQ+4");
    write32(regs::kAcq, static_cast<uint32_t>(hostmem::kAdminCq + skew), "ACQ");
    write32(regs::kAcq + 4, static_cast<uint32_t>(hostmem::kAdminCq >> 32), "ACQ+4");
  }

  // Enable (nvme_enable_ctrl): the release's CC write sequence, timeout rule, then wait for RDY=1.
  ph = rec.add_phase(Phase{*names.enable, index_, now_rel(), 0, 0, 0});
  set_state(HostState::enable_wait);
  const unsigned mps = bad.mps >= 0 ? static_cast<unsigned>(bad.mps) : 0;  // NVME_CTRL_PAGE_SHIFT 12
  if (cap_.mpsmin > mps) {
    if (rec.detailed())
      message("Minimum device page size " + std::to_string(1u << (12 + cap_.mpsmin)) + " too large for host (" +
              std::to_string(1u << (12 + mps)) + ")");
    rec.phase(ph).end_ps = now_rel();
    return fail(ProbeStatus::enodev, ENODEV);
  }
  regs::Cc cc;
  cc.css = 0;      // NVM command set
  cc.mps = static_cast<uint8_t>(mps);
  cc.ams = 0;      // round robin
  cc.iosqes = 6;   // 64-byte SQEs
  cc.iocqes = 4;   // 16-byte CQEs
  switch (prof.crime) {
    case CrimeRule::never: cc.crime = false; break;
    case CrimeRule::if_crims: cc.crime = cap_.crims; break;
    case CrimeRule::if_crwms_and_crims: cc.crime = cap_.crwms && cap_.crims; break;
  }
  uint64_t timeout = cap_.to;
  if (prof.cc_sequence == CcSequence::single_write) {
    cc.en = true;
    ctrl_config_ = cc.encode();
  } else {
    cc.en = false;
    ctrl_config_ = cc.encode();
    write32(regs::kCc, ctrl_config_, "CC");
    if (prof.cc_sequence == CcSequence::en0_readback || prof.cc_sequence == CcSequence::en0_readback_cap)
      ctrl_config_ = read32(regs::kCc, "CC");  // flushes the write; CRIME reads 0 unless supported
    if (prof.cc_sequence == CcSequence::en0_readback_cap || prof.cc_sequence == CcSequence::en0_cap) {
      cap_raw = read_cap();
      cap_ = regs::Cap::decode(cap_raw);
    }
    timeout = cap_.to;
  }
  crime_set_ = regs::Cc::decode(ctrl_config_).crime;
  if (prof.enable_timeout != EnableTimeout::cap_to && cap_.crwms) {
    const uint32_t crto_raw = read32(regs::kCrto, "CRTO");
    const regs::Crto crto = regs::Crto::decode(crto_raw);
    const uint64_t ready = crime_set_ ? crto.crimt : crto.crwmt;
    if (prof.enable_timeout == EnableTimeout::crto_instead) {
      timeout = ready;
    } else if (ready < timeout) {
      // max rule: keep CAP.TO, and say once per boot that the device's CRTO is bogus.
      if (prof.crto_warning && s_.crto_warned && !*s_.crto_warned) {
        *s_.crto_warned = true;
        char buf[64];
        std::snprintf(buf, sizeof buf, "bad crto:%x cap:%llx", crto_raw, static_cast<unsigned long long>(cap_raw));
        message(buf);
      }
    } else {
      timeout = ready;
    }
  }
  ctrl_config_ |= 1u;  // EN
  write32(regs::kCc, ctrl_config_, "CC");
  rc = wait_ready(timeout, false, regs::Csts::kRdy, regs::Csts::kRdy, "initialisation", ph);
  rec.phase(ph).end_ps = now_rel();
  if (rc != 0) return failed(rc);

  // Admin phase: Identify Controller, Set Features (Number of Queues), Create I/O CQ and SQ.
  ph = rec.add_phase(Phase{*names.admin, index_, now_rel(), 0, 0, 0});
  set_state(HostState::admin_commands);
  admin_command(regs::opcode::kIdentify, regs::cns::kController, 0, hostmem::kIdentify);
  {
    // What the driver keeps from Identify Controller: the model (core quirks) and RTD3E.
    const uint8_t* id = memory.at(hostmem::kIdentify);
    std::string model(reinterpret_cast<const char*>(id + regs::identify::kMnOffset), regs::identify::kMnBytes);
    while (!model.empty() && (model.back() == ' ' || model.back() == '\0')) model.pop_back();
    const unsigned vid = id[regs::identify::kVidOffset] | id[regs::identify::kVidOffset + 1] << 8;
    if (vid == kDelayQuirkModelVendor && model == kDelayQuirkModel) model_quirk_ = true;
    const uint32_t rtd3e_us = le32(id + regs::identify::kRtd3eOffset);
    shutdown_timeout_s_ = host.shutdown_timeout_s;
    if (rtd3e_us) {
      const uint32_t whole_s = rtd3e_us / 1000000;
      shutdown_timeout_s_ = std::min<uint32_t>(std::max(whole_s, host.shutdown_timeout_s), 60);
      if (shutdown_timeout_s_ != host.shutdown_timeout_s)
        if (rec.detailed()) message("Shutdown timeout set to " + std::to_string(shutdown_timeout_s_) + " seconds");
    }
  }
  const uint32_t want = host.cpus;
  const uint32_t granted_dw0 = admin_command(regs::opcode::kSetFeatures, 0x07 /* Number of Queues */,
                                             ((want - 1) & 0xFFFF) | ((want - 1) & 0xFFFF) << 16, 0);
  const uint32_t granted = std::min(want, std::min(granted_dw0 & 0xFFFF, granted_dw0 >> 16) + 1);
  for (uint32_t qid = 1; qid <= granted; ++qid) {
    const uint32_t qsize = std::min<uint32_t>(1023, cap_.mqes);  // 0's based
    // Create I/O CQ: QID and size; physically contiguous, interrupts enabled on vector qid.
    admin_command(regs::opcode::kCreateIoCq, qid | qsize << 16, 0x3 | qid << 16, 0x100000 * qid);
    // Create I/O SQ: QID and size, bound to CQ qid.
    admin_command(regs::opcode::kCreateIoSq, qid | qsize << 16, 0x1 | qid << 16, 0x200000 * qid);
    granted_queues_ = qid;
  }
  if (prof.queues_line && rec.detailed()) message(std::to_string(granted) + "/0/0 default/read/poll queues");
  rec.phase(ph).end_ps = now_rel();
  outcome_.status = ProbeStatus::ok;
  outcome_.end_ps = now_rel();
  check_namespace(names);
}

void linux_probe::shutdown() {
  // nvme_dev_disable(shutdown=true) on a live controller: delete the I/O queues, then CC.SHN and
  // wait for SHST=complete bounded by shutdown_timeout (Identify RTD3E clamped as the release does).
  const KernelProfile& prof = s_.host->profile;
  Recorder& rec = *s_.recorder;
  const size_t ph = rec.add_phase(Phase{linux_phase::kShutdown, index_, now_rel(), 0, 0, 0});
  if (granted_queues_ > 0) delete_io_queues();
  regs::Cc cc = regs::Cc::decode(ctrl_config_);
  cc.shn = s_.host->abrupt_shutdown ? regs::Shn::abrupt : regs::Shn::normal;
  ctrl_config_ = cc.encode();
  write32(regs::kCc, ctrl_config_, "CC");
  const uint32_t mask = regs::Csts::mask().shst().value();
  const uint32_t complete = regs::Csts{}.with_shst(regs::Shst::complete).encode();
  const int rc = prof.shutdown_wait == ShutdownWait::msleep_loop
                     ? wait_shutdown_msleep_loop(shutdown_timeout_s_, ph)
                     : wait_ready(shutdown_timeout_s_, true, mask, complete, "shutdown", ph);
  rec.phase(ph).end_ps = now_rel();
  outcome_.status = rc == 0 ? ProbeStatus::ok : ProbeStatus::enodev;
  outcome_.end_ps = now_rel();
}

void linux_probe::reset() {
  // `nvme reset` (NVME_IOCTL_RESET): nvme_dev_disable (delete I/O queues, disable and wait), then
  // the reset work runs the probe's configure path again from nvme_pci_enable.
  using namespace linux_phase;
  static const PhaseNames kReset{nullptr, &kResetDisable, &kResetEnable, &kResetAdmin, &kResetNamespace};
  Recorder& rec = *s_.recorder;
  const size_t ph = rec.add_phase(Phase{linux_phase::kResetTeardown, index_, now_rel(), 0, 0, 0});
  if (granted_queues_ > 0) delete_io_queues();
  const int rc = disable(ph);
  rec.phase(ph).end_ps = now_rel();
  if (rc != 0) {
    fail(ProbeStatus::enodev, -rc);
    return;
  }
  probe(kReset);
}

}  // namespace nvmesim
