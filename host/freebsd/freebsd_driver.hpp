#pragma once
// FreeBSD's nvme(4) attach, by host.release: "13.1+" (freebsd-src sys/dev/nvme/nvme_ctrlr.c at
// ba0fe1dd) or "older", the last shape before 13.1 (at 00ed045a); facts:
// shared/reference/other-hosts.md and the FreeBSD section of the host facts, 1.1-1.3, 13.
// Described in our own words; no FreeBSD code is used.
//
// 13.1+ differs from "older" (below) in: one hw_reset, without the 100 ms DELAY; no 5 ms DELAYs
// after the admin-queue registers; the readiness wait sleeps pause_sbt(d, d/2) with d from 1 us
// growing x 1.5 (integer sbintime) to 1 ms, each callout firing host.sleep_lateness into
// [d, 1.5 d], and fails once the 1 kHz tick counter is past ticks0 + (TO + 1) x 500 (checked
// before the sleep); Identify Controller before Set Features (Number of Queues); admin commands
// are polled with the same backoff and panic after 10 s.
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
// Controller, Create I/O CQ then SQ per granted queue, Identify Namespace per namespace; a
// command whose CQE has SC or SCT set logs `nvme0: nvme_identify_controller failed!` (and the
// like) and fails the controller (status eio). Each
// command is waited by nvme_completion_poll: check, pause(1) (one tick at hz 1000: until the tick
// counter advances), check ...; after hz pauses (1 s) the kernel panics (`panic: NVME polled
// command failed to complete within 1s.`; the model ends the trial with status eintr).
// Log lines (--dmesg with kern.msgbuf_show_timestamp=2 times, LogFormat::msgbuf): the bus's
// attach line at the start, `nvme0: <Generic NVMe Device> at device 4.0 on pci0` (without the
// mem and irq resources), and after a successful attach one `nvd0: <MODEL> NVMe namespace` per
// namespace (controllers[].identify.nn; nvd units counted from the controller's index); these
// are the interval `nvmesim dmesg` reads back (tools/dmesg_reader.hpp).
// host.hz (kern.hz, 1000 or 100) sets the tick counter: 13.1+'s ready deadline in ticks
// ((TO + 1) x 500 x hz / 1000), the quirk's MSEC_2_TICKS(2300) pause, older's pause(1) per
// admin-command check and its panic after hz of them. host.nvme_2x_reset: 13.1+ with
// `options NVME_2X_RESET` resets twice, the first reset one phase (first_reset) as older's.
// Not modelled: the 12.0-era TO x 500 variant, the nvd size line and nda(4), Get Features Temperature Threshold and the commands not waited
// (Async Event Config, AERs, Interrupt Coalescing), shutdown and detach.
#include <cstdint>
#include <string>
#include <vector>

#include "host/driver.hpp"
#include "host/timers/sleep_policy.hpp"

namespace nvmesim {

class freebsd_driver final : public HostDriver {
 public:
  explicit freebsd_driver(nvme_host& host) : HostDriver(host) {}
  const char* name() const override { return "freebsd"; }
  const std::vector<PhaseId>& phases() const override;
  /// One controller after the other (config intrhooks run in turn); no shutdown, no reset; the
  /// tick counter at host.hz (kern.hz: 1000 on bare metal, 100 in many VMs).
  PlatformPolicy platform_policy(const HostParams& host) const override;
  void begin_trial(const DriverContext& context) override;
  void run(HostAction action) override;

 private:
  enum class Rc : uint8_t { ok, enxio, timed_out };
  // One hw_reset: [older: the 100 ms DELAY], disable, enable; `whole`: one phase for all of it
  // (older's first reset), else a phase per step.
  Rc hw_reset(bool whole);
  Rc disable(size_t phase);
  Rc enable(size_t queue_phase, size_t wait_phase);
  // nvme_ctrlr_wait_for_ready(desired): the one loop.
  Rc wait_for_ready(bool desired, size_t phase);
  bool admin_setup();
  enum class Cmd : uint8_t { ok, error, panic };
  // One synchronous admin command waited by nvme_completion_poll: ok, error (an error status:
  // SC or SCT not 0), or panic (not completed in 1 s; the trial has ended).
  Cmd admin(uint8_t opcode, uint32_t cdw10, uint32_t cdw11, uint64_t prp1, uint32_t nsid = 0,
            uint32_t* dw0 = nullptr);
  // True for ok; for error logs `failed_line` and fails the controller (status eio).
  bool admin_ok(Cmd rc, const char* failed_line);

  // DELAY(5000) after an admin-queue register (older only).
  void register_delay();

  bool older_ = false;  // host.release "older"
  bool two_resets_ = false;  // "older", or 13.1+ with host.nvme_2x_reset
  int hz_ = 1000;            // host.hz: kern.hz, 1000 or 100
  SleepPolicy::Lateness lateness_ = SleepPolicy::Lateness::uniform;  // host.sleep_lateness (13.1+)
  uint8_t cap_to_ = 0;
  uint16_t cap_mqes_ = 0;
  bool quirk_delay_b4_chk_rdy_ = false;
  uint32_t namespaces_ = 0;  // Identify Controller NN, once every namespace was identified
  std::string model_;        // Identify Controller MN without its padding
};

}  // namespace nvmesim
