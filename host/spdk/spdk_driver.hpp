#pragma once
// SPDK's user-space NVMe driver (lib/nvme, nvme_ctrlr_process_init and nvme_ctrlr_shutdown), by
// host.release: "18.01+" (the default) or "17.x". Facts: shared/reference/other-hosts.md (the
// SPDK row and "More facts per host"); the state numbers, the order of register accesses and the
// shutdown loop's 1 ms delay from SPDK's public source of the 18.x era (read for the facts, in our
// own words; no SPDK code is used). Where the reference is silent the choice is ours and says so.
//
// The probe (spdk_nvme_probe of one controller), one init state machine advanced one state per
// poll of the application, host.poll_interval (SleepPolicy::app_poll) between two polls:
//   reset_wait: the wait after a PCI reset or hot insert before touching the device: 500 ms
//     ("17.x"), 2 s ("18.01+"). The release boundary is our choice (the reference says "early
//     releases" and "raised to 2 s"); the model's probe is an attach right after such a reset.
//   disable: CAP (two 32-bit reads), then state 0 (INIT): read CC, read CSTS (either all ones:
//     `Failed to read CC and CSTS in state 0`, the state has no timeout). EN=1, RDY=0: state 1
//     waits RDY=1, then writes CC.EN=0; EN=1, RDY=1: writes CC.EN=0 at once and, for a
//     NVME_QUIRK_DELAY_BEFORE_CHK_RDY device (the PCI ids of FreeBSD's and Linux's same quirk:
//     1c58:0003, 1c58:0023, 1c5f:0540, 144d:a821, 144d:a822), waits 2.5 s without an access
//     (state 1's write sets no such delay, as in 18.x); then state 2 waits RDY=0.
//     EN=0 goes to state 2 without a write.
//   enable: RDY=0 seen: a 100 us busy wait (spdk_delay_us(100)); at the next poll state 3
//     writes ASQ, ACQ (two 32-bit writes each; SPDK writes 64 bits at once), AQA and
//     CC = EN | IOSQES 6 | IOCQES 4; state 4 waits RDY=1.
//   admin: Identify Controller, Set Features Number of Queues, Identify Namespace per namespace,
//     each polled to its completion (CompletionWait::poll).
// Each state's timeout is CAP.TO x 500 ms from the poll that entered it (no grace; CRTO not used;
// CAP.TO = 0 is a 0 ms timeout: the first poll that does not see the state fails), checked after
// the poll's read against the TSC (Deadline::Rule::elapsed_over, ps). The quirk's 2.5 s lies
// inside state 2's timeout. A CSTS of all ones in a waiting state is retried until that state's
// timeout (WaitSpec::AllOnes::not_ready). A timeout logs `Initialization timed out in state N`
// and `Failed to initialize SSD: ADDR`; the probe fails (status enodev).
// Shutdown (spdk_nvme_detach, controllers one after the other): read CC, write CC.SHN=01b, then
// read CSTS until SHST = complete with a 1 ms busy delay between reads, up to 5000 ms ("17.x":
// `did not shutdown within 5 seconds`) or max(ceil(RTD3E / 1000 us), 10000) ms ("18.01+": `did
// not shutdown within N milliseconds`); the limit's end is status enodev. An all-ones CSTS ends
// the shutdown at once (`get_csts() failed`, enodev).
// Messages are SPDK's log lines `FILE:LINE:FUNC: *ERROR*: TEXT` without the timestamp SPDK
// puts in front (console format); the line numbers are our choice (they differ by release).
// Several controllers: SPDK's one thread polls every controller in turn; the model gives each
// controller its own thread (PlatformPolicy::Order::parallel) polling every host.poll_interval,
// so the polls of two controllers do not delay each other (one MMIO read, ~1 us, per poll).
// Not modelled: the CC read every poll makes before CSTS, the CC read of state 3, the per-read
// `Get registers failed` line an all-ones read logs (the model logs none), the polls skipped
// during the quirk's delay (the next read is one poll interval after it: exact when the
// interval divides 2.5 s), the 2 s NVME_QUIRK_DELAY_BEFORE_INIT of some Intel parts, the admin
// commands after the namespaces (AER, log pages, keep alive), later releases' infinite timeout
// for CAP.TO = 0 and their asynchronous register access.
#include <cstdint>
#include <vector>

#include "host/driver.hpp"

namespace nvmesim {

class spdk_driver final : public HostDriver {
 public:
  explicit spdk_driver(nvme_host& host) : HostDriver(host) {}
  const char* name() const override { return "spdk"; }
  const std::vector<PhaseId>& phases() const override;
  /// Every controller at once (each polled by the application in turn: see above); shutdown one
  /// after the other in index order; no reset.
  PlatformPolicy platform_policy(const HostParams& host) const override;
  void begin_trial(const DriverContext& context) override;
  void run(HostAction action) override;

 private:
  // The init state machine; `reboot`: the second boot's, recorded in the reboot_* phases.
  void probe(bool reboot);
  void shutdown();
  // The state `state` (entered at trial time `entered_ps`) waits for RDY == `ready`; false
  // when its timeout expired (the failure is logged and finished).
  bool wait_state(int state, bool ready, int64_t entered_ps, size_t phase);
  // The application's work until its next poll of this controller.
  void next_poll();
  bool admin_setup();
  // `Initialization timed out in state N` (or the read failure), `Failed to initialize SSD`.
  void fail_init(const std::string& line, ProbeStatus status = ProbeStatus::enodev);

  bool v17_ = false;  // host.release "17.x"
  bool quirk_delay_ = false;
  uint8_t cap_to_ = 0;
  uint32_t rtd3e_us_ = 0;
  const PhaseId* admin_phase_ = nullptr;  // admin or reboot_admin (set by probe)
};

}  // namespace nvmesim
