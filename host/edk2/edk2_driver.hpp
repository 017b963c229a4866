#pragma once
// EDK2's NvmExpressDxe (MdeModulePkg/Bus/Pci/NvmExpressDxe at c5aa7e7d; facts:
// shared/reference/other-hosts.md and the EDK2 section of the host facts, cases E1, E2).
// Described in our own words; no EDK2 code is used.
//
// NvmeControllerInit: read CAP (two 32-bit reads), require CAP.CSS bit 0 (NVM). Disable: read
// CC, write CC with EN=0 (always: no short cut), wait RDY=0. Write AQA = 0x00010001 (2-entry
// admin queues), ASQ and ACQ (two 32-bit writes each). Enable: write CC = EN | IOSQES 6 | IOCQES 4
// without a read, wait RDY=1. Identify Controller, Create I/O CQ 1 and 2, Create I/O SQ 1 and 2
// (2 entries each), Identify Namespace per namespace; `NvmExpressDriverBindingStart: end
// successfully`. No ExitBootServices handler: the OS gets the controller enabled.
// The readiness wait: N = max(CAP.TO, 1) x 500 iterations of `Stall(1000)` (1 ms busy), read
// CSTS, test RDY: a stall before every read, the failure after N stalls and N reads. No all-ones
// and no CFS test (all ones has RDY=1: the disable wait times out, the enable wait "succeeds").
// Admin commands wait for their CQE with NVME_GENERIC_TIMEOUT = 5 s (`Time out`, status eintr);
// a CQE with SCT or SC not 0 is EFI_DEVICE_ERROR (`Device Error`, status eio).
// Not modelled: the timer-tick granularity of the command timeout (OVMF 10 ms) and the nested
// re-initialisation PassThru starts on a command timeout (the model fails the probe with
// `NvmExpressPassThru: Timeout occurs for an NVMe command.`), the shutdown at ResetSystem, the
// Identify data dumps, the parameters of the facts (command_timeout, timer_tick, stall_overshoot).
#include <cstdint>
#include <vector>

#include "host/driver.hpp"

namespace nvmesim {

class edk2_driver final : public HostDriver {
 public:
  explicit edk2_driver(nvme_host& host) : HostDriver(host) {}
  const char* name() const override { return "edk2"; }
  const std::vector<PhaseId>& phases() const override;
  /// One controller after the other (DriverBindingStart per handle); no shutdown, no reset.
  PlatformPolicy platform_policy(const HostParams& host) const override;
  void begin_trial(const DriverContext& context) override;
  void run(HostAction action) override;

 private:
  // The stall-then-read loop; true when RDY reached `enabled`.
  bool wait_ready(bool enabled, size_t phase);
  bool init_controller();
  bool admin_setup();
  // One PassThru: nullptr on success, else the EFI status text ("Time out", "Device Error").
  const char* admin(uint8_t opcode, uint32_t cdw10, uint32_t cdw11, uint64_t prp1, uint32_t nsid = 0);
  // `NvmExpressDriverBindingStart: end with STATUS`, and the trial's outcome.
  void fail(const char* status, ProbeStatus outcome = ProbeStatus::enodev);

  uint8_t cap_to_ = 0;
};

}  // namespace nvmesim
