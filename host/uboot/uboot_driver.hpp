#pragma once
// U-Boot's NVMe driver (drivers/nvme/nvme.c, release 2017.09 and later; facts:
// shared/reference/other-hosts.md and the U-Boot section of the host facts): the probe
// `nvme scan` runs per controller. Its readiness wait is a tight loop with no sleep on the
// millisecond timer: while get_timer(start) < CAP.TO x 500, read CSTS and return when RDY has the
// wanted value; else -ETIME. CAP.TO = 0 fails at once without a read. No all-ones test inside the
// loop (one at probe start: -ENODEV), no quirks, no CRTO. Admin commands poll the CQE's phase tag with a
// 6 s timeout (ADMIN_TIMEOUT 60 x 100000 us). U-Boot never shuts an NVMe controller down or
// resets it: it hands the OS an enabled controller.
#include <cstdint>
#include <vector>

#include "host/driver.hpp"

namespace nvmesim {

class uboot_driver final : public HostDriver {
 public:
  explicit uboot_driver(nvme_host& host) : HostDriver(host) {}
  const char* name() const override { return "uboot"; }
  const std::vector<PhaseId>& phases() const override;
  /// One function after the other (uclass probe order); no shutdown, no reset; a 1 kHz timer.
  PlatformPolicy platform_policy(const HostParams& host) const override;
  void begin_trial(const DriverContext& context) override;
  void run(HostAction action) override;

 private:
  bool pci_setup();  // the all-ones check, CAP
  bool configure_admin_queue();
  bool admin_setup();  // I/O queue pair, Identify Controller and Namespaces
  // nvme_wait_ready: 0 or -ETIME.
  int wait_ready(bool enabled, size_t phase);
  // nvme_submit_admin_cmd: 0, -ETIMEDOUT after 6 s without a completion, or -EIO for an error status.
  int admin(uint8_t opcode, uint32_t cdw10, uint32_t cdw11, uint64_t prp1, uint32_t nsid = 0,
             uint32_t* dw0 = nullptr);
  void fail(ProbeStatus status, int err);

  uint32_t ctrl_config_ = 0;
  uint8_t cap_to_ = 0, cap_mpsmin_ = 0;
  uint32_t io_depth_ = 2;
};

}  // namespace nvmesim
