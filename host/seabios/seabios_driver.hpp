#pragma once
// SeaBIOS's NVMe driver (src/hw/nvme.c at 41514a7a; facts: shared/reference/other-hosts.md, the
// SeaBIOS row: a cooperative yield loop, 500 ms x CAP.TO, controllers left enabled). Described
// in our own words; no SeaBIOS code is used.
//
// nvme_scan starts one thread per NVMe function (run_thread), so the controllers are set up side
// by side: the platform attaches them in parallel. Each thread (nvme_controller_setup): read VS,
// read CAP (CAP.CSS bit 0 or "skip"), then nvme_controller_enable: CC = 0 written without a read
// (no short cut), wait RDY=0; read CAP (the doorbell stride); AQA, ASQ, ACQ (64-bit registers
// written as two 32-bit halves); CC = EN | IOCQES 4 | IOSQES 6 written without a read, wait
// RDY=1; Identify Controller; no namespace (NN = 0) drops the controller; Create I/O CQ 1 and
// SQ 1; Identify Namespace per namespace (a failure skips that namespace). Nothing at the end:
// the OS gets the controllers enabled (SeaBIOS has no NVMe shutdown). The device model's
// Identify Controller reports NN = controllers[].identify.nn, default 0: with the default every
// SeaBIOS setup ends after Identify with `Failed to enable NVMe controller.` (status enodev);
// with nn >= 1 (QEMU's device: 1) it goes on to the I/O queues and the namespaces.
// The readiness wait (nvme_wait_csts_rdy): read CAP (CAP.TO), deadline = now + 500 ms x CAP.TO
// on the TSC/PM timer (a fine clock: Deadline::Rule::elapsed_over, strictly past), then: read
// CSTS; RDY == wanted -> done; yield(); the value read had CFS -> fail; past the deadline ->
// `WARNING - Timeout at nvme_wait_csts_rdy:572!` and fail. So TO = 0 fails after one read and one
// yield, and a never-ready controller after the first yield that ends past 500 ms x TO. No
// all-ones test: all ones has RDY and CFS set, so the disable wait fails at its first yield
// (CFS) and the enable wait "succeeds".
// The yield's cost (our choice; the reference is silent): kYieldNs = 1000 ns, one pass of
// SeaBIOS's threads and check_irqs on a CPU that has nothing else to do (under QEMU with one
// controller: the thread switch and the sti/cli window). With several controllers the other
// threads' work during a yield is not added (each thread's yield costs the same 1 us).
// Messages: SeaBIOS's debug console as a CONFIG_DEBUG_LEVEL=2 build prints it (levels 1 and 2:
// the timeout warning, the failure lines); level-3 lines and the reads made only for them are
// compiled out. Admin commands wait for their CQE with nvme_wait's 5 s timeout (a yield loop;
// the model sees the CQE on its arrival; `WARNING - Timeout at nvme_wait:147!`); a failed Create
// I/O CQ or SQ prints `create io cq failed: status SSSS` (SeaBIOS dumps the CQE's four dwords;
// the model has its Status Field only: our choice).
// Not modelled: pci_enable_membar and busmaster (configuration space), the boot-order check
// (is_bootprio_strict), the queue sizes (the host memory holds 32 admin entries; SeaBIOS asks 64
// and 256), the I/O path.
#include <cstdint>
#include <vector>

#include "host/driver.hpp"

namespace nvmesim {

class seabios_driver final : public HostDriver {
 public:
  explicit seabios_driver(nvme_host& host) : HostDriver(host) {}
  const char* name() const override { return "seabios"; }
  const std::vector<PhaseId>& phases() const override;
  /// Every function at once (a thread each); no shutdown, no reset.
  PlatformPolicy platform_policy(const HostParams& host) const override;
  void begin_trial(const DriverContext& context) override;
  void run(HostAction action) override;

  /// The cost of one yield() in the readiness and command waits, ns (our choice, see above).
  static constexpr uint32_t kYieldNs = 1000;

 private:
  // nvme_wait_csts_rdy: 0 when RDY reached `rdy`, -1 on CFS or the timeout.
  int wait_csts_rdy(bool rdy, size_t phase);
  bool controller_enable();
  bool admin_setup();
  // One admin command waited by nvme_wait: false on a timeout or an error status (SC not 0);
  // `timed_out` says which, `status` is the CQE's Status Field (0xFFFF after a timeout).
  bool admin(uint8_t opcode, uint32_t cdw10, uint32_t cdw11, uint64_t prp1, uint32_t nsid, bool& timed_out,
             uint16_t& status);
  void fail(ProbeStatus status);

  uint16_t cap_mqes_ = 0;
};

}  // namespace nvmesim
