#include "host/nvmewin/nvmewin_driver.hpp"

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
constexpr int64_t kCommandTimeoutPs = 5'000'000'000'000;  // our choice: 5 s per admin command
constexpr uint64_t kIoCq = 0x100000, kIoSq = 0x200000;    // bus addresses of I/O queue 1 (never DMA'd)
constexpr uint16_t kStatusScSct = 0x7FF;                  // Status Field bits 10:0: SC and SCT
}  // namespace

std::unique_ptr<HostDriver> make_nvmewin_driver(nvme_host& host) { return std::make_unique<nvmewin_driver>(host); }

const std::vector<PhaseId>& nvmewin_driver::phases() const { return probe_phase::disable_enable_admin(); }

PlatformPolicy nvmewin_driver::platform_policy(const HostParams&) const {
  return PlatformPolicy::serial_probe_only(1000);  // the clock is unused: the waits count stalls
}

void nvmewin_driver::begin_trial(const DriverContext&) {}

void nvmewin_driver::run(HostAction action) {
  if (action != HostAction::probe) throw std::logic_error("nvmewin_driver: only the adapter init exists");
  host().set_log_prefix("nvme: ");
  host().set_state(HostState::pci_enable);
  host().reset_admin_queue(hostmem::kAdminQueueDepth);
  const regs::Cap cap = host().read_cap();
  cap_to_ = cap.to;
  cap_mqes_ = cap.mqes;
  size_t ph = host().open_phase(kDisable);
  host().set_state(HostState::disable_wait);
  const uint32_t cc = host().read32(regs::kCc, "CC");
  host().write32(regs::kCc, cc & ~1u, "CC");
  bool ok = wait_on_ready(false, ph);
  host().close_phase(ph);
  if (!ok) return host().finish(ProbeStatus::enodev);
  host().set_state(HostState::admin_queue);
  const uint32_t depth = hostmem::kAdminQueueDepth;
  host().write32(regs::kAqa, regs::Aqa{depth - 1, depth - 1}.encode(), "AQA");
  host().write32(regs::kAsq, static_cast<uint32_t>(hostmem::kAdminSq), "ASQ");
  host().write32(regs::kAsq + 4, static_cast<uint32_t>(hostmem::kAdminSq >> 32), "ASQ+4");
  host().write32(regs::kAcq, static_cast<uint32_t>(hostmem::kAdminCq), "ACQ");
  host().write32(regs::kAcq + 4, static_cast<uint32_t>(hostmem::kAdminCq >> 32), "ACQ+4");
  ph = host().open_phase(kEnable);
  host().set_state(HostState::enable_wait);
  host().write32(regs::kCc, regs::Cc{true, 0, 0, 0, regs::Shn::none, 6, 4, false}.encode(), "CC");
  ok = wait_on_ready(true, ph);
  host().close_phase(ph);
  if (!ok) return host().finish(ProbeStatus::enodev);
  if (!admin_setup()) return;
  host().finish(ProbeStatus::ok);
  host().namespace_ready();
}

bool nvmewin_driver::wait_on_ready(bool enabled, size_t phase) {
  // for (k = 0; k < PollMax; ++k) { read; if RDY == wanted return TRUE; stall 5 ms }: after the
  // k-th stall the loop ends when k == PollMax, i.e. when the stalls slept exceed (PollMax - 1)
  // x 5 ms (checked after the sleep). PollMax >= 100.
  const uint64_t poll_max = uint64_t{std::max<uint8_t>(cap_to_, 1)} * 500 * 1000 / kStallUs;
  WaitSpec s;
  s.mask = regs::Csts::kRdy;
  s.value = enabled ? regs::Csts::kRdy : 0;
  s.deadline.rule = Deadline::Rule::slept_over;
  s.deadline.check = Deadline::Check::after_sleep;
  s.deadline.amount = (poll_max - 1) * kStallUs * 1'000'000;
  s.sleep = SleepPolicy::udelay(kStallUs);
  s.all_ones = WaitSpec::AllOnes::test;  // no all-ones test: all ones has RDY set
  s.op = enabled ? "enable" : "disable";
  s.limit_hint = "nvmewin stalls 5 ms per read: use a shorter CAP.TO";
  const WaitResult r = wait_until_ready(host(), s, phase);
  if (r.ready()) return true;
  host().message(std::string("NVMeWaitOnReady: CSTS.RDY did not become ") + (enabled ? "1" : "0") + " after " +
                 std::to_string(poll_max) + " polls of 5 ms");
  return false;
}

bool nvmewin_driver::admin_setup() {
  const size_t ph = host().open_phase(kAdmin);
  host().set_state(HostState::admin_commands);
  const uint32_t qsize = std::min<uint32_t>(256, uint32_t{cap_mqes_} + 1) - 1;
  struct Cmd {
    uint8_t opcode;
    uint32_t cdw10, cdw11;
    uint64_t prp1;
    uint32_t nsid;
    const char* what;
  };
  const Cmd cmds[] = {
      {regs::opcode::kIdentify, regs::cns::kController, 0, hostmem::kIdentify, 0, "Identify Controller"},
      {regs::opcode::kCreateIoCq, 1 | qsize << 16, 0x3, kIoCq, 0, "Create I/O CQ"},
      {regs::opcode::kCreateIoSq, 1 | qsize << 16, 0x1 | 1u << 16, kIoSq, 0, "Create I/O SQ"},
      {regs::opcode::kIdentify, regs::cns::kNamespace, 0, hostmem::kIdentify, 1, "Identify Namespace"},
  };
  for (const Cmd& c : cmds) {
    const auto r = host().admin_cqe(CompletionWait::poll, kCommandTimeoutPs, c.opcode, c.cdw10, c.cdw11, c.prp1, c.nsid);
    if (!r || (r->status & kStatusScSct) != 0) {
      host().close_phase(ph);
      host().message(std::string("NVMeInitAdminQueues: ") + c.what + " failed");
      host().finish(r ? ProbeStatus::eio : ProbeStatus::eintr);
      return false;
    }
  }
  host().close_phase(ph);
  return true;
}

}  // namespace nvmesim
