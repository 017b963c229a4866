#pragma once
// The host-driver seam (DESIGN section 5): what every host driver is and what it may see. A
// driver is a plain object that runs its sequences on an nvme_host (host/nvme_host.hpp), the
// sc_module of one PCI function that owns the BAR0 socket, the host memory, the SC_THREAD and the
// generic plumbing (MMIO and configuration access, admin queue, sleeps, limits, messages). One
// function may run several drivers (a variant per host, a boot chain) without a second socket.
// A driver sees the PCI function (PciFunction: id, address, capabilities) and the host's
// parameters, never the device's ControllerParams (its latencies and faults).
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/recorder.hpp"
#include "host/host_params.hpp"
#include "host/timers/kernel_timers.hpp"

namespace nvmesim {

class nvme_host;

/// Thrown when a trial exceeds a safety limit (HostParams::max_polls_per_wait,
/// HostParams::max_events_per_trial, kMaxTrialPs). The trial stops; the run reports it.
class SimulationLimitError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// What the host does to one controller next (DESIGN section 7, `workload`).
enum class HostAction : uint8_t {
  probe,         ///< the boot's probe (Linux: nvme_init -> queues line)
  shutdown,      ///< power-off / reboot: delete I/O queues, CC.SHN, wait for SHST
  reset,         ///< `nvme reset`: delete I/O queues, disable, then the probe's configure path again
  reboot_probe,  ///< the probe of the next boot, after a shutdown and a platform reset
};

/// What the host thread is doing, as the integer of nvme_host::state_sig (--vcd).
enum class HostState : uint8_t {
  idle = 0,            ///< before the first trial
  init_to_probe = 1,   ///< driver init until the probe of this function starts
  pci_enable = 2,      ///< CSTS all-ones check, CAP and VS reads
  disable_wait = 3,    ///< CC.EN=0 written, polling CSTS.RDY=0
  sleep = 4,           ///< sleeping between two CSTS reads (in any wait)
  admin_queue = 5,     ///< AQA/ASQ/ACQ writes
  enable_wait = 6,     ///< CC.EN=1 written, polling CSTS.RDY=1
  admin_commands = 7,  ///< Identify, Set Features, Create I/O CQ/SQ
  done = 8,            ///< the action ended well
  failed = 9,          ///< the action failed
};

/// What one action on one controller did in one trial. Times are ps from the trial's start.
struct DriverOutcome {
  ProbeStatus status = ProbeStatus::ok;
  int64_t start_ps = 0;       ///< when the action began
  int64_t end_ps = 0;         ///< the end of the probe (Linux: the queues line), of the shutdown, or the failure
  int64_t namespace_ps = -1;  ///< first namespace usable (probe actions that succeeded)
  std::string error;          ///< set when the trial hit a safety limit (SimulationLimitError)
};

/// The PCI function as enumeration shows it to a driver: no device parameters.
struct PciFunction {
  std::string pci_id;   ///< "vvvv:dddd", lower case (quirk tables match it)
  std::string address;  ///< "0000:00:04.0" (Linux prints it in `pci function ...`)
  bool flr = true;      ///< Function Level Reset capability (PCIe Device Capabilities FLR; controllers[].flr)
};

/// State one boot shares across all functions and drivers; the platform clears it at each boot
/// (trial start, reboot). Holds the once-per-boot flags (Linux's dev_warn_once).
class BootState {
 public:
  /// True the first time `what` (a string literal naming the site) is asked in this boot.
  bool first_in_boot(const char* what) {
    for (const char* w : seen_)
      if (w == what) return false;
    seen_.push_back(what);
    return true;
  }
  void new_boot() { seen_.clear(); }

 private:
  std::vector<const char*> seen_;
};

/// Everything a driver may see for one trial. Pointers outlive the trial.
struct DriverContext {
  const HostParams* host = nullptr;  ///< the scenario's host section
  const PciFunction* fn = nullptr;   ///< the function this driver runs on
  const TickClock* clock = nullptr;  ///< the host's timer: Linux's jiffies at HZ, U-Boot's ms counter
  Recorder* recorder = nullptr;
  uint64_t seed = 0;
  uint64_t trial = 0;
  BootState* boot = nullptr;         ///< shared by all functions of the boot
};

/// How a driver's platform attaches and detaches its functions (host/platform.hpp runs it).
struct PlatformPolicy {
  enum class Order : uint8_t {
    parallel,        ///< every function at once, then wait for all (Linux's asynchronous probe)
    serial,          ///< one after the other in index order (U-Boot's uclass probe)
    serial_reverse,  ///< one after the other, last registered first (Linux's device_shutdown)
    unsupported,     ///< the driver has no such sequence: a workload needing it is an error
  };
  Order attach = Order::parallel;
  Order shutdown = Order::unsupported;
  bool reset = false;  ///< has an `nvme reset` sequence (HostAction::reset), run on all functions at once
  int timer_hz = 250;  ///< rate of the clock the driver reads (DriverContext::clock)

  /// A driver whose only sequence is the probe, run on one function after the other (U-Boot's
  /// uclass probe, EDK2's DriverBindingStart per handle, FreeBSD's attach): serial attach, no
  /// shutdown, no reset, a clock of `timer_hz` (> 0).
  static PlatformPolicy serial_probe_only(int timer_hz) {
    PlatformPolicy p;
    p.attach = Order::serial;
    p.shutdown = Order::unsupported;
    p.reset = false;
    p.timer_hz = timer_hz;
    return p;
  }
};

/// The phases of a probe that disables the controller, enables it and runs its admin commands,
/// numbered to sort beside Linux's phases of the same names (U-Boot, EDK2).
namespace probe_phase {
inline constexpr PhaseId kDisable{1, "disable"}, kEnable{2, "enable"}, kAdmin{3, "admin"};
/// {kDisable, kEnable, kAdmin}: HostDriver::phases() of such a driver.
inline const std::vector<PhaseId>& disable_enable_admin() {
  static const std::vector<PhaseId> all{kDisable, kEnable, kAdmin};
  return all;
}
}  // namespace probe_phase

/// A host driver: the sequences one host runs on one PCI function. Implement it in host/NAME/
/// and add one line to host/registry.hpp (docs/architecture.md, "a new host driver").
class HostDriver {
 public:
  explicit HostDriver(nvme_host& host) : host_(host) {}
  virtual ~HostDriver() = default;
  HostDriver(const HostDriver&) = delete;
  HostDriver& operator=(const HostDriver&) = delete;

  /// The name `host.driver` selects ("linux").
  virtual const char* name() const = 0;
  /// Every phase this driver records, in the order the per-phase summaries list them
  /// (PhaseId::order); nvme_host::open_phase refuses any other.
  virtual const std::vector<PhaseId>& phases() const = 0;
  /// The platform around this driver under `host`.
  virtual PlatformPolicy platform_policy(const HostParams& host) const = 0;
  /// A new trial starts now: reset per-trial state and streams. `context` is also host().context().
  virtual void begin_trial(const DriverContext& context) = 0;
  /// Runs `action` to its end, inside the host's SC_THREAD; reports through host().finish().
  /// May throw SimulationLimitError.
  virtual void run(HostAction action) = 0;

 protected:
  nvme_host& host() const { return host_; }

 private:
  nvme_host& host_;
};

}  // namespace nvmesim
