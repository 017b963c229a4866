// The Linux driver's sequences besides the probe: its waits (as WaitSpecs of the one readiness
// loop), disable, the 6.17+ function-level reset, shutdown, `nvme reset`, admin commands and the
// namespace readiness scan.
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <deque>

#include "host/linux/kernel_profile.hpp"
#include "host/linux/linux_driver.hpp"
#include "host/readiness.hpp"

namespace nvmesim {

namespace {

std::string hex32(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%x", v);
  return buf;
}

// nvme_wait_ready's message; the ", CSTS=0x%x" suffix exists from 5.7 on.
std::string not_ready(const WaitSpec& s, uint32_t, int64_t) { return std::string("Device not ready; aborting ") + s.op; }
std::string not_ready_csts(const WaitSpec& s, uint32_t csts, int64_t) {
  return std::string("Device not ready; aborting ") + s.op + ", CSTS=" + hex32(csts);
}
std::string shutdown_incomplete(const WaitSpec&, uint32_t, int64_t) { return "Device shutdown incomplete; abort shutdown"; }
std::string flr_giving_up(const WaitSpec&, uint32_t, int64_t slept_ps) {
  return "not ready " + std::to_string(slept_ps / 1'000'000'000) + "ms after FLR; giving up";
}

constexpr uint32_t kShstMask = regs::Csts{false, false, regs::Shst{3}, false, false, false}.encode();
constexpr uint32_t kShstComplete = regs::Csts{false, false, regs::Shst::complete, false, false, false}.encode();

}  // namespace

int linux_driver::wait_ready(uint64_t timeout, bool seconds, uint32_t mask, uint32_t value, const char* op,
                             size_t phase) {
  const KernelProfile& prof = host().params().profile;
  const int hz = host().params().timers.hz;
  WaitSpec s;
  s.mask = mask;
  s.value = value;
  s.deadline.rule = Deadline::Rule::time_after;
  s.deadline.check = Deadline::Check::after_sleep;
  if (seconds) s.deadline.amount = timeout * static_cast<uint64_t>(hz);
  else if (prof.deadline == DeadlineForm::half_jiffies) s.deadline.amount = deadline_half_jiffies(0, timeout, hz);
  else s.deadline.amount = deadline_whole_seconds_jiffies(0, timeout, hz);
  s.sleep = prof.poll;
  s.all_ones = prof.all_ones_in_loop ? WaitSpec::AllOnes::fail : WaitSpec::AllOnes::test;  // 4.8: no test
  s.op = op;
  s.message = prof.csts_in_message ? not_ready_csts : not_ready;
  const WaitResult r = wait_until_ready(host(), s, phase);
  if (r.ready()) return 0;
  last_csts_ = r.last;
  return -ENODEV;
}

int linux_driver::wait_shutdown_msleep_loop(uint64_t timeout_s, size_t phase) {
  // Up to 6.1 the shutdown has a loop of its own: read CSTS, SHST complete -> done, sleep, signal
  // check, deadline check (jiffies + shutdown_timeout * HZ). No all-ones test: a vanished device
  // (SHST reads 11b) keeps it polling until the deadline.
  WaitSpec s;
  s.mask = kShstMask;
  s.value = kShstComplete;
  s.deadline.rule = Deadline::Rule::time_after;
  s.deadline.check = Deadline::Check::after_sleep;
  s.deadline.amount = timeout_s * static_cast<uint64_t>(host().params().timers.hz);
  s.sleep = host().params().profile.shutdown_poll;
  s.all_ones = WaitSpec::AllOnes::test;
  s.op = "shutdown";
  s.message = shutdown_incomplete;
  s.kind = "shutdown wait";
  s.limit_hint = nullptr;  // its error has always named the limit only
  const WaitResult r = wait_until_ready(host(), s, phase);
  if (r.ready()) return 0;
  last_csts_ = r.last;
  return -ENODEV;
}

bool linux_driver::delay_quirk() const {
  const KernelProfile& prof = host().params().profile;
  // 4.8-4.9: only a controller that already has its I/O tag set (a later disable) waits.
  if (!prof.delay_quirk_first_probe && !tagset_) return false;
  for (const auto& id : prof.delay_quirk_ids)
    if (id == host().context().fn->pci_id) return true;  // PCI ids come from enumeration, not from BAR0
  return prof.delay_quirk_model_rule && model_quirk_;
}

int linux_driver::disable(size_t phase) {
  // nvme_disable_ctrl(shutdown=false): clear CC.SHN (both bits) and EN, write CC, the quirk's msleep (2000 or 2300 ms),
  // then wait for RDY=0 bounded by CAP.TO.
  ctrl_config_ &= ~regs::Cc::mask().shn().en().value();  // both SHN bits (15:14) and EN (section 6)
  host().write32(regs::kCc, ctrl_config_, "CC");
  if (delay_quirk()) host().sleep(SleepPolicy::msleep(host().params().profile.delay_quirk_ms));
  return wait_ready(cap_.to, false, regs::Csts::kRdy, 0, "reset", phase);
}

int linux_driver::function_level_reset() {
  // pcie_flr: set Initiate FLR in Device Control, wait 100 ms (a function must complete an FLR in
  // 100 ms), then poll the function until configuration reads return data again, sleeping 1, 2,
  // 4, ... ms, giving up once more than 60 s of sleeps were asked for. -ENOTTY without the
  // capability (pcie_reset_flr).
  if (!host().context().fn->flr) return -ENOTTY;
  uint8_t data[4];
  regs::put_le32(data, regs::pcicfg::kDevCtlInitiateFlr);
  host().config_access(tlm::TLM_WRITE_COMMAND, regs::pcicfg::kDevCtl, data, 2, "PCI_EXP_DEVCTL",
                       regs::pcicfg::kDevCtlInitiateFlr, "function-level reset");
  host().sleep(SleepPolicy::msleep(100));
  WaitSpec s;
  s.reg = WaitSpec::Register::config_vendor_id;
  s.mask = 0;  // any answer
  s.value = 0;
  s.all_ones = WaitSpec::AllOnes::not_ready;
  s.deadline.rule = Deadline::Rule::slept_over;
  s.deadline.check = Deadline::Check::before_sleep;
  s.deadline.amount = 60'000'000'000'000;  // 60000 ms of sleeps
  s.sleep = SleepPolicy::msleep(1);
  s.sleep_growth = 2;
  s.op = "FLR";
  s.message = flr_giving_up;
  s.kind = "FLR wait";
  s.limit_hint = "the FLR poll sleeps 1, 2, 4, ... ms up to 60 s: raise the limit";
  if (!wait_until_ready(host(), s, kNoPhase).ready()) return -ENOTTY;
  ctrl_config_ = 0;  // registers are at their reset values
  return 0;
}

bool linux_driver::await_completion(uint16_t cid, uint32_t* dw0, uint16_t* status) {
  const std::optional<Completion> r = host().wait_cqe(cid, CompletionWait::msix, kLinuxAdminTimeoutPs);
  if (!r) {
    // The kernel's admin timeout reports the command and disables the controller; the
    // synchronous submit returns -EINTR and the action fails.
    message("I/O " + std::to_string(cid) + " QID 0 timeout, disable controller");
    fail(ProbeStatus::eintr, EINTR);
    return false;
  }
  // The interrupt was lost and the timeout handler found the completion by polling the CQ
  // (nvme_timeout): the command completes, 60 s late, with the handler's warning. The kernel
  // prints "I/O tag %d (%04x) QID %d" in later releases; this model keeps the older "I/O %d QID
  // %d" form, as for the timeout message above.
  if (r->polled) message("I/O " + std::to_string(cid) + " QID 0 timeout, completion polled");
  if (dw0) *dw0 = r->dw0;
  if (status) *status = r->status;
  return true;
}

bool linux_driver::admin(uint8_t opcode, uint32_t cdw10, uint32_t cdw11, uint64_t prp1, uint32_t nsid,
                         uint32_t* dw0, uint16_t* status) {
  return await_completion(host().submit(opcode, cdw10, cdw11, prp1, nsid), dw0, status);
}

bool linux_driver::delete_io_queues() {
  // nvme_disable_io_queues on a live controller, pipelined (section 6): every Delete I/O SQ for
  // queues N..1 in flight at once (as many as the admin queue holds, each completion letting the
  // next one in), awaited against one 60 s admin timeout; then every Delete I/O CQ the same way.
  // The device completes admin commands in order.
  const size_t window = hostmem::kAdminQueueDepth - 1 - (host().async_cid() != 0xFFFF ? 1 : 0);
  for (const uint8_t opcode : {regs::opcode::kDeleteIoSq, regs::opcode::kDeleteIoCq}) {
    const int64_t deadline_ps = host().now_rel() + kLinuxAdminTimeoutPs;
    std::deque<uint16_t> in_flight;
    uint32_t qid = granted_queues_;
    while (qid >= 1 || !in_flight.empty()) {
      for (; qid >= 1 && in_flight.size() < window; --qid) in_flight.push_back(host().submit(opcode, qid, 0, 0));
      const uint16_t cid = in_flight.front();
      const std::optional<Completion> r =
          host().wait_cqe(cid, CompletionWait::msix, std::max<int64_t>(0, deadline_ps - host().now_rel()));
      if (!r) {
        message("I/O " + std::to_string(cid) + " QID 0 timeout, disable controller");
        fail(ProbeStatus::eintr, EINTR);
        return false;
      }
      if (r->polled) message("I/O " + std::to_string(cid) + " QID 0 timeout, completion polled");
      in_flight.pop_front();
    }
  }
  granted_queues_ = 0;
  return true;
}

void linux_driver::check_namespace(const PhaseNames& names) {
  // Ready independent of media (CC.CRIME=1): RDY came before the namespaces. The driver arms an
  // Asynchronous Event Request, reads the namespace's readiness (NSTAT.NRDY of the I/O command
  // set independent Identify Namespace), and when not ready scans again on the namespace-changed
  // event. Without CRIME, RDY=1 already meant the namespaces were ready.
  nvme_host& h = host();
  if (!crime_set_) {
    h.namespace_ready();
    return;
  }
  const size_t ph = h.open_phase(*names.ns);
  h.clear_async_completed();
  h.set_async_cid(h.submit(regs::opcode::kAsyncEventRequest, 0, 0, 0, 0));
  for (;;) {
    if (!admin(regs::opcode::kIdentify, regs::cns::kNamespaceCsIndep, 0, hostmem::kIdentify, 1)) return;
    ++h.phase(ph).polls;
    if (h.memory.view(hostmem::kIdentify)[regs::identify::kNstatOffset] & regs::identify::kNstatNrdy) break;
    // Sleep until the event's interrupt delivers its completion.
    if (!h.async_completed() && !await_completion(h.async_cid())) return;
    h.clear_async_completed();
  }
  h.close_phase(ph);
  h.namespace_ready();
}

void linux_driver::shutdown() {
  // nvme_dev_disable(shutdown=true) on a live controller: delete the I/O queues, then CC.SHN and
  // wait for SHST=complete bounded by shutdown_timeout (Identify RTD3E clamped as the release does).
  const size_t ph = host().open_phase(linux_phase::kShutdown);
  if (granted_queues_ > 0 && !delete_io_queues()) return;
  regs::Cc cc = regs::Cc::decode(ctrl_config_);
  cc.shn = host().params().abrupt_shutdown ? regs::Shn::abrupt : regs::Shn::normal;
  ctrl_config_ = cc.encode();
  host().write32(regs::kCc, ctrl_config_, "CC");
  const int rc = host().params().profile.shutdown_wait == ShutdownWait::msleep_loop
                     ? wait_shutdown_msleep_loop(shutdown_timeout_s_, ph)
                     : wait_ready(shutdown_timeout_s_, true, kShstMask, kShstComplete, "shutdown", ph);
  host().close_phase(ph);
  host().finish(rc == 0 ? ProbeStatus::ok : ProbeStatus::enodev);
}

void linux_driver::reset() {
  // `nvme reset` (NVME_IOCTL_RESET): nvme_dev_disable (delete I/O queues, disable and wait), then
  // the reset work runs the probe's configure path again from nvme_pci_enable.
  using namespace linux_phase;
  static const PhaseNames kReset{nullptr, &kResetDisable, &kResetEnable, &kResetAdmin, &kResetNamespace};
  const size_t ph = host().open_phase(kResetTeardown);
  if (granted_queues_ > 0 && !delete_io_queues()) return;
  const int rc = disable(ph);
  host().close_phase(ph);
  if (rc != 0) {
    fail(ProbeStatus::enodev, -rc);
    return;
  }
  probe(kReset);
}

}  // namespace nvmesim
