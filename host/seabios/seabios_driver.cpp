#include "host/seabios/seabios_driver.hpp"

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
constexpr int64_t kCommandTimeoutPs = 5'000'000'000'000;  // nvme_wait: 5000 ms
constexpr int64_t kMsPs = 1'000'000'000;
constexpr unsigned kIdentifyNnOffset = 516;               // Identify Controller NN, bytes 519:516
constexpr uint64_t kIoCq = 0x100000, kIoSq = 0x200000;    // bus addresses of I/O queue 1 (never DMA'd)
constexpr uint32_t kCqPageEntries = 4096 / 16;            // NVME_PAGE_SIZE / sizeof(struct nvme_cqe)
constexpr uint16_t kStatusSc = 0xFF;                      // nvme_is_cqe_success: SC (status bits 8:1) only
// __warn_timeout's line for the warn_timeout() in nvme_wait_csts_rdy and in nvme_wait (41514a7a).
constexpr const char* kWaitTimeoutLine = "WARNING - Timeout at nvme_wait_csts_rdy:572!";
constexpr const char* kCommandTimeoutLine = "WARNING - Timeout at nvme_wait:147!";
}  // namespace

std::unique_ptr<HostDriver> make_seabios_driver(nvme_host& host) { return std::make_unique<seabios_driver>(host); }

const std::vector<PhaseId>& seabios_driver::phases() const { return probe_phase::disable_enable_admin(); }

PlatformPolicy seabios_driver::platform_policy(const HostParams&) const {
  PlatformPolicy p;
  p.attach = PlatformPolicy::Order::parallel;  // run_thread(nvme_controller_setup) per function
  p.shutdown = PlatformPolicy::Order::unsupported;
  p.reset = false;
  p.timer_hz = 1000;  // unused: the waits read a fine clock (Deadline::Rule::elapsed_over)
  return p;
}

void seabios_driver::begin_trial(const DriverContext&) {}

void seabios_driver::fail(ProbeStatus status) {
  host().message("Failed to enable NVMe controller.");
  host().finish(status);
}

void seabios_driver::run(HostAction action) {
  if (action != HostAction::probe) throw std::logic_error("seabios_driver: only nvme_controller_setup exists");
  host().set_state(HostState::pci_enable);
  host().reset_admin_queue(hostmem::kAdminQueueDepth);
  (void)host().read32(regs::kVs, "VS");  // u32 version = reg->vs (printed at level 3 only)
  const regs::Cap cap = host().read_cap();
  cap_mqes_ = cap.mqes;
  if (!(cap.css & 1u)) return fail(ProbeStatus::enodev);  // "doesn't speak NVMe command set" (level 3)
  if (!controller_enable() || !admin_setup()) return;
  host().finish(ProbeStatus::ok);
  host().namespace_ready();
}

int seabios_driver::wait_csts_rdy(bool rdy, size_t phase) {
  // max_to = 500 ms x CAP.TO from a fresh CAP read; to = timer_calc(max_to); then the loop.
  const regs::Cap cap = host().read_cap();
  WaitSpec s;
  s.mask = regs::Csts::kRdy;
  s.value = rdy ? regs::Csts::kRdy : 0;
  s.deadline.rule = Deadline::Rule::elapsed_over;  // timer_check: (s32)(now - to) > 0
  s.deadline.check = Deadline::Check::after_sleep;
  s.deadline.amount = uint64_t{cap.to} * 500 * static_cast<uint64_t>(kMsPs);
  s.sleep = SleepPolicy::yield(kYieldNs);
  s.all_ones = WaitSpec::AllOnes::test;  // no all-ones test: all ones has RDY and CFS set
  s.fail_on_cfs = true;                  // "NVMe fatal error during controller shutdown" (level 3)
  s.op = rdy ? "enable" : "disable";
  s.limit_hint = "SeaBIOS yields (1 us) between reads: use a shorter CAP.TO or raise host.max_polls_per_wait";
  const WaitResult r = wait_until_ready(host(), s, phase);
  if (r.ready()) return 0;
  if (r.end == WaitResult::End::timed_out) host().message(kWaitTimeoutLine);
  return -1;
}

bool seabios_driver::controller_enable() {
  size_t ph = host().open_phase(kDisable);
  host().set_state(HostState::disable_wait);
  host().write32(regs::kCc, 0, "CC");  // ctrl->reg->cc = 0
  int rc = wait_csts_rdy(false, ph);
  host().close_phase(ph);
  if (rc != 0) {
    host().message("NVMe fatal error during controller shutdown");
    return fail(ProbeStatus::enodev), false;
  }
  host().set_state(HostState::admin_queue);
  (void)host().read_cap();  // doorbell_stride = 4 << CAP.DSTRD
  const uint32_t depth = hostmem::kAdminQueueDepth;
  host().write32(regs::kAqa, regs::Aqa{depth - 1, depth - 1}.encode(), "AQA");
  host().write32(regs::kAsq, static_cast<uint32_t>(hostmem::kAdminSq), "ASQ");
  host().write32(regs::kAsq + 4, static_cast<uint32_t>(hostmem::kAdminSq >> 32), "ASQ+4");
  host().write32(regs::kAcq, static_cast<uint32_t>(hostmem::kAdminCq), "ACQ");
  host().write32(regs::kAcq + 4, static_cast<uint32_t>(hostmem::kAdminCq >> 32), "ACQ+4");
  ph = host().open_phase(kEnable);
  host().set_state(HostState::enable_wait);
  // NVME_CC_EN | IOCQES 4 << 20 | IOSQES 6 << 16: MPS 0, CSS 0, AMS 0, SHN 0.
  host().write32(regs::kCc, regs::Cc{true, 0, 0, 0, regs::Shn::none, 6, 4, false}.encode(), "CC");
  rc = wait_csts_rdy(true, ph);
  host().close_phase(ph);
  if (rc != 0) {
    host().message("NVMe fatal error while enabling controller");
    return fail(ProbeStatus::enodev), false;
  }
  return true;
}

bool seabios_driver::admin(uint8_t opcode, uint32_t cdw10, uint32_t cdw11, uint64_t prp1, uint32_t nsid,
                           bool& timed_out, uint16_t& status) {
  // nvme_wait: yield until the CQE's phase tag flips, up to 5 s (`WARNING - Timeout at
  // nvme_wait:147!`, then an all-ones CQE); nvme_is_cqe_success tests SC only.
  const auto r = host().admin_cqe(CompletionWait::poll, kCommandTimeoutPs, opcode, cdw10, cdw11, prp1, nsid);
  timed_out = !r;
  if (!r) {
    host().message(kCommandTimeoutLine);
    status = 0xFFFF;
    return false;
  }
  status = r->status;
  return (r->status & kStatusSc) == 0;
}

bool seabios_driver::admin_setup() {
  const size_t ph = host().open_phase(kAdmin);
  host().set_state(HostState::admin_commands);
  bool timed_out = false;
  uint16_t status = 0;
  auto failed = [&](const std::string& line, ProbeStatus outcome) {
    host().close_phase(ph);
    if (!line.empty()) host().message(line);
    fail(outcome);
    return false;
  };
  auto status_of = [&] { return timed_out ? ProbeStatus::eintr : ProbeStatus::eio; };
  if (!admin(regs::opcode::kIdentify, regs::cns::kController, 0, hostmem::kIdentify, 0, timed_out, status))
    return failed("NVMe couldn't identify controller.", status_of());
  const uint32_t nn = regs::le32(host().memory.view(hostmem::kIdentify) + kIdentifyNnOffset);
  // No namespace: nothing to boot from; SeaBIOS drops the controller without a line of its own.
  // The device model reports NN = controllers[].identify.nn (default 0: every such controller
  // ends here, enodev, after the readiness waits and Identify).
  if (nn == 0) return failed("", ProbeStatus::enodev);
  // Create I/O CQ 1 and SQ 1: min(CAP.MQES + 1, 256) entries, physically contiguous.
  const uint32_t mask = std::min<uint32_t>(uint32_t{cap_mqes_} + 1, kCqPageEntries) - 1;
  char line[64];
  if (!admin(regs::opcode::kCreateIoCq, mask << 16 | 1, 1, kIoCq, 0, timed_out, status)) {
    std::snprintf(line, sizeof line, "create io cq failed: status %04x", status);
    return failed(line, status_of());
  }
  if (!admin(regs::opcode::kCreateIoSq, mask << 16 | 1, 1u << 16 | 1, kIoSq, 0, timed_out, status)) {
    std::snprintf(line, sizeof line, "create io sq failed: status %04x", status);
    return failed(line, status_of());
  }
  for (uint32_t ns = 1; ns <= nn; ++ns) {
    if (!admin(regs::opcode::kIdentify, regs::cns::kNamespace, 0, hostmem::kIdentify, ns, timed_out, status))
      host().message("NVMe couldn't identify namespace " + std::to_string(ns) + ".");  // the namespace is skipped
  }
  host().close_phase(ph);
  return true;
}

}  // namespace nvmesim
