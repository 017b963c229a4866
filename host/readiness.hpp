#pragma once
// The one readiness loop every host driver uses (DESIGN section 5): poll a register until it
// shows the wanted state, sleeping between reads, bounded by a deadline. Linux's nvme_wait_ready
// (linux-readiness.md section 1: read CSTS, all-ones test, test, sleep, fatal-signal check,
// deadline check), its pre-6.2 shutdown loop, its FLR poll, and other hosts' loops are the same
// loop with another WaitSpec.
#include <cstdint>
#include <optional>
#include <string>

#include "host/timers/sleep_policy.hpp"

namespace nvmesim {

class nvme_host;

/// What ends a wait that never sees the wanted state.
struct Deadline {
  enum class Rule : uint8_t {
    time_after,  ///< clock ticks (DriverContext::clock) since the start > `amount`: Linux's time_after(jiffies, deadline)
    reached,     ///< clock ticks since the start >= `amount`: U-Boot's get_timer(start) < timeout loop
    slept_over,  ///< requested sleep time (SleepPolicy::requested_ps) summed over the wait > `amount` ps: pcie_flr's poll
    /// time since the wait began (the call of wait_until_ready) > `amount` ps: a fine-grained clock
    /// read directly (SPDK's spdk_get_ticks() > state_timeout_tsc, SeaBIOS's timer_check on the TSC,
    /// QEMU's clock_get_ns, OpenVMM's Instant)
    elapsed_over,
    elapsed_reached,  ///< time since the wait began >= `amount` ps (OpenVMM's Instant::now() >= deadline)
    never,  ///< no deadline: only host.max_polls_per_wait ends the wait (OpenVMM before its timeout)
  };
  /// Where the check stands in the loop.
  enum class Check : uint8_t {
    after_sleep,   ///< read, all-ones test, test, sleep, [signal], deadline (Linux nvme_wait_ready)
    before_sleep,  ///< read, all-ones test, test, deadline, sleep (pcie_flr's poll)
    before_read,   ///< deadline, read, all-ones test, test, sleep: a while loop; 0 ticks fail without a read (U-Boot)
  };
  Rule rule = Rule::time_after;
  Check check = Check::after_sleep;
  uint64_t amount = 0;  ///< ticks of the clock (time_after, reached) or picoseconds (slept_over, elapsed_*)
  /// For the elapsed_* rules: the trial time (nvme_host::now_rel) the wait began, when the host
  /// took its start time before reads that precede the loop (OpenVMM reads CAP after it); -1:
  /// the call of wait_until_ready.
  int64_t since_ps = -1;
};

/// One readiness wait, as data.
struct WaitSpec {
  enum class Register : uint8_t {
    csts,              ///< CSTS, a 32-bit BAR0 read (all ones: 0xFFFFFFFF)
    config_vendor_id,  ///< PCI Vendor ID, a 16-bit configuration read (all ones: 0xFFFF)
  };
  /// What a read of all ones means.
  enum class AllOnes : uint8_t {
    fail,       ///< the device is gone: the wait ends at once (Linux from 4.9: -ENODEV)
    not_ready,  ///< the function does not answer yet: keep polling (pcie_flr)
    test,       ///< no test: the value is tested as any other (Linux 4.8, its pre-6.2 shutdown loop, U-Boot)
  };
  Register reg = Register::csts;
  uint32_t mask = 0;   ///< ready when (value & mask) == value_wanted
  uint32_t value = 0;
  Deadline deadline;
  /// The sleep between two reads; none for a tight loop (no sleep step at all, not even a busy one).
  std::optional<SleepPolicy> sleep;
  /// Each sleep's argument is multiplied by this after the sleep (2: pcie_flr's 1, 2, 4, ... ms);
  /// a pause_sbt sleep grows by its own rule instead (SleepPolicy::next_in_wait).
  uint32_t sleep_growth = 1;
  AllOnes all_ones = AllOnes::fail;
  /// After the sleep, a value read with CSTS.CFS set ends the wait (End::fatal), before the
  /// deadline check (SeaBIOS's nvme_wait_csts_rdy). False: CFS is not looked at (Linux).
  bool fail_on_cfs = false;
  const char* op = "";  ///< what is waited for, as the driver names it in messages ("initialisation")
  /// The message logged when the deadline passes (only in detailed trials); nullptr for none.
  /// Gets the spec, the last value read and the requested sleep time so far (ps).
  std::string (*message)(const WaitSpec& spec, uint32_t last, int64_t slept_ps) = nullptr;
  /// For the polls limit's error: what this wait is ("readiness wait") and what to change
  /// (nullptr: the error names the limit only, as Linux's pre-6.2 shutdown loop always did).
  const char* kind = "readiness wait";
  const char* limit_hint = "use a poll policy that sleeps, or a shorter CAP.TO";
};

/// How a wait ended.
struct WaitResult {
  enum class End : uint8_t { ready, gone, timed_out, fatal };  ///< fatal: CSTS.CFS (WaitSpec::fail_on_cfs)
  End end = End::ready;
  uint32_t last = 0;     ///< the last value read (0 when none was read)
  uint64_t polls = 0;    ///< reads made
  int64_t slept_ps = 0;  ///< requested sleep time summed (SleepPolicy::requested_ps)
  bool ready() const { return end == End::ready; }
};

/// Runs `spec` on `host` now. Counts each read and sleep in `phase` of the recorder (a phase
/// index, or kNoPhase). Throws SimulationLimitError past HostParams::max_polls_per_wait reads, or
/// from the host's other limits.
WaitResult wait_until_ready(nvme_host& host, const WaitSpec& spec, size_t phase);
inline constexpr size_t kNoPhase = static_cast<size_t>(-1);

}  // namespace nvmesim
