#include "host/linux_probe.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "models/nvme_regs.hpp"

namespace nvmesim {

namespace {
int64_t now_ps() { return static_cast<int64_t>(sc_core::sc_time_stamp().value()); }
sc_core::sc_time ps_time(int64_t ps) { return sc_core::sc_time::from_value(static_cast<uint64_t>(ps)); }

void put_le32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
void put_le64(uint8_t* p, uint64_t v) {
  put_le32(p, static_cast<uint32_t>(v));
  put_le32(p + 4, static_cast<uint32_t>(v >> 32));
}
uint32_t le32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
         static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
}

std::string hex32(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%x", v);
  return buf;
}
}  // namespace

const char* to_string(ProbeStatus s) {
  switch (s) {
    case ProbeStatus::ok: return "ok";
    case ProbeStatus::enodev: return "enodev";
    case ProbeStatus::eintr: return "eintr";
    case ProbeStatus::fatal: return "fatal";
  }
  return "?";
}

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
  outcome_ = ProbeOutcome{};
  start_ev_.notify(sc_core::SC_ZERO_TIME);
}

int64_t linux_probe::now_rel() const { return now_ps() - t0_ps_; }

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
  for (;;) {
    sc_core::wait(start_ev_);
    t0_ps_ = now_ps();
    init_stream_ = Stream(s_.seed, s_.trial, h_init_);
    wakeup_stream_ = Stream(s_.seed, s_.trial, h_wakeup_);
    irq_stream_ = Stream(s_.seed, s_.trial, h_irq_);
    memory.clear();
    sq_tail_ = cq_head_ = next_cid_ = 0;
    cq_phase_ = true;
    ctrl_config_ = 0;
    try {
      probe();
    } catch (const SimulationLimitError& e) {
      outcome_.error = e.what();
    }
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
  message("Removing after probe failure status: " + std::to_string(-errno_value));
  outcome_.status = status;
  outcome_.end_ps = now_rel();
}

void linux_probe::mmio(tlm::tlm_command cmd, uint32_t offset, uint8_t* data, const char* reg,
                       uint32_t value) {
  const int64_t start = now_rel();
  trans_.set_command(cmd);
  trans_.set_address(offset);
  trans_.set_data_ptr(data);
  trans_.set_data_length(4);
  trans_.set_streaming_width(4);
  trans_.set_byte_enable_ptr(nullptr);
  trans_.set_dmi_allowed(false);
  trans_.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  bar->b_transport(trans_, delay);
  sc_core::wait(delay);
  check_limits();
  if (s_.recorder->detailed()) {
    Event e;
    e.t_ps = start;
    e.dur_ps = now_rel() - start;
    e.ctrl = index_;
    e.kind = cmd == tlm::TLM_READ_COMMAND ? EventKind::mmio_read : EventKind::mmio_write;
    e.reg = reg;
    e.has_value = true;
    e.value = cmd == tlm::TLM_READ_COMMAND ? le32(data) : value;
    s_.recorder->add(std::move(e));
  }
}

uint32_t linux_probe::read32(uint32_t offset, const char* reg) {
  uint8_t data[4] = {0xFF, 0xFF, 0xFF, 0xFF};
  mmio(tlm::TLM_READ_COMMAND, offset, data, reg, 0);
  // A read the link could not complete returns all ones, as a PCIe master abort does.
  if (trans_.get_response_status() != tlm::TLM_OK_RESPONSE) return regs::kAllOnes32;
  return le32(data);
}

void linux_probe::write32(uint32_t offset, uint32_t value, const char* reg) {
  uint8_t data[4];
  put_le32(data, value);
  mmio(tlm::TLM_WRITE_COMMAND, offset, data, reg, value);
}

void linux_probe::sleep_once(const SleepPolicy& policy) {
  const int64_t start = now_ps();
  const SleepPolicy p = policy.resolved(s_.host->timers);
  const double irq_u = irq_stream_.next_uniform();
  int64_t end = t0_ps_ + p.end_ps(*s_.clock, s_.host->timers, start - t0_ps_, irq_u);
  if (p.schedules()) end += s_.host->wakeup_latency.sample_ps(wakeup_stream_);
  sc_core::wait(ps_time(end - start));
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
}

int linux_probe::wait_ready(uint64_t timeout_500ms, bool want_ready, const char* op,
                            size_t phase_index) {
  const KernelProfile& prof = s_.host->profile;
  const TickClock& clock = *s_.clock;
  const int hz = s_.host->timers.hz;
  const uint64_t j0 = clock.jiffies_at(now_rel());
  const uint64_t deadline = prof.deadline == DeadlineForm::half_jiffies
                                ? deadline_half_jiffies(j0, timeout_500ms, hz)
                                : deadline_whole_seconds_jiffies(j0, timeout_500ms, hz);
  const uint32_t bit = want_ready ? regs::Csts::kRdy : 0;
  for (uint64_t polls = 1;; ++polls) {
    // 1. read CSTS
    const uint32_t csts = read32(regs::kCsts, "CSTS");
    ++s_.recorder->phase(phase_index).polls;
    // 2. all ones: the device is gone
    if (csts == regs::kAllOnes32) return -ENODEV;
    // 3. wanted state reached
    if ((csts & regs::Csts::kRdy) == bit) return 0;
    // 4. sleep
    sleep_once(prof.poll);
    ++s_.recorder->phase(phase_index).sleeps;
    // 5. fatal signal pending: no signals are modelled yet, so never
    // 6. deadline: time_after(jiffies, deadline)
    if (time_after(clock.jiffies_at(now_rel()), deadline)) {
      std::string text = std::string("Device not ready; aborting ") + op;
      if (prof.csts_in_message) text += ", CSTS=" + hex32(csts);
      message(text);
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

uint32_t linux_probe::admin_command(uint8_t opcode, uint32_t cdw10, uint32_t cdw11, uint64_t prp1) {
  // Build the SQE in host memory, ring the SQ tail doorbell, wait for the MSI-X, consume the CQE,
  // and ring the CQ head doorbell, as nvme_submit_sync_cmd and the interrupt handler do.
  uint8_t* sqe = memory.at(hostmem::kAdminSq + uint64_t{sq_tail_} * regs::kSqeBytes);
  std::memset(sqe, 0, regs::kSqeBytes);
  const uint16_t cid = next_cid_++;
  sqe[0] = opcode;
  sqe[2] = static_cast<uint8_t>(cid);
  sqe[3] = static_cast<uint8_t>(cid >> 8);
  put_le64(sqe + 24, prp1);
  put_le32(sqe + 40, cdw10);
  put_le32(sqe + 44, cdw11);
  sq_tail_ = static_cast<uint16_t>((sq_tail_ + 1) % hostmem::kAdminQueueDepth);
  const uint32_t dstrd = s_.ctrl->cap.dstrd;
  write32(regs::sq_tail_doorbell(0, dstrd), sq_tail_, "SQ0TDBL");
  uint8_t* cqe = memory.at(hostmem::kAdminCq + uint64_t{cq_head_} * regs::kCqeBytes);
  // Wait for a CQE with the expected phase tag; an interrupt may come before we wait for it.
  while (((le32(cqe + 12) >> 16) & 1u) != (cq_phase_ ? 1u : 0u)) {
    sc_core::wait(memory.irq);
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
  if (++cq_head_ == hostmem::kAdminQueueDepth) {
    cq_head_ = 0;
    cq_phase_ = !cq_phase_;
  }
  write32(regs::cq_head_doorbell(0, dstrd), cq_head_, "CQ0HDBL");
  return dw0;
}

void linux_probe::probe() {
  const HostParams& host = *s_.host;
  const ControllerParams& ctrl = *s_.ctrl;
  Recorder& rec = *s_.recorder;

  // nvme_init to the probe of this function (async probe scheduling).
  size_t ph = rec.add_phase(Phase{"pre_probe", index_, 0, 0, 0, 0});
  sc_core::wait(ps_time(host.init_to_probe.sample_ps(init_stream_)));
  check_limits();
  rec.phase(ph).end_ps = now_rel();
  message("pci function " + ctrl.pci_address);

  // nvme_pci_enable: CSTS read all ones means the function is gone.
  if (read32(regs::kCsts, "CSTS") == regs::kAllOnes32) return fail(ProbeStatus::enodev, ENODEV);
  // CAP is read as two 32-bit reads (lo_hi_readq).
  const uint64_t cap_lo = read32(regs::kCap, "CAP");
  const uint64_t cap_hi = read32(regs::kCap + 4, "CAP+4");
  const regs::Cap cap = regs::Cap::decode(cap_lo | cap_hi << 32);

  // nvme_pci_configure_admin_queue: NVMe 1.1+ with NSSRS: clear a latched NSSRO.
  const regs::Vs vs = regs::Vs::decode(read32(regs::kVs, "VS"));
  if ((vs.mjr > 1 || (vs.mjr == 1 && vs.mnr >= 1)) && cap.nssrs) {
    const uint32_t csts = read32(regs::kCsts, "CSTS");
    if (csts & regs::Csts::kNssro) write32(regs::kCsts, regs::Csts::kNssro, "CSTS");
  }

  // Disable: CC.EN=0 (and SHN cleared), then wait for RDY=0 with the CAP.TO deadline.
  ph = rec.add_phase(Phase{"disable", index_, now_rel(), 0, 0, 0});
  ctrl_config_ &= ~(regs::Cc{false, 0, 0, 0, regs::Shn::abrupt, 0, 0, false}.encode() | 1u);
  write32(regs::kCc, ctrl_config_, "CC");
  int rc = wait_ready(cap.to, false, "reset", ph);
  rec.phase(ph).end_ps = now_rel();
  if (rc != 0) return fail(ProbeStatus::enodev, -rc);

  // Admin queue registers: AQA, then ASQ and ACQ as two 32-bit writes each (lo_hi_writeq).
  const uint32_t depth = hostmem::kAdminQueueDepth - 1;
  write32(regs::kAqa, regs::Aqa{static_cast<uint16_t>(depth), static_cast<uint16_t>(depth)}.encode(), "AQA");
  write32(regs::kAsq, static_cast<uint32_t>(hostmem::kAdminSq), "ASQ");
  write32(regs::kAsq + 4, static_cast<uint32_t>(hostmem::kAdminSq >> 32), "ASQ+4");
  write32(regs::kAcq, static_cast<uint32_t>(hostmem::kAdminCq), "ACQ");
  write32(regs::kAcq + 4, static_cast<uint32_t>(hostmem::kAdminCq >> 32), "ACQ+4");

  // Enable: the release's CC write sequence, then wait for RDY=1.
  ph = rec.add_phase(Phase{"enable", index_, now_rel(), 0, 0, 0});
  regs::Cc cc;
  cc.en = true;
  cc.css = 0;      // NVM command set
  cc.mps = 0;      // 4 KiB host pages (PAGE_SHIFT 12)
  cc.ams = 0;      // round robin
  cc.iosqes = 6;   // 64-byte SQEs
  cc.iocqes = 4;   // 16-byte CQEs
  ctrl_config_ = cc.encode();
  write32(regs::kCc, ctrl_config_, "CC");
  rc = wait_ready(cap.to, true, "initialisation", ph);
  rec.phase(ph).end_ps = now_rel();
  if (rc != 0) return fail(ProbeStatus::enodev, -rc);

  // Admin phase: Identify Controller, Set Features (Number of Queues), Create I/O CQ and SQ.
  ph = rec.add_phase(Phase{"admin", index_, now_rel(), 0, 0, 0});
  admin_command(regs::opcode::kIdentify, 1 /* CNS: controller */, 0, hostmem::kIdentify);
  const uint32_t want = host.cpus;
  const uint32_t granted_dw0 = admin_command(regs::opcode::kSetFeatures, 0x07 /* Number of Queues */,
                                             ((want - 1) & 0xFFFF) | ((want - 1) & 0xFFFF) << 16, 0);
  const uint32_t granted = std::min(want, std::min(granted_dw0 & 0xFFFF, granted_dw0 >> 16) + 1);
  for (uint32_t qid = 1; qid <= granted; ++qid) {
    const uint32_t qsize = std::min<uint32_t>(1023, cap.mqes);  // 0's based
    // Create I/O CQ: QID and size; physically contiguous, interrupts enabled on vector qid.
    admin_command(regs::opcode::kCreateIoCq, qid | qsize << 16, 0x3 | qid << 16, 0x100000 * qid);
    // Create I/O SQ: QID and size, bound to CQ qid.
    admin_command(regs::opcode::kCreateIoSq, qid | qsize << 16, 0x1 | qid << 16, 0x200000 * qid);
  }
  if (host.profile.queues_line)
    message(std::to_string(granted) + "/0/0 default/read/poll queues");
  rec.phase(ph).end_ps = now_rel();
  outcome_.status = ProbeStatus::ok;
  outcome_.end_ps = now_rel();
}

}  // namespace nvmesim
