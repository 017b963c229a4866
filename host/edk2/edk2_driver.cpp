#include "host/edk2/edk2_driver.hpp"

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
constexpr uint32_t kAdminDepth = 2;                       // NVME_ASQ_SIZE / NVME_ACQ_SIZE + 1
constexpr uint32_t kIoDepth = 2;                          // NVME_CSQ_SIZE / NVME_CCQ_SIZE + 1
constexpr uint32_t kStallUs = 1000;                       // Stall(1000) before each CSTS read
constexpr int64_t kAdminTimeoutPs = 5'000'000'000'000;    // NVME_GENERIC_TIMEOUT, 5 s
constexpr unsigned kIdentifyNnOffset = 516;               // Identify Controller NN, bytes 519:516
constexpr uint64_t kIoCq = 0x100000, kIoSq = 0x200000;    // bus addresses of I/O queues (never DMA'd)
constexpr uint16_t kStatusScSct = 0x7FF;                  // Status Field bits 10:0: SC and SCT
}  // namespace

std::unique_ptr<HostDriver> make_edk2_driver(nvme_host& host) { return std::make_unique<edk2_driver>(host); }

const std::vector<PhaseId>& edk2_driver::phases() const { return probe_phase::disable_enable_admin(); }

PlatformPolicy edk2_driver::platform_policy(const HostParams&) const {
  // The firmware timer tick (OVMF: 10 ms); the loops here count stalls.
  return PlatformPolicy::serial_probe_only(100);
}

void edk2_driver::begin_trial(const DriverContext&) {}

void edk2_driver::fail(const char* status, ProbeStatus outcome) {
  host().message(std::string("NvmExpressDriverBindingStart: end with ") + status);
  host().finish(outcome);
}

void edk2_driver::run(HostAction action) {
  if (action != HostAction::probe) throw std::logic_error("edk2_driver: only DriverBindingStart exists");
  if (host().detailed()) host().message("NvmExpressDriverBindingStart: start");
  host().set_state(HostState::pci_enable);
  host().reset_admin_queue(kAdminDepth);
  if (!init_controller() || !admin_setup()) return;
  if (host().detailed()) host().message("NvmExpressDriverBindingStart: end successfully");
  host().finish(ProbeStatus::ok);
  host().namespace_ready();
}

bool edk2_driver::wait_ready(bool enabled, size_t phase) {
  // for (i = max(TO, 1) x 500; i != 0; --i) { Stall(1 ms); read CSTS; if RDY == wanted break; }
  // As the one loop (read, test, deadline, sleep): the first stall before the loop, then after
  // read k (k = 0 ...) k stalls of the loop lie behind; the loop ends at read N - 1, i.e. when
  // the stalls slept exceed (N - 2) ms. N >= 500, so N - 2 > 0.
  const uint64_t n = uint64_t{std::max<uint8_t>(cap_to_, 1)} * 500;
  host().sleep(SleepPolicy::udelay(kStallUs));
  ++host().phase(phase).sleeps;
  WaitSpec s;
  s.mask = regs::Csts::kRdy;
  s.value = enabled ? regs::Csts::kRdy : 0;
  s.deadline.rule = Deadline::Rule::slept_over;
  s.deadline.check = Deadline::Check::before_sleep;
  s.deadline.amount = (n - 2) * 1'000'000'000;
  s.sleep = SleepPolicy::udelay(kStallUs);
  s.all_ones = WaitSpec::AllOnes::test;  // no all-ones test: all ones has RDY set
  s.op = enabled ? "enable" : "disable";
  s.limit_hint = "EDK2 stalls 1 ms per read: use a shorter CAP.TO";
  return wait_until_ready(host(), s, phase).ready();
}

bool edk2_driver::init_controller() {
  const regs::Cap cap = host().read_cap();
  cap_to_ = cap.to;
  if (!(cap.css & 1u)) return fail("Unsupported"), false;  // EFI_UNSUPPORTED: no NVM command set
  // NvmeDisableController: CC read, CC.EN=0 written whatever it was, wait RDY=0.
  size_t ph = host().open_phase(kDisable);
  host().set_state(HostState::disable_wait);
  const uint32_t cc = host().read32(regs::kCc, "CC");
  host().write32(regs::kCc, cc & ~1u, "CC");
  bool ok = wait_ready(false, ph);
  host().close_phase(ph);
  if (host().detailed())
    host().message(std::string("NVMe controller is disabled with status [") + (ok ? "Success" : "Device Error") + "].");
  if (!ok) return fail("Device Error"), false;
  host().set_state(HostState::admin_queue);
  host().write32(regs::kAqa, regs::Aqa{kAdminDepth - 1, kAdminDepth - 1}.encode(), "AQA");
  host().write32(regs::kAsq, static_cast<uint32_t>(hostmem::kAdminSq), "ASQ");
  host().write32(regs::kAsq + 4, static_cast<uint32_t>(hostmem::kAdminSq >> 32), "ASQ+4");
  host().write32(regs::kAcq, static_cast<uint32_t>(hostmem::kAdminCq), "ACQ");
  host().write32(regs::kAcq + 4, static_cast<uint32_t>(hostmem::kAdminCq >> 32), "ACQ+4");
  // NvmeEnableController: CC = EN | IOSQES 6 | IOCQES 4 written without a read.
  ph = host().open_phase(kEnable);
  host().set_state(HostState::enable_wait);
  host().write32(regs::kCc, regs::Cc{true, 0, 0, 0, regs::Shn::none, 6, 4, false}.encode(), "CC");
  ok = wait_ready(true, ph);
  host().close_phase(ph);
  if (host().detailed())
    host().message(std::string("NVMe controller is enabled with status [") + (ok ? "Success" : "Time out") + "].");
  if (!ok) return fail("Time out"), false;
  return true;
}

const char* edk2_driver::admin(uint8_t opcode, uint32_t cdw10, uint32_t cdw11, uint64_t prp1, uint32_t nsid) {
  // NvmExpressPassThru: EFI_TIMEOUT after NVME_GENERIC_TIMEOUT; a CQE with SCT or SC not 0 is
  // EFI_DEVICE_ERROR (its status dump is DEBUG_VERBOSE: not in a DEBUG build's log).
  const auto r = host().admin_cqe(CompletionWait::poll, kAdminTimeoutPs, opcode, cdw10, cdw11, prp1, nsid);
  if (!r) {
    host().message("NvmExpressPassThru: Timeout occurs for an NVMe command.");
    return "Time out";
  }
  return (r->status & kStatusScSct) != 0 ? "Device Error" : nullptr;
}

bool edk2_driver::admin_setup() {
  // Identify Controller, Create I/O CQ 1 and 2, Create I/O SQ 1 and 2, Identify Namespace per
  // namespace; the first that fails ends DriverBindingStart with its EFI status.
  const size_t ph = host().open_phase(kAdmin);
  host().set_state(HostState::admin_commands);
  const char* err = admin(regs::opcode::kIdentify, regs::cns::kController, 0, hostmem::kIdentify);
  const uint32_t nn = err ? 0 : regs::le32(host().memory.view(hostmem::kIdentify) + kIdentifyNnOffset);
  const uint32_t qsize = kIoDepth - 1;
  for (uint32_t qid = 1; !err && qid <= 2; ++qid)
    err = admin(regs::opcode::kCreateIoCq, qid | qsize << 16, 0x1 /* contiguous, no interrupts */, kIoCq * qid);
  for (uint32_t qid = 1; !err && qid <= 2; ++qid)
    err = admin(regs::opcode::kCreateIoSq, qid | qsize << 16, 0x1 | qid << 16, kIoSq * qid);
  for (uint32_t ns = 1; !err && ns <= nn; ++ns)
    err = admin(regs::opcode::kIdentify, regs::cns::kNamespace, 0, hostmem::kIdentify, ns);
  host().close_phase(ph);
  if (err) fail(err, std::string(err) == "Time out" ? ProbeStatus::eintr : ProbeStatus::eio);
  return !err;
}

}  // namespace nvmesim
