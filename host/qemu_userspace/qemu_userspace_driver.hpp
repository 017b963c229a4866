#pragma once
// QEMU's own user-space NVMe block driver (block/nvme.c, nvme_init; `-blockdev driver=nvme` over
// VFIO; facts: shared/reference/other-hosts.md, the "QEMU's own user-space NVMe driver" row: a
// tight loop, min(500 ms x CAP.TO, 30 s)). Described in our own words; no QEMU code is used.
//
// nvme_init: read CAP (a 64-bit read; the model makes two 32-bit reads); no CAP.CSS -> "Device
// doesn't support NVMe command set" (-EINVAL); timeout_ms = min(500 x CAP.TO, 30000); read VS;
// read CC, write it back with EN cleared (bit 0; no short cut), deadline = now + timeout on
// QEMU_CLOCK_REALTIME (ns: Deadline::Rule::elapsed_over, strictly past), then `while RDY { if
// now > deadline: fail }`: read CSTS, test, check, read again, with nothing in between. Then AQA,
// ASQ, ACQ (64-bit registers, two 32-bit halves here), CC = EN | IOCQES 4 | IOSQES 6 written
// without a read, the same loop for RDY=1. Then Identify Controller, Identify Namespace 1, Create
// I/O CQ 1 and SQ 1. A never-ready controller fails at the first read that ends past the
// deadline; TO = 0 (timeout 0 ms) fails after exactly one read. No all-ones test (all ones has
// RDY set: the reset wait runs to its timeout, the start wait "succeeds"), no CFS test, no
// quirks, no shutdown (the controller stays enabled until the block device is closed).
// Messages (error_setg, printed by the caller as QEMU's error_report does; the prefix is our
// choice, the text QEMU's): `qemu-system-x86_64: -drive file=nvme://ADDRESS/1: Timeout while
// waiting for device to start (N ms)`, `... to reset (N ms)`. The failed open is the trial's
// enodev (ETIMEDOUT, EINVAL), eio for a failed admin command (our mapping). Admin commands are
// waited without a timeout (AIO_WAIT_WHILE): the trial's time limit ends a device that never
// completes one.
#include <cstdint>
#include <string>
#include <vector>

#include "host/driver.hpp"

namespace nvmesim {

class qemu_userspace_driver final : public HostDriver {
 public:
  explicit qemu_userspace_driver(nvme_host& host) : HostDriver(host) {}
  const char* name() const override { return "qemu-userspace"; }
  const std::vector<PhaseId>& phases() const override;
  /// One block device after the other (each -blockdev opens in turn); no shutdown, no reset.
  PlatformPolicy platform_policy(const HostParams& host) const override;
  void begin_trial(const DriverContext& context) override;
  void run(HostAction action) override;

  /// The ready timeout nvme_init uses, ms: min(500 x CAP.TO, 30000) for `cap_to` in 0..255.
  static uint64_t timeout_ms(uint8_t cap_to) { return uint64_t{cap_to} * 500 < 30000 ? uint64_t{cap_to} * 500 : 30000; }

 private:
  // The tight loop: true when RDY reached `enabled` within timeout_ms_.
  bool wait_ready(bool enabled, size_t phase);
  bool admin_setup();
  void fail(const std::string& text, ProbeStatus status);

  uint64_t timeout_ms_ = 0;
  uint16_t cap_mqes_ = 0;
  std::string prefix_;
};

}  // namespace nvmesim
