#include "host/uboot/uboot_driver.hpp"

#include <algorithm>
#include <cerrno>
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
constexpr uint32_t kAdminDepth = 2;                       // NVME_AQ_DEPTH
constexpr uint32_t kIoDepth = 2;                          // NVME_Q_DEPTH
constexpr int64_t kAdminTimeoutPs = 6'000'000'000'000;    // ADMIN_TIMEOUT 60 x 100000 us = 6 s
constexpr unsigned kIdentifyNnOffset = 516;               // Identify Controller NN, bytes 519:516
constexpr uint64_t kIoCq = 0x100000, kIoSq = 0x200000;    // bus addresses of I/O queue 1 (never DMA'd)
}  // namespace

std::unique_ptr<HostDriver> make_uboot_driver(nvme_host& host) { return std::make_unique<uboot_driver>(host); }

const std::vector<PhaseId>& uboot_driver::phases() const { return probe_phase::disable_enable_admin(); }

PlatformPolicy uboot_driver::platform_policy(const HostParams&) const {
  return PlatformPolicy::serial_probe_only(1000);  // device_probe of each nvme device in turn; get_timer(): ms
}

void uboot_driver::begin_trial(const DriverContext&) { ctrl_config_ = 0; }

void uboot_driver::fail(ProbeStatus status, int err) {
  // The driver returns the error silently; the driver model reports the failed probe.
  host().message("Failed to probe 'nvme#" + std::to_string(host().index()) + "': err=" + std::to_string(err));
  host().finish(status);
}

void uboot_driver::run(HostAction action) {
  if (action != HostAction::probe) throw std::logic_error("uboot_driver: only the probe exists");
  host().set_state(HostState::pci_enable);
  host().reset_admin_queue(kAdminDepth);
  if (!pci_setup() || !configure_admin_queue() || !admin_setup()) return;
  host().finish(ProbeStatus::ok);
  host().namespace_ready();
}

bool uboot_driver::pci_setup() {
  // nvme_probe / nvme_init: a CSTS of all ones means no controller answers (the one all-ones
  // test): -ENODEV, with the text U-Boot prints there (its out-of-memory message, reused at this
  // site in every release we read), so a log shows what U-Boot shows.
  if (host().read32(regs::kCsts, "CSTS") == regs::kAllOnes32) {
    host().message("Error: nvme#" + std::to_string(host().index()) + ": Out of memory!");
    fail(ProbeStatus::enodev, -ENODEV);
    return false;
  }
  const regs::Cap cap = host().read_cap();
  cap_to_ = cap.to;
  cap_mpsmin_ = cap.mpsmin;
  io_depth_ = std::min<uint32_t>(uint32_t{cap.mqes} + 1, kIoDepth);
  return true;
}

int uboot_driver::wait_ready(bool enabled, size_t phase) {
  WaitSpec s;
  s.mask = regs::Csts::kRdy;
  s.value = enabled ? regs::Csts::kRdy : 0;
  s.deadline.rule = Deadline::Rule::reached;        // get_timer(start) < timeout, in ms
  s.deadline.check = Deadline::Check::before_read;  // a while loop: TO = 0 reads nothing
  s.deadline.amount = uint64_t{cap_to_} * 500;
  s.sleep.reset();                                  // a tight loop
  s.all_ones = WaitSpec::AllOnes::test;             // all ones has RDY set
  s.op = enabled ? "enable" : "disable";
  s.limit_hint = "U-Boot polls without sleeping: use a shorter CAP.TO";
  return wait_until_ready(host(), s, phase).ready() ? 0 : -ETIME;
}

bool uboot_driver::configure_admin_queue() {
  // nvme_configure_admin_queue: page size check, disable, admin queue registers, enable.
  if (cap_mpsmin_ > 0) {  // 4 KiB pages only; the message is debug()
    fail(ProbeStatus::enodev, -ENODEV);
    return false;
  }
  size_t ph = host().open_phase(kDisable);
  host().set_state(HostState::disable_wait);
  ctrl_config_ &= ~(regs::Cc{false, 0, 0, 0, regs::Shn::abrupt, 0, 0, false}.encode() | 1u);
  host().write32(regs::kCc, ctrl_config_, "CC");
  int rc = wait_ready(false, ph);
  host().close_phase(ph);
  if (rc != 0) return fail(ProbeStatus::enodev, rc), false;
  host().set_state(HostState::admin_queue);
  host().write32(regs::kAqa, regs::Aqa{kAdminDepth - 1, kAdminDepth - 1}.encode(), "AQA");
  host().write32(regs::kAsq, static_cast<uint32_t>(hostmem::kAdminSq), "ASQ");
  host().write32(regs::kAsq + 4, static_cast<uint32_t>(hostmem::kAdminSq >> 32), "ASQ+4");
  host().write32(regs::kAcq, static_cast<uint32_t>(hostmem::kAdminCq), "ACQ");
  host().write32(regs::kAcq + 4, static_cast<uint32_t>(hostmem::kAdminCq >> 32), "ACQ+4");
  ph = host().open_phase(kEnable);
  host().set_state(HostState::enable_wait);
  // CSS NVM, MPS 0 (4 KiB), round robin, SHN none, 64-byte SQEs, 16-byte CQEs; then EN.
  ctrl_config_ = regs::Cc{true, 0, 0, 0, regs::Shn::none, 6, 4, false}.encode();
  host().write32(regs::kCc, ctrl_config_, "CC");
  rc = wait_ready(true, ph);
  host().close_phase(ph);
  if (rc != 0) return fail(ProbeStatus::enodev, rc), false;
  return true;
}

int uboot_driver::admin(uint8_t opcode, uint32_t cdw10, uint32_t cdw11, uint64_t prp1, uint32_t nsid, uint32_t* dw0) {
  // nvme_submit_sync_cmd: -ETIMEDOUT after 6 s; a CQE whose Status Field is not 0 is printed
  // (the status without the phase tag, the phase and the CQ slot, in hex and decimal) and is -EIO.
  const auto r = host().admin_cqe(CompletionWait::poll, kAdminTimeoutPs, opcode, cdw10, cdw11, prp1, nsid);
  if (!r) return -ETIMEDOUT;
  if (!r->ok()) {
    char line[80];
    std::snprintf(line, sizeof line, "ERROR: status = %x, phase = %d, head = %d", r->status, r->phase ? 1 : 0, r->head);
    host().message(line);
    return -EIO;
  }
  if (dw0) *dw0 = r->dw0;
  return 0;
}

bool uboot_driver::admin_setup() {
  // nvme_setup_io_queues: Set Features (Number of Queues) for one queue pair; its failure
  // (timeout or error status) fails the probe with its errno. Creating the queue pair may fail
  // without failing the probe (the queues are then deleted again). Then
  // nvme_get_info_from_identify: its failure is not checked, NN stays 0 and no namespace is
  // looked at. Identify Namespace for each of NN namespaces creates their block devices; a
  // failure fails the probe with -EIO.
  const size_t ph = host().open_phase(kAdmin);
  host().set_state(HostState::admin_commands);
  auto failed = [&](int rc) {
    host().close_phase(ph);
    fail(rc == -ETIMEDOUT ? ProbeStatus::eintr : ProbeStatus::eio, rc);
    return false;
  };
  uint32_t dw0 = 0;
  if (const int rc = admin(regs::opcode::kSetFeatures, 0x07 /* Number of Queues */, 0, 0, 0, &dw0)) return failed(rc);
  const uint32_t qsize = io_depth_ - 1;
  if (admin(regs::opcode::kCreateIoCq, 1 | qsize << 16, 0x3 /* contiguous, interrupts */, kIoCq) != 0) {
    admin(regs::opcode::kDeleteIoCq, 1, 0, 0);
  } else if (admin(regs::opcode::kCreateIoSq, 1 | qsize << 16, 0x5 /* contiguous, medium */ | 1u << 16, kIoSq) != 0) {
    admin(regs::opcode::kDeleteIoSq, 1, 0, 0);
    admin(regs::opcode::kDeleteIoCq, 1, 0, 0);
  }
  uint32_t nn = 0;
  if (admin(regs::opcode::kIdentify, regs::cns::kController, 0, hostmem::kIdentify) == 0)
    nn = regs::le32(host().memory.view(hostmem::kIdentify) + kIdentifyNnOffset);
  for (uint32_t ns = 1; ns <= nn; ++ns) {
    if (admin(regs::opcode::kIdentify, regs::cns::kNamespace, 0, hostmem::kIdentify, ns) != 0)
      return failed(-EIO);  // whatever the cause
  }
  host().close_phase(ph);
  return true;
}

}  // namespace nvmesim
