#pragma once
// The Windows community NVMe driver (nvmewin, OFA; facts: shared/reference/other-hosts.md, the
// "Windows community driver" row: 5 ms stalls / timer callbacks, max(CAP.TO, 1) x 500 ms).
// Described in our own words; no nvmewin code is used.
//
// The readiness wait is a count of polls: PollMax = max(CAP.TO, 1) x 500 ms / 5 ms =
// max(CAP.TO, 1) x 100; for k < PollMax: read CSTS; RDY == wanted -> done; a 5 ms stall
// (StorPortStallExecution: busy, exact; the enable's state-machine timer callbacks are modelled
// as the same 5 ms). So a never-ready controller fails after PollMax reads and PollMax stalls:
// max(CAP.TO, 1) x 100 x (5 ms + R); TO = 0 counts as 1. No all-ones and no CFS test (all ones
// has RDY set: the disable wait runs out, the enable wait "succeeds").
// The probe (our choice of the sequence around the waits, from the row and nvmewin's init state
// machine): read CAP; NVMeResetAdapter: read CC, write it with EN cleared (always); wait RDY=0;
// AQA, ASQ, ACQ (64-bit registers, two 32-bit halves here); CC = EN | IOCQES 4 | IOSQES 6; wait
// RDY=1; Identify Controller, Create I/O CQ 1 and SQ 1, Identify Namespace 1, each polled with a
// 5 s limit (our choice). Messages: nvmewin logs through StorPortDebugPrint, so there is no
// console; the lines (our choice) are `nvme: NVMeWaitOnReady: CSTS.RDY did not become V after N
// polls of 5 ms`, `nvme: NVMeInitAdminQueues: <command> failed`. A failed init is the trial's
// enodev (the adapter fails to start), a failed command eio, a command timeout eintr.
// Not modelled: the crash-dump (ntldr) path, the NUMA/MSI-X discovery, the learning mode.
#include <cstdint>
#include <vector>

#include "host/driver.hpp"

namespace nvmesim {

class nvmewin_driver final : public HostDriver {
 public:
  explicit nvmewin_driver(nvme_host& host) : HostDriver(host) {}
  const char* name() const override { return "nvmewin"; }
  const std::vector<PhaseId>& phases() const override;
  /// One adapter after the other (HwFindAdapter / HwInitialize per adapter); no shutdown, no reset.
  PlatformPolicy platform_policy(const HostParams& host) const override;
  void begin_trial(const DriverContext& context) override;
  void run(HostAction action) override;

  /// The stall between two reads, us (MAX_STATE_STALL_us).
  static constexpr uint32_t kStallUs = 5000;

 private:
  bool wait_on_ready(bool enabled, size_t phase);
  bool admin_setup();

  uint8_t cap_to_ = 0;
  uint16_t cap_mqes_ = 0;
};

}  // namespace nvmesim
