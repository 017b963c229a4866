#include "host/nvme_host.hpp"

#include <algorithm>
#include <cstring>

#include "models/nvme_regs.hpp"
#include "models/pcie_transport.hpp"
#include "models/sim_time.hpp"

namespace nvmesim {

namespace {
int64_t now_ps() { return sim_now_ps(); }
sc_core::sc_time ps_time(int64_t ps) { return sim_delay(ps, "the host"); }

using regs::le32;
using regs::put_le32;
using regs::put_le64;
}  // namespace

nvme_host::nvme_host(sc_core::sc_module_name name, int index)
    : sc_module(name),
      bar("bar"),
      memory("memory"),
      index_(index),
      dev_("nvme" + std::to_string(index)),
      h_wakeup_(fnv1a64("host/wakeup/" + dev_)),
      h_irq_(fnv1a64("host/background_irq/" + dev_)) {
  irq_or_timeout_ = memory.irq | timeout_ev_;
  cq_or_timeout_ = memory.cq_write | timeout_ev_;
  SC_THREAD(run);
}

void nvme_host::begin_trial(HostDriver& driver, const DriverContext& context, bool new_origin) {
  driver_ = &driver;
  ctx_ = context;
  if (new_origin) t0_ps_ = now_ps();
  wakeup_stream_ = Stream(ctx_.seed, ctx_.trial, h_wakeup_);
  irq_stream_ = Stream(ctx_.seed, ctx_.trial, h_irq_);
  log_prefix_.clear();
  offset_ps_ = 0;
  outstanding_ = false;
  driver.begin_trial(ctx_);
}

void nvme_host::start(HostAction action) {
  done_ = false;
  action_ = action;
  outcome_ = DriverOutcome{};
  start_ev_.notify(sc_core::SC_ZERO_TIME);
}

void nvme_host::run() {
  for (;;) {
    sc_core::wait(start_ev_);
    outcome_.start_ps = now_rel();
    set_state(HostState::init_to_probe);
    try {
      driver_->run(action_);
    } catch (const SimulationLimitError& e) {
      outcome_.error = e.what();
    }
    sync();  // the end of an action: the platform and the next action see SystemC time
    set_state(outcome_.status == ProbeStatus::ok ? HostState::done : HostState::failed);
    done_ = true;
    done_ev_.notify(sc_core::SC_ZERO_TIME);
  }
}

int64_t nvme_host::now_local() const { return add_ps(now_ps(), offset_ps_); }
int64_t nvme_host::now_rel() const { return now_local() - t0_ps_; }

void nvme_host::set_state(HostState st) {
  if (st != HostState::sleep) awake_state_ = st;
  // The signal is only seen in a waveform, which runs coupled: a decoupled thread's local time is
  // not SystemC time, so its value would change at the wrong time anyway.
  if (!decoupled_) state_sig.write(static_cast<unsigned>(st));
}

void nvme_host::advance(int64_t ps) {
  if (!decoupled_) {
    sc_core::wait(ps_time(ps));
    return;
  }
  // A local time past the last one an event may be due at: catch SystemC up to the local time
  // first (within the limit), then wait `ps` as a coupled host does, so that the limit of
  // simulated time stops the run here (sim_delay) with the same message, the same "now" and the
  // same delay as the coupled host's (issue 16: they differed by the pending offset), instead of
  // a later sum wrapping.
  if (add_ps(now_local(), ps) > kLastEventPs) {
    sync();
    sc_core::wait(ps_time(ps));
    return;
  }
  offset_ps_ += ps;
}

void nvme_host::sync() {
  if (offset_ps_ == 0) return;
  const int64_t offset = offset_ps_;
  offset_ps_ = 0;
  sc_core::wait(ps_time(offset));
}

bool nvme_host::first_in_boot(const char* what) {
  sync();
  // Of functions that reach the site at the same time, the lowest index is first, whatever order
  // SystemC runs them in: function N asks N delta cycles later (no simulated time passes).
  for (int i = 0; i < index_; ++i) sc_core::wait(sc_core::SC_ZERO_TIME);
  return ctx_.boot->first_in_boot(what);
}

void nvme_host::check_limits() {
  const HostParams& h = params();
  const uint64_t ops = recorder().count_operation();
  if (ops > h.max_events_per_trial)
    throw SimulationLimitError("the trial made more than " + std::to_string(h.max_events_per_trial) +
                               " MMIO accesses and sleeps over all controllers (limit host.max_events_per_trial); "
                               "the usual causes: a wait that polls without sleeping or a long CAP.TO (use a poll that "
                               "sleeps or a shorter CAP.TO), many controllers, or many namespaces to identify "
                               "(controllers[].identify.nn)");
  if (now_rel() > kMaxTrialPs)
    throw SimulationLimitError("controller " + dev_ + ": the trial ran past 1000000 s of simulated time (the "
                               "limit of one trial); use shorter latencies");
}

void nvme_host::message(const std::string& text) {
  if (!detailed()) return;
  Event e;
  e.t_ps = now_rel();
  e.ctrl = index_;
  e.kind = EventKind::message;
  e.detail = log_prefix_ + text;
  recorder().add(std::move(e));
}

size_t nvme_host::open_phase(const PhaseId& id) {
  const auto& declared = driver_->phases();
  const bool known = std::any_of(declared.begin(), declared.end(), [&](const PhaseId& p) {
    return p.order == id.order && std::strcmp(p.name, id.name) == 0;
  });
  if (!known)
    throw std::logic_error(std::string("host driver ") + driver_->name() + " opened phase " + id.name +
                           ", which it does not declare");
  return recorder().add_phase(Phase{id, index_, now_rel(), 0, 0, 0});
}

void nvme_host::finish(ProbeStatus status) {
  outcome_.status = status;
  outcome_.end_ps = now_rel();
}

// ---- BAR0 and configuration space ---------------------------------------------------------------

void nvme_host::prepare(tlm::tlm_command cmd, uint64_t address, uint8_t* data, uint32_t len) {
  trans_.set_command(cmd);
  trans_.set_address(address);
  trans_.set_data_ptr(data);
  trans_.set_data_length(len);
  trans_.set_streaming_width(len);
  trans_.set_byte_enable_ptr(nullptr);
  trans_.set_dmi_allowed(false);
  trans_.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
}

void nvme_host::transport_and_record(int64_t start_ps, const char* reg, uint32_t value, const char* detail) {
  // The target's own timed work must run before this access, as it would in the coupled model.
  if (offset_ps_ != 0 && target_work_ && target_work_->timed_work_pending()) sync();
  const int64_t issued_ps = offset_ps_;
  sc_core::sc_time delay = ps_time(issued_ps);  // issued at the local time
  bar->b_transport(trans_, delay);
  offset_ps_ = 0;
  // The access's own time after the local time it was issued at, as a coupled host waits it (so a
  // delay past the limit of simulated time is reported from the same time; issued_ps is 0 when
  // coupled, and no zero wait is added).
  if (issued_ps != 0) advance(issued_ps);
  // (Past the limit of simulated time ps_time() returned zero, so the difference may be negative:
  // the run is already stopping, and local time never goes back.)
  advance(std::max<int64_t>(0, static_cast<int64_t>(delay.value()) - issued_ps));
  const bool read = trans_.get_command() == tlm::TLM_READ_COMMAND;
  const uint32_t len = trans_.get_data_length();
  // A request the function rejects (an Unsupported Request or Completer Abort on PCIe): the root
  // complex completes a read with all ones, and a posted write is simply lost.
  const bool rejected = trans_.get_response_status() != tlm::TLM_OK_RESPONSE;
  if (rejected && read) std::memset(trans_.get_data_ptr(), 0xFF, len);
  check_limits();
  if (!detailed()) return;
  Event e;
  e.t_ps = start_ps;
  e.dur_ps = now_rel() - start_ps;
  e.ctrl = index_;
  e.kind = read ? EventKind::mmio_read : EventKind::mmio_write;
  e.reg = reg;
  e.has_value = true;
  const uint32_t mask = len >= 4 ? 0xFFFFFFFFu : (1u << (8 * len)) - 1;
  e.value = (read ? le32(trans_.get_data_ptr()) : value) & mask;
  if (detail) e.detail = detail;
  recorder().add(std::move(e));
  if (rejected) {
    Event w;
    w.t_ps = now_rel();
    w.ctrl = index_;
    w.kind = EventKind::warning;
    w.reg = reg;
    w.detail = std::string(read ? "read of " : "write to ") + reg + " answered " + trans_.get_response_string() +
               (read ? ": the CPU reads all ones" : ": dropped");
    recorder().add(std::move(w));
  }
}

uint32_t nvme_host::read32(uint32_t offset, const char* reg) {
  uint8_t data[4] = {0xFF, 0xFF, 0xFF, 0xFF};
  const int64_t start = now_rel();
  prepare(tlm::TLM_READ_COMMAND, offset, data, 4);
  transport_and_record(start, reg, 0, nullptr);
  // A read the link could not complete returns all ones, as a PCIe master abort does.
  if (trans_.get_response_status() != tlm::TLM_OK_RESPONSE) return regs::kAllOnes32;
  return le32(data);
}

void nvme_host::write32(uint32_t offset, uint32_t value, const char* reg) {
  uint8_t data[4];
  put_le32(data, value);
  const int64_t start = now_rel();
  prepare(tlm::TLM_WRITE_COMMAND, offset, data, 4);
  transport_and_record(start, reg, value, nullptr);
}

regs::Cap nvme_host::read_cap() {
  const uint64_t lo = read32(regs::kCap, "CAP");
  const uint64_t hi = read32(regs::kCap + 4, "CAP+4");
  const regs::Cap cap = regs::Cap::decode(lo | hi << 32);
  set_doorbell_stride(cap.dstrd);
  return cap;
}

bool nvme_host::config_access(tlm::tlm_command cmd, uint32_t offset, uint8_t* data, uint32_t len, const char* reg,
                              uint32_t value, const char* detail) {
  const int64_t start = now_rel();
  // A configuration request: the BAR socket's payload marked by pcie_config_extension, which must
  // not stay on the reused payload whatever the transport throws.
  struct Marked {
    tlm::tlm_generic_payload& t;
    pcie_config_extension ext;
    explicit Marked(tlm::tlm_generic_payload& p) : t(p) { t.set_extension(&ext); }
    ~Marked() { t.clear_extension(&ext); }
  } marked(trans_);
  prepare(cmd, offset, data, len);
  transport_and_record(start, reg, value, detail);
  return trans_.get_response_status() == tlm::TLM_OK_RESPONSE;
}

uint16_t nvme_host::read_config16(uint32_t offset, const char* reg) {
  uint8_t data[4] = {0xFF, 0xFF, 0xFF, 0xFF};
  // A configuration read the function does not answer returns all ones.
  if (!config_access(tlm::TLM_READ_COMMAND, offset, data, 2, reg, 0)) return 0xFFFFu;
  return static_cast<uint16_t>(data[0] | data[1] << 8);
}

// ---- time ---------------------------------------------------------------------------------------

int64_t nvme_host::sleep(const SleepPolicy& policy) {
  const HostParams& h = params();
  const int64_t start = now_local();
  const TimerRules& rules = h.profile.timer;
  const SleepPolicy p = policy.resolved(h.timers, rules);
  const double irq_u = irq_stream_.next_uniform();
  int64_t end = add_ps(t0_ps_, p.end_ps(*ctx_.clock, h.timers, rules, start - t0_ps_, irq_u));
  if (p.schedules()) end = add_ps(end, h.wakeup_latency.sample_ps(wakeup_stream_));
  // SPDK: the application's work until it polls again (the wakeup stream: no driver that uses
  // app_poll has a scheduler wakeup latency).
  if (p.kind() == SleepPolicy::Kind::app_poll) end = add_ps(end, h.poll_interval.sample_ps(wakeup_stream_));
  const HostState awake = awake_state_;
  set_state(HostState::sleep);
  advance(end - start);
  set_state(awake);
  check_limits();
  if (detailed()) {
    Event e;
    e.t_ps = start - t0_ps_;
    e.dur_ps = end - start;
    e.ctrl = index_;
    e.kind = EventKind::sleep;
    e.detail = policy.to_string();
    recorder().add(std::move(e));
  }
  return end - start;
}

void nvme_host::pass_time(int64_t ps) { advance(ps); }

// ---- the admin queue ----------------------------------------------------------------------------

void nvme_host::reset_admin_queue(uint32_t depth) {
  // A CQE of a command still in flight (after a timeout) may arrive before the local time: it must
  // land before the clear, as it would in the coupled model.
  if (outstanding_) sync();
  outstanding_ = false;
  memory.clear();
  depth_ = std::min(depth, hostmem::kAdminQueueDepth);
  sq_tail_ = cq_head_ = next_cid_ = 0;
  cq_phase_ = true;
  async_cid_ = 0xFFFF;
  async_completed_ = false;
}

uint16_t nvme_host::submit(uint8_t opcode, uint32_t cdw10, uint32_t cdw11, uint64_t prp1, uint32_t nsid) {
  // Build the SQE in host memory and ring the SQ tail doorbell.
  uint8_t* sqe = memory.write_at(hostmem::kAdminSq + uint64_t{sq_tail_} * regs::kSqeBytes, regs::kSqeBytes);  // zeroed
  const uint16_t cid = next_cid_++;
  outstanding_ = true;
  last_cid_ = cid;
  last_opcode_ = opcode;
  sqe[0] = opcode;
  sqe[2] = static_cast<uint8_t>(cid);
  sqe[3] = static_cast<uint8_t>(cid >> 8);
  put_le32(sqe + 4, nsid);
  put_le64(sqe + 24, prp1);
  put_le32(sqe + 40, cdw10);
  put_le32(sqe + 44, cdw11);
  sq_tail_ = static_cast<uint16_t>((sq_tail_ + 1) % depth_);
  write32(regs::sq_tail_doorbell(0, dstrd_), sq_tail_, "SQ0TDBL");
  return cid;
}

void nvme_host::arm_timeout(int64_t at_ps) {
  const int64_t now = now_ps();
  // A notification pending at or before at_ps stays: SystemC would ignore a later notify() anyway,
  // and it wakes the wait early, which then re-arms. An earlier notify() replaces a later one.
  if (timeout_at_ps_ > now && timeout_at_ps_ <= at_ps) return;
  timeout_ev_.notify(ps_time(at_ps - now));
  timeout_at_ps_ = at_ps;
}

std::optional<Completion> nvme_host::wait_cqe(uint16_t cid, CompletionWait how, int64_t timeout_ps) {
  // Consume CQEs in order until the one for `cid`. A device that drops the doorbell (not ready,
  // gone) never completes: the timeout ends the wait.
  sync();  // host memory is looked at in SystemC time
  const int64_t deadline_ps = add_ps(now_ps(), timeout_ps);
  const sc_core::sc_event& wake = how == CompletionWait::msix ? memory.irq : memory.cq_write;
  memory.watch_cq_writes = how == CompletionWait::poll;
  for (;;) {
    sync();  // after a CQ head doorbell write, before the next CQE is looked at
    const uint8_t* cqe = memory.view(hostmem::kAdminCq + uint64_t{cq_head_} * regs::kCqeBytes);
    const auto posted = [&] { return ((le32(cqe + 12) >> 16) & 1u) == (cq_phase_ ? 1u : 0u); };
    // A host that waits for MSI-X sees a CQE once an interrupt came after it (the handler reads
    // the CQ); one whose MSI-X was lost (sent while the function was off the bus) only when the
    // timeout handler polls the CQ at the deadline.
    const auto seen = [&] {
      return posted() && (how != CompletionWait::msix || memory.last_irq_ps() >= memory.cqe_written_ps(cq_head_));
    };
    bool polled = false;
    // Wait for a CQE with the expected phase tag; an interrupt may come before we wait for it.
    while (!seen()) {
      const int64_t now = now_ps();
      if (now >= deadline_ps) {
        if (!posted()) return std::nullopt;
        polled = true;
        break;
      }
      arm_timeout(deadline_ps);
      sc_core::wait(how == CompletionWait::msix ? irq_or_timeout_ : cq_or_timeout_);
      if (timeout_ev_.triggered()) timeout_at_ps_ = -1;  // fired: nothing pending any more
      // A stale arming (an earlier command's deadline) fired, and nothing else: not a wake-up the
      // driver sees; wait on.
      if (timeout_ev_.triggered() && !wake.triggered() && now_ps() < deadline_ps) continue;
      // A wait without a timeout (kMaxTrialPs: QEMU's userspace driver, OpenVMM) that reached the
      // trial's limit: said as such, not as "shorter latencies" (finding F2 of stop 29).
      if (timeout_ps >= kMaxTrialPs && now_ps() >= deadline_ps)
        throw SimulationLimitError(
            "controller " + dev_ + ": admin command " + std::to_string(cid) +
            (cid == last_cid_ ? std::string(" (") + regs::opcode_name(last_opcode_) + ")" : std::string()) +
            " did not complete within the trial's limit of " + std::to_string(kMaxTrialPs / 1'000'000'000'000) +
            " s of simulated time, and the " + driver_->name() +
            " driver waits for a completion without a timeout (docs/hosts.md): the controller dropped the command "
            "(it was not ready, in fatal status, or off the bus: faults.all_ones), or its admin latency is longer "
            "than the limit");
      check_limits();
    }
    if (how == CompletionWait::msix && !polled && detailed()) {
      Event e;
      e.t_ps = memory.last_irq_ps() - t0_ps_;
      e.ctrl = index_;
      e.kind = EventKind::irq;
      e.detail = "MSI-X vector 0";
      recorder().add(std::move(e));
    }
    Completion c;
    c.polled = polled;
    c.dw0 = le32(cqe);
    c.status = static_cast<uint16_t>(le32(cqe + 12) >> 17);
    c.head = cq_head_;
    c.phase = cq_phase_;
    const uint16_t got = static_cast<uint16_t>(le32(cqe + 12) & 0xFFFF);
    if (++cq_head_ == depth_) {
      cq_head_ = 0;
      cq_phase_ = !cq_phase_;
    }
    write32(regs::cq_head_doorbell(0, dstrd_), cq_head_, "CQ0HDBL");
    if (got == async_cid_) {
      async_completed_ = true;
      async_cid_ = 0xFFFF;
    }
    if (got == cid) return c;
  }
}

std::optional<Completion> nvme_host::admin_cqe(CompletionWait how, int64_t timeout_ps, uint8_t opcode, uint32_t cdw10,
                                               uint32_t cdw11, uint64_t prp1, uint32_t nsid) {
  return wait_cqe(submit(opcode, cdw10, cdw11, prp1, nsid), how, timeout_ps);
}

std::optional<uint32_t> nvme_host::wait_completion(uint16_t cid, CompletionWait how, int64_t timeout_ps) {
  const std::optional<Completion> c = wait_cqe(cid, how, timeout_ps);
  if (!c) return std::nullopt;
  return c->dw0;
}

std::optional<uint32_t> nvme_host::admin_command(CompletionWait how, int64_t timeout_ps, uint8_t opcode,
                                                 uint32_t cdw10, uint32_t cdw11, uint64_t prp1, uint32_t nsid) {
  return wait_completion(submit(opcode, cdw10, cdw11, prp1, nsid), how, timeout_ps);
}

}  // namespace nvmesim
