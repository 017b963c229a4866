#include "host/openbsd/openbsd_driver.hpp"

#include <memory>
#include <string>

#include "host/nvme_host.hpp"
#include "host/readiness.hpp"
#include "host/registry.hpp"
#include "models/nvme_regs.hpp"

namespace nvmesim {

namespace {
using probe_phase::kAdmin, probe_phase::kDisable, probe_phase::kEnable;
constexpr PhaseId kShutdown{4, "shutdown"};
// The second boot's probe (HostAction::reboot_probe), numbered like Linux's reboot_* phases so
// that summaries keep the two boots apart.
constexpr PhaseId kRebootDisable{12, "reboot_disable"}, kRebootEnable{13, "reboot_enable"},
    kRebootAdmin{14, "reboot_admin"};
constexpr uint32_t kDelayUs = 1000;                     // delay(1000) between two CSTS reads
constexpr uint64_t kShutdownPolls = 4000;               // nvme_shutdown: 4000 x (read, delay(1000))
constexpr int64_t kMs = 1'000'000'000;                  // ps
constexpr int64_t kIdentifyTimeoutPs = 10'000 * kMs;    // NVME_TIMO_IDENT
constexpr int64_t kQueueTimeoutPs = 5'000 * kMs;        // NVME_TIMO_QOP
constexpr uint32_t kIoEntries = 128;                    // the I/O queue's entries (NVME_IO_ENTRIES)
constexpr unsigned kIdentifyNnOffset = 516;             // Identify Controller NN, bytes 519:516
constexpr uint64_t kIoCq = 0x100000, kIoSq = 0x200000;  // bus addresses of I/O queue 1 (never DMA'd)
constexpr uint16_t kStatusScSct = 0x7FF;                // Status Field bits 10:0: SC and SCT
constexpr uint32_t kShstMask = regs::Csts{false, false, regs::Shst{3}, false, false, false}.encode();
constexpr uint32_t kShstComplete = regs::Csts{false, false, regs::Shst::complete, false, false, false}.encode();
}  // namespace

std::unique_ptr<HostDriver> make_openbsd_driver(nvme_host& host) { return std::make_unique<openbsd_driver>(host); }

const std::vector<PhaseId>& openbsd_driver::phases() const {
  static const std::vector<PhaseId> kAll{kDisable, kEnable, kAdmin, kShutdown, kRebootDisable, kRebootEnable, kRebootAdmin};
  return kAll;
}

PlatformPolicy openbsd_driver::platform_policy(const HostParams&) const {
  PlatformPolicy p = PlatformPolicy::serial_probe_only(100);  // HZ 100; the loops count delays
  p.shutdown = PlatformPolicy::Order::serial;
  return p;
}

void openbsd_driver::begin_trial(const DriverContext&) { cap_to_ = 0; }

void openbsd_driver::run(HostAction action) {
  host().set_log_prefix(host().dev() + ": ");
  switch (action) {
    case HostAction::probe: return probe(false);
    case HostAction::reboot_probe: return probe(true);
    case HostAction::shutdown: return shutdown();
    case HostAction::reset: break;
  }
  throw std::logic_error("openbsd_driver: no reset sequence");
}

bool openbsd_driver::ready(bool want, size_t phase) {
  // for (i = 0; read CSTS, RDY != want; ) { if (i++ > rdy_to) fail; delay(1000); } with
  // rdy_to = CAP.TO x 500: before read k, k delays of 1 ms lie behind, so "k > rdy_to" is
  // "slept > rdy_to ms", checked before the delay.
  WaitSpec s;
  s.mask = regs::Csts::kRdy;
  s.value = want ? regs::Csts::kRdy : 0;
  s.deadline.rule = Deadline::Rule::slept_over;
  s.deadline.check = Deadline::Check::before_sleep;
  s.deadline.amount = uint64_t{cap_to_} * 500 * static_cast<uint64_t>(kMs);
  s.sleep = SleepPolicy::udelay(kDelayUs);
  s.all_ones = WaitSpec::AllOnes::test;  // no all-ones test: all ones has RDY set
  s.op = want ? "enable" : "disable";
  s.limit_hint = "OpenBSD busy-waits 1 ms per read: use a shorter CAP.TO";
  return wait_until_ready(host(), s, phase).ready();
}

bool openbsd_driver::disable(size_t phase) {
  // nvme_disable: EN=1 and no CFS: wait RDY=1 first; then EN cleared, wait RDY=0.
  host().set_state(HostState::disable_wait);
  const uint32_t cc = host().read32(regs::kCc, "CC");
  if (cc & 1u) {
    const uint32_t csts = host().read32(regs::kCsts, "CSTS");
    if (!(csts & regs::Csts::kCfs) && !ready(true, phase)) return false;
  }
  host().write32(regs::kCc, cc & ~1u, "CC");
  return ready(false, phase);
}

bool openbsd_driver::enable(size_t phase) {
  host().set_state(HostState::admin_queue);
  const uint32_t cc = host().read32(regs::kCc, "CC");
  if (cc & 1u) return ready(true, phase);
  const uint32_t depth = hostmem::kAdminQueueDepth;  // OpenBSD's 128 entries; the host memory holds 32
  host().write32(regs::kAsq, static_cast<uint32_t>(hostmem::kAdminSq), "ASQ");
  host().write32(regs::kAsq + 4, static_cast<uint32_t>(hostmem::kAdminSq >> 32), "ASQ+4");
  host().write32(regs::kAcq, static_cast<uint32_t>(hostmem::kAdminCq), "ACQ");
  host().write32(regs::kAcq + 4, static_cast<uint32_t>(hostmem::kAdminCq >> 32), "ACQ+4");
  host().write32(regs::kAqa, regs::Aqa{depth - 1, depth - 1}.encode(), "AQA");
  host().set_state(HostState::enable_wait);
  regs::Cc next = regs::Cc::decode(cc);
  next.en = true;
  next.css = next.mps = next.ams = 0;
  next.shn = regs::Shn::none;
  next.iosqes = 6;
  next.iocqes = 4;
  host().write32(regs::kCc, next.encode(), "CC");
  return ready(true, phase);
}

void openbsd_driver::probe(bool reboot) {
  host().set_state(HostState::pci_enable);
  host().reset_admin_queue(hostmem::kAdminQueueDepth);
  cap_to_ = host().read_cap().to;
  size_t ph = host().open_phase(reboot ? kRebootDisable : kDisable);
  bool ok = disable(ph);
  host().close_phase(ph);
  if (!ok) {
    host().message("unable to disable controller");
    return host().finish(ProbeStatus::enodev);
  }
  ph = host().open_phase(reboot ? kRebootEnable : kEnable);
  ok = enable(ph);
  host().close_phase(ph);
  if (!ok) {
    host().message("unable to enable controller");
    return host().finish(ProbeStatus::enodev);
  }
  if (!admin_setup(reboot ? kRebootAdmin : kAdmin)) return;
  host().finish(ProbeStatus::ok);
  host().namespace_ready();
}

bool openbsd_driver::admin(const char* failed_line, int64_t timeout_ps, uint8_t opcode, uint32_t cdw10,
                           uint32_t cdw11, uint64_t prp1, uint32_t nsid, bool finish) {
  const auto r = host().admin_cqe(CompletionWait::poll, timeout_ps, opcode, cdw10, cdw11, prp1, nsid);
  if (r && (r->status & kStatusScSct) == 0) return true;
  host().message(failed_line);
  if (finish) host().finish(r ? ProbeStatus::eio : ProbeStatus::eintr);
  return false;
}

bool openbsd_driver::admin_setup(const PhaseId& phase) {
  const size_t ph = host().open_phase(phase);
  host().set_state(HostState::admin_commands);
  const uint32_t qsize = kIoEntries - 1;  // 0's based
  bool ok = admin("unable to identify controller", kIdentifyTimeoutPs, regs::opcode::kIdentify,
                  regs::cns::kController, 0, hostmem::kIdentify);
  const uint32_t nn = ok ? regs::le32(host().memory.view(hostmem::kIdentify) + kIdentifyNnOffset) : 0;
  ok = ok &&
       admin("unable to create io q", kQueueTimeoutPs, regs::opcode::kCreateIoCq, 1 | qsize << 16,
             0x3 /* contiguous, interrupts */, kIoCq) &&
       admin("unable to create io q", kQueueTimeoutPs, regs::opcode::kCreateIoSq, 1 | qsize << 16,
             0x1 /* contiguous */ | 1u << 16, kIoSq);
  for (uint32_t ns = 1; ok && ns <= nn; ++ns)
    ok = admin("unable to identify namespace", kIdentifyTimeoutPs, regs::opcode::kIdentify, regs::cns::kNamespace, 0,
               hostmem::kIdentify, ns);
  host().close_phase(ph);
  return ok;
}

void openbsd_driver::shutdown() {
  // nvme_shutdown: delete the I/O queue pair, CC.SHN = 01b, 4000 x (read CSTS, SHST complete ->
  // done, delay(1000)); as the one loop: read, test, sleep, deadline after the sleep, the
  // delays slept > 3999 ms ending it after the 4000th.
  const size_t ph = host().open_phase(kShutdown);
  host().set_state(HostState::disable_wait);
  bool deleted = admin("unable to delete q, disabling", kQueueTimeoutPs, regs::opcode::kDeleteIoSq, 1, 0, 0, 0, false);
  deleted = deleted &&
            admin("unable to delete q, disabling", kQueueTimeoutPs, regs::opcode::kDeleteIoCq, 1, 0, 0, 0, false);
  bool done = false;
  if (deleted) {
    regs::Cc cc = regs::Cc::decode(host().read32(regs::kCc, "CC"));
    cc.shn = regs::Shn::normal;
    host().write32(regs::kCc, cc.encode(), "CC");
    WaitSpec s;
    s.mask = kShstMask;
    s.value = kShstComplete;
    s.deadline.rule = Deadline::Rule::slept_over;
    s.deadline.check = Deadline::Check::after_sleep;
    s.deadline.amount = (kShutdownPolls - 1) * static_cast<uint64_t>(kMs);
    s.sleep = SleepPolicy::udelay(kDelayUs);
    s.all_ones = WaitSpec::AllOnes::test;  // all ones has SHST = 11b: not complete
    s.op = "shutdown";
    s.kind = "shutdown wait";
    s.limit_hint = "OpenBSD busy-waits 1 ms per read";
    done = wait_until_ready(host(), s, ph).ready();
    if (!done) host().message("unable to shutdown, disabling");
  }
  if (!done) disable(ph);  // its own failure is not reported
  host().close_phase(ph);
  host().finish(done ? ProbeStatus::ok : ProbeStatus::enodev);
}

}  // namespace nvmesim
