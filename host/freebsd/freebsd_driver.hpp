#pragma once
// FreeBSD's nvme(4) attach, release "older": the last shape before 13.1 (freebsd-src
// sys/dev/nvme/nvme_ctrlr.c at 00ed045a; facts: shared/reference/other-hosts.md and the FreeBSD
// section of the host facts, 1.1-1.3). Described in our own words; no FreeBSD code is used.
//
// Attach: read CAP (two 32-bit reads), ready timeout (CAP.TO + 1) x 500 ms; then two hw_resets,
// each a 100 ms busy DELAY, `disable` and `enable`:
//   disable: read CC, read CSTS; EN=0 and RDY=0 returns at once (2 reads, no write); EN=0, RDY=1
//     waits RDY=0 without a write; EN=1, RDY=0 first waits RDY=1; then CC with EN cleared, [the
//     QUIRK_DELAY_B4_CHK_RDY 2300-tick pause for 5 PCI ids], wait RDY=0.
//   enable: read CC, read CSTS; EN=1 and RDY=1 returns at once; EN=1, RDY=0 waits RDY=1; EN=0
//     waits RDY=0, writes ASQ, ACQ, AQA with a 5 ms busy DELAY after each, writes CC = EN |
//     IOSQES 6 | IOCQES 4 (MPS 0, CSS 0, AMS 0, SHN 0), waits RDY=1.
// The readiness wait (nvme_ctrlr_wait_for_ready) is the one loop with `R A T D S`: read CSTS;
// all ones -> ENXIO at once, silently; RDY == wanted -> done; an iteration count k (before its
// increment) > (TO + 1) x 500 -> `nvme0: controller ready did not become V within M ms`; else
// DELAY(1000), a 1 ms busy wait with no lateness. So a never-ready controller fails after
// (TO+1) x 500 + 1 DELAYs and (TO+1) x 500 + 2 reads. Either failure fails the controller
// (nvme_ctrlr_fail: no disk attaches; the model's status is enodev).
// Admin phase (older order): Set Features Number of Queues (host.cpus asked), Identify
// Controller, Create I/O CQ then SQ per granted queue, Identify Namespace per namespace. Each
// command is waited by nvme_completion_poll: check, pause(1) (one tick at hz 1000: until the tick
// counter advances), check ...; after hz pauses (1 s) the kernel panics (`panic: NVME polled
// command failed to complete within 1s.`; the model ends the trial with status eintr).
// Not modelled: the 13.1+ release (adaptive pause_sbt backoff, one reset, 10 s admin polling),
// the 12.0-era TO x 500 variant, kern.hz other than 1000 (a VM's HZ_VM 100), the attach line from
// the PCI bus, the nvd/nda lines, Get Features Temperature Threshold and the commands not waited
// (Async Event Config, AERs, Interrupt Coalescing), shutdown and detach.
#include <cstdint>
#include <vector>

#include "host/driver.hpp"

namespace nvmesim {

class freebsd_driver final : public HostDriver {
 public:
  explicit freebsd_driver(nvme_host& host) : HostDriver(host) {}
  const char* name() const override { return "freebsd"; }
  const std::vector<PhaseId>& phases() const override;
  /// One controller after the other (config intrhooks run in turn); no shutdown, no reset; the
  /// tick counter at hz 1000 (bare metal).
  PlatformPolicy platform_policy(const HostParams& host) const override;
  void begin_trial(const DriverContext& context) override;
  void run(HostAction action) override;

 private:
  enum class Rc : uint8_t { ok, enxio, timed_out };
  // One hw_reset: the 100 ms DELAY, disable, enable. `first` selects the first reset's phases.
  Rc hw_reset(bool first);
  Rc disable(size_t phase);
  Rc enable(size_t queue_phase, size_t wait_phase);
  // nvme_ctrlr_wait_for_ready(desired): the one loop.
  Rc wait_for_ready(bool desired, size_t phase);
  bool admin_setup();
  // One synchronous admin command waited by nvme_completion_poll; false after the panic.
  bool admin(uint8_t opcode, uint32_t cdw10, uint32_t cdw11, uint64_t prp1, uint32_t nsid = 0,
             uint32_t* dw0 = nullptr);

  uint8_t cap_to_ = 0;
  uint16_t cap_mqes_ = 0;
  bool quirk_delay_b4_chk_rdy_ = false;
};

}  // namespace nvmesim
