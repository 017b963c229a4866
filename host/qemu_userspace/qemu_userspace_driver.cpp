#include "host/qemu_userspace/qemu_userspace_driver.hpp"

#include <algorithm>
#include <memory>
#include <string>

#include "host/nvme_host.hpp"
#include "host/readiness.hpp"
#include "host/registry.hpp"
#include "models/nvme_regs.hpp"

namespace nvmesim {

namespace {
using probe_phase::kAdmin, probe_phase::kDisable, probe_phase::kEnable;
constexpr uint64_t kMsPs = 1'000'000'000;
constexpr uint32_t kQueueSize = 128;                      // NVME_QUEUE_SIZE
constexpr uint64_t kIoCq = 0x100000, kIoSq = 0x200000;    // bus addresses of I/O queue 1 (never DMA'd)
constexpr uint16_t kStatusScSct = 0x7FF;                  // Status Field bits 10:0: SC and SCT
}  // namespace

std::unique_ptr<HostDriver> make_qemu_userspace_driver(nvme_host& host) {
  return std::make_unique<qemu_userspace_driver>(host);
}

const std::vector<PhaseId>& qemu_userspace_driver::phases() const { return probe_phase::disable_enable_admin(); }

PlatformPolicy qemu_userspace_driver::platform_policy(const HostParams&) const {
  return PlatformPolicy::serial_probe_only(1000);  // the clock is unused: the waits read ns time
}

void qemu_userspace_driver::begin_trial(const DriverContext& context) {
  prefix_ = "qemu-system-x86_64: -drive file=nvme://" + context.fn->address + "/1: ";
}

void qemu_userspace_driver::fail(const std::string& text, ProbeStatus status) {
  host().message(prefix_ + text);
  host().finish(status);
}

void qemu_userspace_driver::run(HostAction action) {
  if (action != HostAction::probe) throw std::logic_error("qemu_userspace_driver: only nvme_init exists");
  host().set_state(HostState::pci_enable);
  host().reset_admin_queue(hostmem::kAdminQueueDepth);
  const regs::Cap cap = host().read_cap();
  if (!(cap.css & 1u)) return fail("Device doesn't support NVMe command set", ProbeStatus::enodev);
  cap_mqes_ = cap.mqes;
  timeout_ms_ = timeout_ms(cap.to);
  (void)host().read32(regs::kVs, "VS");  // the version goes to a trace point only
  // Reset: CC read, written back with EN cleared; wait RDY=0.
  size_t ph = host().open_phase(kDisable);
  host().set_state(HostState::disable_wait);
  const uint32_t cc = host().read32(regs::kCc, "CC");
  host().write32(regs::kCc, cc & 0xFEu, "CC");
  bool ok = wait_ready(false, ph);
  host().close_phase(ph);
  if (!ok)
    return fail("Timeout while waiting for device to reset (" + std::to_string(timeout_ms_) + " ms)",
                ProbeStatus::enodev);
  host().set_state(HostState::admin_queue);
  const uint32_t depth = hostmem::kAdminQueueDepth;  // QEMU asks NVME_QUEUE_SIZE; the host memory holds 32
  host().write32(regs::kAqa, regs::Aqa{depth - 1, depth - 1}.encode(), "AQA");
  host().write32(regs::kAsq, static_cast<uint32_t>(hostmem::kAdminSq), "ASQ");
  host().write32(regs::kAsq + 4, static_cast<uint32_t>(hostmem::kAdminSq >> 32), "ASQ+4");
  host().write32(regs::kAcq, static_cast<uint32_t>(hostmem::kAdminCq), "ACQ");
  host().write32(regs::kAcq + 4, static_cast<uint32_t>(hostmem::kAdminCq >> 32), "ACQ+4");
  ph = host().open_phase(kEnable);
  host().set_state(HostState::enable_wait);
  host().write32(regs::kCc, regs::Cc{true, 0, 0, 0, regs::Shn::none, 6, 4, false}.encode(), "CC");
  ok = wait_ready(true, ph);
  host().close_phase(ph);
  if (!ok)
    return fail("Timeout while waiting for device to start (" + std::to_string(timeout_ms_) + " ms)",
                ProbeStatus::enodev);
  if (!admin_setup()) return;
  host().finish(ProbeStatus::ok);
  host().namespace_ready();
}

bool qemu_userspace_driver::wait_ready(bool enabled, size_t phase) {
  WaitSpec s;
  s.mask = regs::Csts::kRdy;
  s.value = enabled ? regs::Csts::kRdy : 0;
  s.deadline.rule = Deadline::Rule::elapsed_over;   // qemu_clock_get_ns() > deadline
  s.deadline.check = Deadline::Check::before_sleep;  // read, test, check; no sleep at all
  s.deadline.amount = timeout_ms_ * kMsPs;
  s.sleep.reset();                                   // a tight loop
  s.all_ones = WaitSpec::AllOnes::test;              // no all-ones test
  s.op = enabled ? "start" : "reset";
  s.limit_hint = "QEMU's user-space driver polls without sleeping: use a shorter CAP.TO or raise "
                 "host.max_polls_per_wait";
  return wait_until_ready(host(), s, phase).ready();
}

bool qemu_userspace_driver::admin_setup() {
  // nvme_identify (Identify Controller, Identify Namespace 1), nvme_add_io_queue (Create I/O CQ
  // 1, SQ 1); the first failure fails the open (-EIO).
  const size_t ph = host().open_phase(kAdmin);
  host().set_state(HostState::admin_commands);
  const uint32_t qsize = std::min<uint32_t>(kQueueSize, uint32_t{cap_mqes_} + 1) - 1;
  struct Cmd {
    uint8_t opcode;
    uint32_t cdw10, cdw11;
    uint64_t prp1;
    uint32_t nsid;
    const char* failed;
  };
  const Cmd cmds[] = {
      {regs::opcode::kIdentify, regs::cns::kController, 0, hostmem::kIdentify, 0, "Failed to identify controller"},
      {regs::opcode::kIdentify, regs::cns::kNamespace, 0, hostmem::kIdentify, 1, "Failed to identify namespace"},
      {regs::opcode::kCreateIoCq, 1 | qsize << 16, 0x3, kIoCq, 0, "Failed to create CQ io queue [1]"},
      {regs::opcode::kCreateIoSq, 1 | qsize << 16, 0x1 | 1u << 16, kIoSq, 0, "Failed to create SQ io queue [1]"},
  };
  for (const Cmd& c : cmds) {
    const auto r = host().admin_cqe(CompletionWait::poll, kMaxTrialPs, c.opcode, c.cdw10, c.cdw11, c.prp1, c.nsid);
    if (!r || (r->status & kStatusScSct) != 0) {
      host().close_phase(ph);
      fail(c.failed, ProbeStatus::eio);
      return false;
    }
  }
  host().close_phase(ph);
  return true;
}

}  // namespace nvmesim
