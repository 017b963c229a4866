#include "host/openvmm/openvmm_driver.hpp"

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
constexpr uint64_t kMsPs = 1'000'000'000;
constexpr uint64_t kFloorMs = 3000;                       // ready_timeout with CAP.TO = 0: 3 s
constexpr uint64_t kIoCq = 0x100000, kIoSq = 0x200000;    // bus addresses of I/O queue 1 (never DMA'd)
constexpr uint16_t kStatusScSct = 0x7FF;                  // Status Field bits 10:0: SC and SCT

std::string hex32(uint32_t v) {
  char b[16];
  std::snprintf(b, sizeof b, "0x%x", v);
  return b;
}
}  // namespace

std::unique_ptr<HostDriver> make_openvmm_driver(nvme_host& host) { return std::make_unique<openvmm_driver>(host); }

const std::vector<PhaseId>& openvmm_driver::phases() const { return probe_phase::disable_enable_admin(); }

PlatformPolicy openvmm_driver::platform_policy(const HostParams&) const {
  return PlatformPolicy::serial_probe_only(1000);  // the clock is unused: the waits read Instant
}

void openvmm_driver::begin_trial(const DriverContext& context) { old_ = context.host->driver_release == "old"; }

void openvmm_driver::fail(const std::string& text, ProbeStatus status) {
  host().message("nvme_driver: " + host().context().fn->address + ": " + text);
  host().finish(status);
}

void openvmm_driver::run(HostAction action) {
  if (action != HostAction::probe) throw std::logic_error("openvmm_driver: only the driver's init exists");
  host().set_state(HostState::pci_enable);
  host().reset_admin_queue(hostmem::kAdminQueueDepth);
  const regs::Cap cap = host().read_cap();  // DeviceRegisters::new
  cap_to_ = cap.to;
  cap_mqes_ = cap.mqes;
  size_t ph = host().open_phase(kDisable);
  host().set_state(HostState::disable_wait);
  const uint32_t cc = host().read32(regs::kCc, "CC");
  host().write32(regs::kCc, cc & ~1u, "CC");
  bool ok = wait_ready(false, ph, host().now_rel());
  host().close_phase(ph);
  if (!ok) return;
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
  ok = wait_ready(true, ph, host().now_rel());
  host().close_phase(ph);
  if (!ok || !admin_setup()) return;
  host().finish(ProbeStatus::ok);
  host().namespace_ready();
}

bool openvmm_driver::wait_ready(bool enabled, size_t phase, int64_t since_ps) {
  WaitSpec s;
  s.mask = regs::Csts::kRdy;
  s.value = enabled ? regs::Csts::kRdy : 0;
  uint64_t timeout_ms = 0;
  if (old_) {
    s.deadline.rule = Deadline::Rule::never;
  } else {
    const regs::Cap cap = host().read_cap();  // ready_timeout(self.cap()), after Instant::now()
    timeout_ms = cap.to == 0 ? kFloorMs : uint64_t{cap.to} * 500;
    s.deadline.rule = Deadline::Rule::elapsed_reached;
    s.deadline.since_ps = since_ps;
    s.deadline.amount = timeout_ms * kMsPs;
  }
  s.deadline.check = Deadline::Check::before_sleep;
  s.sleep = SleepPolicy::openvmm_backoff(0, kYieldNs);
  s.all_ones = WaitSpec::AllOnes::fail;
  s.op = enabled ? "enable" : "reset";
  s.limit_hint = old_ ? "OpenVMM \"old\" has no ready timeout and polls for ever: the limit ended this wait"
                      : "OpenVMM sleeps at most 15 ms per read: use a shorter CAP.TO";
  const WaitResult r = wait_until_ready(host(), s, phase);
  if (r.ready()) return true;
  if (r.end == WaitResult::End::gone) {
    fail("device is gone (csts " + hex32(r.last) + ")", ProbeStatus::enodev);
  } else {
    fail("controller did not become " + std::string(enabled ? "ready" : "disabled") + " within " +
             std::to_string(timeout_ms) + " ms (csts " + hex32(r.last) + ")",
         ProbeStatus::enodev);
  }
  return false;
}

bool openvmm_driver::admin_setup() {
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
      {regs::opcode::kIdentify, regs::cns::kController, 0, hostmem::kIdentify, 0, "identify controller"},
      {regs::opcode::kCreateIoCq, 1 | qsize << 16, 0x3, kIoCq, 0, "create io completion queue 1"},
      {regs::opcode::kCreateIoSq, 1 | qsize << 16, 0x1 | 1u << 16, kIoSq, 0, "create io submission queue 1"},
      {regs::opcode::kIdentify, regs::cns::kNamespace, 0, hostmem::kIdentify, 1, "identify namespace 1"},
  };
  for (const Cmd& c : cmds) {
    const auto r = host().admin_cqe(CompletionWait::poll, kMaxTrialPs, c.opcode, c.cdw10, c.cdw11, c.prp1, c.nsid);
    if (!r || (r->status & kStatusScSct) != 0) {
      host().close_phase(ph);
      fail(std::string("failed to ") + c.what + " (status " + hex32(r ? r->status : 0xFFFFu) + ")", ProbeStatus::eio);
      return false;
    }
  }
  host().close_phase(ph);
  return true;
}

}  // namespace nvmesim
