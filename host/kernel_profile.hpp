#pragma once
// Linux releases and the readiness-wait behaviour of each (DESIGN section 5, kernel_profile;
// facts: shared/reference/linux-readiness.md section 2). Every field is named so that a scenario
// can override it (`host.overrides`) to describe a stable kernel that got a later change.
#include <string>
#include <string_view>
#include <vector>

#include "host/sleep_policy.hpp"

namespace nvmesim {

/// A Linux version "major.minor" or "major.minor.patch".
struct KernelVersion {
  int major = 0, minor = 0, patch = 0;
  /// Parses "5.7" or "5.7.12". Throws std::invalid_argument naming the allowed form.
  static KernelVersion parse(std::string_view text);
  /// Orders by (major, minor); the patch level does not select a profile.
  int release_key() const { return major * 1000 + minor; }
  std::string to_string() const;
};

/// How the readiness deadline is computed from a timeout TO in 500 ms units.
enum class DeadlineForm {
  half_jiffies,   ///< jiffies + (TO + 1) * HZ / 2 (up to 6.1)
  whole_seconds,  ///< jiffies + ((TO + 1) / 2) * HZ (6.2+)
};

/// Where the enable wait's timeout comes from.
enum class EnableTimeout {
  cap_to,  ///< CAP.TO (up to 5.18)
};

/// The CC writes that enable the controller.
enum class CcSequence {
  single_write,  ///< one write of the configuration with EN=1 (up to 5.18)
};

const char* to_string(DeadlineForm f);
const char* to_string(EnableTimeout t);
const char* to_string(CcSequence s);

/// The behaviour of one range of Linux releases.
struct KernelProfile {
  std::string first;                 ///< first release of the row, e.g. "5.7"
  std::string last;                  ///< last release of the row, e.g. "5.18"
  SleepPolicy poll = SleepPolicy::msleep(100);           ///< sleep between CSTS reads
  SleepPolicy shutdown_poll = SleepPolicy::msleep(100);  ///< sleep in the shutdown wait
  DeadlineForm deadline = DeadlineForm::half_jiffies;
  EnableTimeout enable_timeout = EnableTimeout::cap_to;
  CcSequence cc_sequence = CcSequence::single_write;
  bool msleep_extra_jiffy = true;    ///< msleep adds a jiffy (before 6.12)
  bool csts_in_message = false;      ///< "Device not ready; aborting ..., CSTS=0x%x" (5.7+)
  bool queues_line = true;           ///< prints "D/R/P default/read/poll queues" (5.4+)
  bool fsleep_613 = false;           ///< fsleep follows the 6.13 rule
};

/// The table, oldest release first.
const std::vector<KernelProfile>& kernel_profiles();

/// The profile of the row holding `v`. Throws std::invalid_argument naming the supported range.
const KernelProfile& profile_for(const KernelVersion& v);

/// "5.4 to 5.18": the releases the table covers.
std::string supported_kernel_range();

}  // namespace nvmesim
