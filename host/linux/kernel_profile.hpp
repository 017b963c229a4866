#pragma once
// Linux releases and the readiness-wait behaviour of each (DESIGN section 5, kernel_profile;
// facts: shared/reference/linux-readiness.md section 2). Every field is named so that a scenario
// can override it (`host.overrides`) to describe a stable kernel that got a later change.
// Pure C++, no SystemC.
#include <string>
#include <string_view>
#include <vector>

#include "core/names.hpp"
#include "host/timers/kernel_timers.hpp"
#include "host/timers/sleep_policy.hpp"

namespace nvmesim {

/// A Linux version: mainline "major.minor" or "major.minor.patch", or a distribution's `uname -r`
/// ("5.4.0-150-generic", "6.6.13+deb12-amd64", "5.15.0-1051-aws"), whose mainline part selects the
/// profile row. A distribution's backports are not known to the model (host.overrides covers them).
struct KernelVersion {
  int major = 0, minor = 0, patch = 0;
  /// The whole `uname -r` text when it has a distribution suffix after the mainline part, else "".
  std::string uname_r;
  /// Parses "5.7", "5.7.12" or "5.7.12" followed by a distribution suffix: '-', '+' or '~' and 1 to
  /// 64 characters of [A-Za-z0-9._+~-]. Each number is at most 9999. Throws std::invalid_argument
  /// naming the allowed forms.
  static KernelVersion parse(std::string_view text);
  /// Orders by (major, minor); the patch level and the suffix do not select a profile.
  int release_key() const { return major * 1000 + minor; }
  /// "5.7", "5.7.12" (a patch level of 0 is not printed).
  std::string mainline() const;
  /// A mainline release candidate ("6.1-rc7"): a suffix, but no distribution's.
  bool release_candidate() const;
  /// A distribution's kernel: a suffix that is not a release candidate's.
  bool distribution() const { return !uname_r.empty() && !release_candidate(); }
  /// The text as given for a distribution kernel, else mainline().
  std::string to_string() const { return uname_r.empty() ? mainline() : uname_r; }
};

/// How the readiness deadline is computed from a timeout TO in 500 ms units
/// (linux-readiness.md section 2, "Deadline arithmetic").
enum class DeadlineForm {
  half_jiffies,   ///< jiffies + (TO + 1) * HZ / 2 (4.8 - 6.1)
  whole_seconds,  ///< jiffies + ((TO + 1) / 2) * HZ, integer seconds; TO=0 gives 0 s (6.2+)
};

/// Where the enable wait's timeout comes from (all in 500 ms units).
enum class EnableTimeout {
  cap_to,        ///< CAP.TO (4.8 - 5.18)
  crto_instead,  ///< CAP.CRWMS set: CRTO.CRIMT if CC.CRIME (read back; mainline sets it only with CAP.CRIMS) else CRTO.CRWMT, instead of CAP.TO (5.19 - 6.5)
  crto_max,      ///< CAP.CRWMS set: max(CAP.TO, the CRTO field chosen as above) (6.6+)
};

/// When the driver sets CC.CRIME (ready independent of media) before enabling.
enum class CrimeRule {
  never,              ///< never (before 5.19: no NVMe 2.0 ready modes; 6.12+: removed)
  if_crims,           ///< when CAP.CRIMS is set, whatever CAP.CRWMS (no mainline release: an override)
  if_crwms_and_crims, ///< when CAP.CRWMS and CAP.CRIMS are both set (5.19 - 6.11; linux-readiness.md section 6)
};

/// The register accesses that enable the controller (after AQA/ASQ/ACQ).
enum class CcSequence {
  single_write,       ///< CC = config | EN (4.8 - 5.18)
  en0_readback,       ///< [read CRTO] before the first write, CC = config (EN=0), read CC, CC |= EN (5.19 - 6.5; section 6)
  en0_readback_cap,   ///< CC = config (EN=0), read CC, read CAP, [read CRTO], CC |= EN (6.6 - 6.11)
  en0_cap,            ///< CC = config (EN=0), read CAP, [read CRTO], CC |= EN; no CC read-back (6.12+; section 6)
};

/// How the shutdown waits for CSTS.SHST = complete.
enum class ShutdownWait {
  msleep_loop,  ///< its own loop: msleep between reads, no all-ones check, "Device shutdown incomplete; abort shutdown" (up to 6.1)
  wait_ready,   ///< nvme_wait_ready with op "shutdown" (6.2+)
};

/// The names of each enum, in one table each (core/names.hpp): `key` is the scenario's spelling
/// (host.overrides, `nvmesim profiles --json`), `text` the formula or sequence it stands for.
inline constexpr EnumName<DeadlineForm> kDeadlineFormNames[] = {
    {DeadlineForm::half_jiffies, "half_jiffies", "jiffies + (TO+1)*HZ/2"},
    {DeadlineForm::whole_seconds, "whole_seconds", "jiffies + ((TO+1)/2)*HZ"}};
inline constexpr EnumName<EnableTimeout> kEnableTimeoutNames[] = {
    {EnableTimeout::cap_to, "cap_to", "CAP.TO"},
    {EnableTimeout::crto_instead, "crto_instead", "CRWMS ? CRTO (CRIMT if CRIME else CRWMT) : CAP.TO"},
    {EnableTimeout::crto_max, "crto_max", "CRWMS ? max(CAP.TO, CRTO) : CAP.TO"}};
inline constexpr EnumName<CrimeRule> kCrimeRuleNames[] = {
    {CrimeRule::never, "never", "never"},
    {CrimeRule::if_crims, "if_crims", "if CAP.CRIMS"},
    {CrimeRule::if_crwms_and_crims, "if_crwms_and_crims", "if CAP.CRWMS and CAP.CRIMS"}};
inline constexpr EnumName<CcSequence> kCcSequenceNames[] = {
    {CcSequence::single_write, "single_write", "CC=config|EN"},
    {CcSequence::en0_readback, "en0_readback", "CC=config; read CC; [read CRTO]; CC|=EN"},
    {CcSequence::en0_readback_cap, "en0_readback_cap", "CC=config; read CC; read CAP; [read CRTO]; CC|=EN"},
    {CcSequence::en0_cap, "en0_cap", "CC=config; read CAP; [read CRTO]; CC|=EN"}};
inline constexpr EnumName<ShutdownWait> kShutdownWaitNames[] = {
    {ShutdownWait::msleep_loop, "msleep_loop", "own loop, no all-ones check"},
    {ShutdownWait::wait_ready, "wait_ready", "nvme_wait_ready(shutdown)"}};

constexpr const char* to_string(DeadlineForm f) { return text_in(kDeadlineFormNames, f); }
constexpr const char* to_string(EnableTimeout t) { return text_in(kEnableTimeoutNames, t); }
constexpr const char* to_string(CrimeRule r) { return text_in(kCrimeRuleNames, r); }
constexpr const char* to_string(CcSequence s) { return text_in(kCcSequenceNames, s); }
constexpr const char* to_string(ShutdownWait w) { return text_in(kShutdownWaitNames, w); }
/// The scenario spelling of each enum value ("half_jiffies", "crto_max", ...).
constexpr const char* key_of(DeadlineForm f) { return key_in(kDeadlineFormNames, f); }
constexpr const char* key_of(EnableTimeout t) { return key_in(kEnableTimeoutNames, t); }
constexpr const char* key_of(CrimeRule r) { return key_in(kCrimeRuleNames, r); }
constexpr const char* key_of(CcSequence s) { return key_in(kCcSequenceNames, s); }
constexpr const char* key_of(ShutdownWait w) { return key_in(kShutdownWaitNames, w); }

/// The behaviour of one range of Linux releases. Field names are the keys of `host.overrides`.
struct KernelProfile {
  std::string first;                 ///< first release of the row, e.g. "5.7"
  std::string last;                  ///< last release of the row, e.g. "5.17"
  SleepPolicy poll = SleepPolicy::msleep(100);           ///< sleep between CSTS reads
  SleepPolicy shutdown_poll = SleepPolicy::msleep(100);  ///< sleep in the shutdown wait
  DeadlineForm deadline = DeadlineForm::half_jiffies;
  EnableTimeout enable_timeout = EnableTimeout::cap_to;
  CrimeRule crime = CrimeRule::never;
  CcSequence cc_sequence = CcSequence::single_write;
  /// nvme_enable_ctrl starts by reading CAP again (two 32-bit reads) before it uses CAP.MPSMIN and
  /// CAP.TO (5.4+; linux-readiness.md section 6).
  bool enable_reads_cap = true;
  /// The admin-queue configuration reads CAP again after nvme_pci_enable's read, before VS (4.8
  /// only; section 6).
  bool admin_queue_reads_cap = false;
  /// CC.CSS is 6 (all I/O command sets) when CAP.CSS has bit 6 (CAP bit 43), else 0 (NVM) (5.10+);
  /// false: always 0 (section 6).
  bool css_from_cap = true;
  /// Identify RTD3E sets the shutdown timeout: clamp(RTD3E in whole seconds, module parameter, 60)
  /// (4.14+; the reference says 4.14/4.15, the table takes 4.14); false: the module parameter alone
  /// (4.8 - 4.13, section 6).
  bool rtd3e_shutdown_timeout = true;
  bool crto_warning = false;         ///< prints "bad crto:%x cap:%llx" once when the CRTO field < CAP.TO (6.6+)
  /// The release's timer rules: msleep_extra_jiffy (before 6.12), fsleep_613 (6.13+). The timer
  /// model reads them from here (their only home); host.overrides spells them as plain keys.
  TimerRules timer;
  bool csts_in_message = false;      ///< "Device not ready; aborting ..., CSTS=0x%x" (5.7+)
  /// nvme_wait_ready ends at once with -ENODEV when CSTS reads all ones (4.9+). 4.8 (false) has no
  /// such test: all ones is tested like any value, so a vanished device makes the disable wait
  /// (RDY=0 wanted) poll to its deadline and the enable wait (RDY=1 wanted) succeed at once; the
  /// admin commands then time out. The all-ones check at the start of nvme_pci_enable is there in
  /// every release (linux-readiness.md section 6).
  bool all_ones_in_loop = true;
  bool queues_line = true;           ///< prints "D/R/P default/read/poll queues" (5.0+; section 6)
  /// Prints "Removing after probe failure status: %d" when the probe fails (up to 6.1; from 6.2
  /// the probe returns the error and the line is gone; linux-readiness.md section 6).
  bool probe_failure_message = true;
  /// When RTD3E raises the shutdown timeout: "D3 entry latency set to %u seconds" (true, from 6.9)
  /// instead of "Shutdown timeout set to %u seconds" (false). Section 6 has the new text by 6.12,
  /// "likely 6.9"; the rewording was posted to linux-nvme on 7 March 2024, after the nvme pull for
  /// the 6.9 merge window, for the 6.9 fixes: the table takes 6.9 (docs/profiles.md).
  bool d3_latency_message = false;
  ShutdownWait shutdown_wait = ShutdownWait::msleep_loop;
  /// PCI ids ("vvvv:dddd", lower case) with NVME_QUIRK_DELAY_BEFORE_CHK_RDY: msleep(delay_quirk_ms)
  /// after the disable CC write, before the RDY=0 wait; never on enable or shutdown (before 6.2 the
  /// shutdown has its own path without it; from 6.2 the shared disable path skips it for a
  /// shutdown). The list grows by release (linux-readiness.md section 6): 4.8-4.12 1c58:0003 and
  /// 1c5f:0540; 4.13 +144d:a821, 144d:a822; 4.14 +1c58:0023; 4.19 +1bb1:0100 (section 2's six).
  std::vector<std::string> delay_quirk_ids;
  /// NVME_QUIRK_DELAY_AMOUNT, the quirk's msleep in ms: 2000 up to 4.13, 2300 from 4.14 (section 6).
  /// Valid range 0 - 60000.
  unsigned delay_quirk_ms = 2300;
  /// True from 4.10: the quirk delays every disable, the first probe's included. 4.8-4.9 (false):
  /// only when the controller already has an I/O tag set, i.e. later disables (`nvme reset`),
  /// never the first probe after boot or module load (section 6).
  bool delay_quirk_first_probe = true;
  /// The same quirk by Identify Controller model ("Samsung Portable SSD X5", vendor 144d), applied
  /// after Identify: later resets, not the first disable at probe (5.19+).
  bool delay_quirk_model_rule = false;
  /// A failed disable wait at probe triggers one PCIe function-level reset and one retry (mainline
  /// 6.17+; 6.12.y and 6.6.y stable from August 2025: an override). Without the FLR capability, or
  /// when the function does not come back, the probe fails with the wait's error (section 6).
  bool flr_retry = false;
};

/// The PCI ids with the delay-before-check-ready quirk from 4.19 on (linux-readiness.md section 2).
const std::vector<std::string>& base_delay_quirk_ids();

/// The table, oldest release first: one row per range of releases that behave alike.
const std::vector<KernelProfile>& kernel_profiles();

/// The profile of the row holding `v`. Throws std::invalid_argument naming the supported range.
const KernelProfile& profile_for(const KernelVersion& v);

/// Every mainline release the table covers, oldest first ("4.8", ..., "4.20", "5.0", ..., "6.19"):
/// from its first row's first release to its last row's last, with the ends of the major lines
/// (4.x ends at 4.20, 5.x at 5.19).
std::vector<std::string> supported_releases();

/// "4.8 to 6.19 (mainline 4.8, 4.9, ..., 4.20, 5.0, ..., 5.19, 6.0, ..., 6.19)": the releases the
/// table covers, for messages.
std::string supported_kernel_range();

/// The model string and vendor of the later quirk rule.
inline constexpr const char* kDelayQuirkModel = "Samsung Portable SSD X5";
inline constexpr unsigned kDelayQuirkModelVendor = 0x144d;
/// The largest delay_quirk_ms an override may give (60 s; the kernel's values are 2000 and 2300).
inline constexpr unsigned kDelayQuirkMaxMs = 60000;

}  // namespace nvmesim
