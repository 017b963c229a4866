#pragma once
// The Linux NVMe PCI driver, replayed release by release (DESIGN section 5; order of operations:
// shared/reference/linux-readiness.md sections 1-3 and 6): the probe, the shutdown, `nvme reset`
// and the next boot's probe, the release's CC sequences, CRTO rules and quirks (its profile
// table: host/linux/kernel_profile.hpp). Runs on an nvme_host; sees the PCI function, never the
// device's parameters. Files: linux_driver.cpp (the probe), linux_sequences.cpp (waits, disable,
// FLR, shutdown, reset, admin commands, namespaces).
#include <cstdint>
#include <string>
#include <vector>

#include "core/rng.hpp"
#include "host/driver.hpp"
#include "host/nvme_host.hpp"
#include "models/nvme_regs.hpp"

namespace nvmesim {

/// The phases the Linux driver records (`phases` in the timeline), in the order the per-phase
/// summaries list them: the boot's probe, the shutdown, `nvme reset`, the next boot's probe.
namespace linux_phase {
inline constexpr PhaseId kPreProbe{0, "pre_probe"}, kDisable{1, "disable"}, kEnable{2, "enable"},
    kAdmin{3, "admin"}, kNamespace{4, "namespace"}, kShutdown{5, "shutdown"}, kResetTeardown{6, "reset_teardown"},
    kResetDisable{7, "reset_disable"}, kResetEnable{8, "reset_enable"}, kResetAdmin{9, "reset_admin"},
    kResetNamespace{10, "reset_namespace"}, kRebootPreProbe{11, "reboot_pre_probe"},
    kRebootDisable{12, "reboot_disable"}, kRebootEnable{13, "reboot_enable"}, kRebootAdmin{14, "reboot_admin"},
    kRebootNamespace{15, "reboot_namespace"};
}  // namespace linux_phase

/// nvme_core.admin_timeout: 60 s (ADMIN_TIMEOUT), in picoseconds.
inline constexpr int64_t kLinuxAdminTimeoutPs = 60'000'000'000'000;

class linux_driver final : public HostDriver {
 public:
  explicit linux_driver(nvme_host& host);
  const char* name() const override { return "linux"; }
  const std::vector<PhaseId>& phases() const override;
  /// Asynchronous probe (every function at once); device_shutdown one function after the other
  /// in reverse order of registration, or all at once with host.async_shutdown; jiffies at HZ.
  PlatformPolicy platform_policy(const HostParams& host) const override;
  void begin_trial(const DriverContext& context) override;
  void run(HostAction action) override;

 private:
  struct PhaseNames {
    const PhaseId *pre_probe, *disable, *enable, *admin, *ns;  // pre_probe: nullptr when the path has none
  };
  // ---- the probe (linux_driver.cpp), from driver init (with pre_probe) or from nvme_pci_enable
  // (reset's configure path). Each step returns false when the probe failed (already reported).
  void probe(const PhaseNames& names);
  void pre_probe(const PhaseNames& names);
  bool pci_enable();
  bool disable_at_probe(const PhaseNames& names);
  void configure_admin_queue();
  bool enable(const PhaseNames& names);
  regs::Cc enable_config(unsigned mps) const;
  uint64_t write_enable_sequence(regs::Cc cc);
  uint64_t enable_timeout(uint64_t cap_to);
  bool admin_setup(const PhaseNames& names);
  void read_identify_controller();
  void read_cap();
  // ---- the other sequences (linux_sequences.cpp)
  void shutdown();
  void reset();
  // nvme_disable_ctrl(shutdown=false): CC.EN=0, the quirk delay, wait RDY=0. Returns 0 or -errno.
  int disable(size_t phase);
  // The 6.17+ function-level reset: -ENOTTY without the FLR capability; else FLR, 100 ms, wait
  // until the function answers. 0 or -errno.
  int function_level_reset();
  // nvme_wait_ready (linux-readiness.md section 1). The deadline is jiffies + timeout: `seconds`
  // gives timeout * HZ, else the release's form of TO in 500 ms units. Returns 0 or -ENODEV.
  int wait_ready(uint64_t timeout, bool seconds, uint32_t mask, uint32_t value, const char* op, size_t phase);
  // The pre-6.2 shutdown loop: the same loop with msleep, no all-ones test, its own message.
  int wait_shutdown_msleep_loop(uint64_t timeout_s, size_t phase);
  bool delay_quirk() const;
  // Deletes the I/O queues created by the last probe (nvme_dev_disable), pipelined. False on an
  // admin timeout.
  bool delete_io_queues();
  void check_namespace(const PhaseNames& names);
  // One synchronous admin command with the 60 s admin timeout; on a timeout the kernel reports
  // it, disables the controller and the action fails with -EINTR: returns false. `status`
  // receives the CQE Status Field (only Identify Controller's is acted on: identify_controller).
  bool admin(uint8_t opcode, uint32_t cdw10, uint32_t cdw11, uint64_t prp1, uint32_t nsid = 0,
             uint32_t* dw0 = nullptr, uint16_t* status = nullptr);
  bool await_completion(uint16_t cid, uint32_t* dw0 = nullptr, uint16_t* status = nullptr);
  // Identify Controller. A completion with any Status Field bit set (SC, SCT, CRD, M or DNR: the
  // driver tests the whole status, unlike FreeBSD's SC/SCT test) fails the probe: the kernel logs
  // "Identify Controller failed (%d)" with the status in decimal and returns -EIO (nvme_init_identify,
  // every release in the profile table; driver-internal admin commands are never retried). False
  // when the probe failed (already reported).
  bool identify_controller(size_t phase);
  // Messages as dev_info/dev_warn print them ("nvme nvme0: ..."), only in detailed trials.
  void message(const std::string& text);
  // nvme_reset_work's error path (5.x): "Removing after probe failure status: %d".
  void fail(ProbeStatus status, int errno_value);
  // A failed wait: CSTS.CFS (not all ones) makes it fatal, else -ENODEV.
  void fail_wait(int rc);

  const std::string prefix_;  // "nvme nvme0: "
  const uint64_t h_init_;
  Stream init_stream_;
  uint32_t ctrl_config_ = 0;
  regs::Cap cap_{};              // CAP as last read
  uint64_t cap_raw_ = 0;         // ... and its raw value
  uint32_t granted_queues_ = 0;  // I/O queue pairs created by the last probe
  bool model_quirk_ = false;     // the model-string quirk matched at Identify (this boot)
  bool tagset_ = false;          // the I/O tag set exists (a probe of this boot created the I/O queues)
  bool resetting_ = false;       // this action is an `nvme reset` (its failure message from 6.2)
  uint32_t shutdown_timeout_s_ = 5;
  bool crime_set_ = false;
  uint32_t last_csts_ = 0;       // CSTS of the last failed wait (CFS decides the status)
};

}  // namespace nvmesim
