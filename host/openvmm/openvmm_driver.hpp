#pragma once
// OpenVMM / OpenHCL's user-mode NVMe driver (vm/devices/storage/disk_nvme/nvme_driver, with
// user_driver's Backoff; facts: shared/reference/other-hosts.md, the OpenVMM row: 250 yields,
// then 250 sleeps of 1 ms, then 15 ms sleeps; no timeout until a recent change, then CAP.TO with
// a 3 s floor when TO = 0). Described in our own words; no OpenVMM code is used.
//
// host.release:
//   "new" (the default): the ready timeout is CAP.TO x 500 ms, 3 s when CAP.TO = 0
//     (registers.rs ready_timeout);
//   "old": no timeout: the wait polls until RDY changes. A never-ready controller is then ended
//     by host.max_polls_per_wait (default 2000000 reads, about 30000 s of 15 ms sleeps) or by
//     host.max_events_per_trial, whichever comes first: the trial stops with the limit's error
//     (the run reports it; exit status as for any limit), never a run without end.
// The probe: read CAP; the reset: read CC, write CC with EN cleared (always), deadline = now +
// ready_timeout (the CAP read for it follows the clock read: Deadline::since_ps), then the loop
// read CSTS; RDY == wanted -> done; all ones -> fail at once; now >= deadline -> fail
// (Instant::now() >= deadline, a fine clock: elapsed_reached, before the back-off); back_off()
// (SleepPolicy::openvmm_backoff). Our choice where the reference is silent: the enable is the
// same loop after AQA, ASQ, ACQ (64-bit registers, two 32-bit halves here) and CC = EN | IOCQES 4
// | IOSQES 6; then Identify Controller, Create I/O CQ 1 and SQ 1, Identify Namespace 1, each
// waited without a timeout (polled here). A yield (yield_once: the task is woken at once and
// polled again) costs kYieldNs = 1000 ns (our choice: one pass of the executor); the 1 ms and
// 15 ms timer sleeps end exactly (no timer slack modelled).
// Messages (our choice, the tracing text OpenHCL logs, without its timestamps):
// `nvme_driver: <address>: controller did not become ready within N ms (csts 0x..)`,
// `nvme_driver: <address>: device is gone (csts 0xffffffff)`. A failed init is the trial's
// enodev; a failed admin command eio.
#include <cstdint>
#include <string>
#include <vector>

#include "host/driver.hpp"

namespace nvmesim {

class openvmm_driver final : public HostDriver {
 public:
  explicit openvmm_driver(nvme_host& host) : HostDriver(host) {}
  const char* name() const override { return "openvmm"; }
  const std::vector<PhaseId>& phases() const override;
  /// One controller after the other (each NvmeDriver::new in turn); no shutdown, no reset.
  PlatformPolicy platform_policy(const HostParams& host) const override;
  void begin_trial(const DriverContext& context) override;
  void run(HostAction action) override;

  /// The cost of one yield_once in the back-off, ns (our choice, see above).
  static constexpr uint32_t kYieldNs = 1000;

 private:
  // The back-off loop; true when RDY reached `enabled`. `since_ps`: the clock read.
  bool wait_ready(bool enabled, size_t phase, int64_t since_ps);
  bool admin_setup();
  void fail(const std::string& text, ProbeStatus status);

  bool old_ = false;  // host.release "old": no timeout
  uint8_t cap_to_ = 0;
  uint16_t cap_mqes_ = 0;
};

}  // namespace nvmesim
