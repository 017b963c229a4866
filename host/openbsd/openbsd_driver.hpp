#pragma once
// OpenBSD's nvme(4) (sys/dev/ic/nvme.c: nvme_attach, nvme_ready, nvme_disable, nvme_enable,
// nvme_shutdown; NetBSD's ld_nvme shares the loop). Facts: shared/reference/other-hosts.md (the
// OpenBSD / NetBSD row); the order of register accesses and the messages from OpenBSD's public
// source (read for the facts, in our own words; no OpenBSD code is used).
//
// The readiness wait (nvme_ready) is the one loop with `R T D S`: read CSTS; RDY == wanted ->
// done; an iteration count k (before its increment) > CAP.TO x 500 -> fail; else delay(1000), a
// 1 ms busy wait. So the "(+1)" of the reference: a never-ready controller fails after
// CAP.TO x 500 + 1 delays and CAP.TO x 500 + 2 reads (CAP.TO = 0: 1 delay, 2 reads). No all-ones
// test: all ones has RDY set.
// Attach: CAP (two 32-bit reads); disable: read CC; EN=1: read CSTS and, unless CSTS.CFS, wait
// RDY=1 first; write CC with EN cleared; wait RDY=0 (failure: `nvme0: unable to disable
// controller`). Enable: read CC (EN=1 only waits RDY=1); write ASQ, ACQ (two 32-bit writes each),
// AQA, CC = EN | IOSQES 6 | IOCQES 4 | SHN 0 | CSS 0 | AMS 0 | MPS 0; wait RDY=1 (failure:
// `nvme0: unable to enable controller`). Either failure: status enodev. Admin, each command
// polled to its completion with nvme_poll's timeout (Identify 10 s, queue commands 5 s; expiry:
// status eintr; an error status: eio): Identify Controller (`unable to identify controller`),
// Create I/O CQ 1 then SQ 1 (`unable to create io q`), Identify Namespace per namespace (`unable
// to identify namespace`; the scsibus probe's, here at attach).
// Shutdown (DVACT_POWERDOWN, one controller after the other): Delete I/O SQ 1 then CQ 1 (a
// failure: `unable to delete q, disabling`, then the disable), read CC, write CC.SHN=01b, then
// 4000 times: read CSTS, SHST = complete -> done, delay(1000); after them `nvme0: unable to
// shutdown, disabling` and the disable (status enodev).
// Not modelled: the attach line of the PCI bus (`nvme0 at pci1 dev 0 function 0 ...: msix, NVMe
// 1.4`), the Identify line (model, firmware, serial), nvme_poll's delay(10) between completion
// checks (the model sees a CQE when it lands), the interrupt mask write before the shutdown.
#include <cstdint>
#include <vector>

#include "host/driver.hpp"

namespace nvmesim {

class openbsd_driver final : public HostDriver {
 public:
  explicit openbsd_driver(nvme_host& host) : HostDriver(host) {}
  const char* name() const override { return "openbsd"; }
  const std::vector<PhaseId>& phases() const override;
  /// One controller after the other (autoconf attach, then powerdown in the same order); no reset.
  PlatformPolicy platform_policy(const HostParams& host) const override;
  void begin_trial(const DriverContext& context) override;
  void run(HostAction action) override;

 private:
  // The attach; `reboot`: the second boot's, recorded in the reboot_* phases.
  void probe(bool reboot);
  void shutdown();
  // nvme_ready: true when RDY reached `ready` within CAP.TO x 500 (+1) delays.
  bool ready(bool ready, size_t phase);
  bool disable(size_t phase);
  bool enable(size_t phase);
  bool admin_setup(const PhaseId& phase);
  // One polled admin command: true on success; else logs `failed_line`, finishes (eio, or eintr
  // on a timeout) unless `finish` is false.
  bool admin(const char* failed_line, int64_t timeout_ps, uint8_t opcode, uint32_t cdw10, uint32_t cdw11,
             uint64_t prp1, uint32_t nsid = 0, bool finish = true);

  uint8_t cap_to_ = 0;
};

}  // namespace nvmesim
