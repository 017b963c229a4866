// The tables of `host`, `host.overrides` and `host.bad_config` (scenario/keys.hpp).
#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/json_text.hpp"
#include "host/registry.hpp"
#include "scenario/loader_parts.hpp"

namespace nvmesim::scenario_detail {

using Node = JsonNode;

namespace {

using KH = Keys<HostParams>;
using KP = Keys<KernelProfile>;
using KB = Keys<HostParams::BadConfig>;

// The keys of Linux's timers, release profile and driver core: no other driver reads them.
const std::vector<std::string> kLinux{"linux"};

// host.driver: one of the drivers of the registry (host/registry.hpp), the one list of them.
std::vector<std::string> driver_names() { return host_driver_names(); }

void read_driver(const Node& n, HostParams& h) { h.driver = n.choice(host_driver_choices()); }

// The words of a space-separated list ("13.1+ older").
std::vector<std::string> words(const std::string& list) {
  std::vector<std::string> out;
  for (size_t i = 0; i < list.size();) {
    const size_t j = std::min(list.find(' ', i), list.size());
    if (j > i) out.push_back(list.substr(i, j - i));
    i = j + 1;
  }
  return out;
}

// host.release: the drivers with a choice of releases (DriverTraits::releases), their lists.
std::vector<std::string> release_drivers() {
  std::vector<std::string> out;
  for (const DriverTraits& t : host_driver_traits())
    if (*t.releases) out.emplace_back(t.name);
  return out;
}
std::string release_type() {
  std::string out;
  for (const DriverTraits& t : host_driver_traits())
    if (*t.releases) out += (out.empty() ? "" : "; ") + std::string(t.name) + ": " + choice_type(words(t.releases));
  return out;
}

/// host.sleep_lateness's spellings.
constexpr EnumName<SleepPolicy::Lateness> kLatenessNames[] = {{SleepPolicy::Lateness::uniform, "uniform"},
                                                              {SleepPolicy::Lateness::none, "none"},
                                                              {SleepPolicy::Lateness::max, "max"}};

// After the keys: host.release is one of the driver's releases (its first when not given); a
// release without pause_sbt sleeps (FreeBSD "older") takes no host.sleep_lateness nor
// host.nvme_2x_reset; FreeBSD's host.hz is 100 or 1000, 1000 when not given.
void finish_release(const Node& n, HostParams& h) {
  const std::vector<std::string> releases = words(driver_traits(h.driver).releases);
  if (!n.has("release")) h.driver_release = releases.empty() ? "" : releases.front();
  if (n.has("sleep_lateness") && h.driver_release == "older")
    n.at("sleep_lateness").fail("FreeBSD \"older\" busy-waits (DELAY) and never calls pause_sbt; leave it out "
                                "for this release");
  if (n.has("nvme_2x_reset") && h.driver_release == "older")
    n.at("nvme_2x_reset").fail("FreeBSD \"older\" always resets the controller twice at attach; NVME_2X_RESET is "
                               "the 13.1+ option that restores it: leave it out for this release");
  if (h.driver == "freebsd") {
    // kern.hz: 1000 on bare metal, 100 in many VMs; CONFIG_HZ's 250 and 300 are Linux's.
    if (!n.has("hz")) h.timers.hz = 1000;
    else if (h.timers.hz != 100 && h.timers.hz != 1000)
      n.at("hz").fail("FreeBSD's kern.hz must be 100 or 1000, not " + std::to_string(h.timers.hz));
  }
  if (!n.has("release")) return;
  if (std::find(releases.begin(), releases.end(), h.driver_release) == releases.end()) {
    std::vector<std::pair<std::string, std::string>> choices;
    for (const auto& r : releases) choices.emplace_back(r, r);
    (void)n.at("release").choice(choices);  // fails listing the driver's releases
  }
}

/// host.shutdown_notification's spellings: the CC.SHN value written (abrupt: true).
constexpr EnumName<bool> kShutdownNotificationNames[] = {{false, "normal"}, {true, "abrupt"}};

void read_kernel(const Node& k, HostParams& h) {
  if (k.json().is_number()) {
    // The release as the number reads, and with its trailing zero back (6.1 may have been 6.10).
    const std::string as_read = k.json().dump();
    const std::string hint = as_read.find('.') != std::string::npos
                                 ? "\"" + as_read + "\", or \"" + as_read + "0\" if that is the release meant"
                                 : "\"" + as_read + "\"";
    k.fail("must be a string, not the number " + as_read +
           " (JSON drops a number's trailing zeros: 5.10 reads as 5.1): write it as a string: " + hint +
           "; with --set, quote it: --set '/host/kernel=\"5.10\"'");
  }
  try {
    h.kernel = KernelVersion::parse(k.str());
    h.profile = profile_for(h.kernel);
  } catch (const std::invalid_argument& e) {
    k.fail(e.what());
  }
}

void read_hz(const Node& hz, HostParams& h) {
  // One message for every wrong value, a wrong type or a number out of any range alike: the
  // driver's choices (CONFIG_HZ's four; FreeBSD's kern.hz 100 or 1000), never a range (issue 16's
  // last findings, item 5). h.driver is the section's (read first: see host_section's start).
  const auto& j = hz.json();
  const bool freebsd = h.driver == "freebsd";
  const bool listed = j.is_number_integer() &&
                      (freebsd ? (j == 100 || j == 1000) : (j == 100 || j == 250 || j == 300 || j == 1000));
  const std::string given =
      j.is_string() ? "the string " + j.dump() : j.is_number() ? j.dump() : std::string(type_name(j));
  if (!listed && freebsd) hz.fail("FreeBSD's kern.hz must be 100 or 1000, not " + given);
  if (!listed) hz.fail("must be one of 100, 250, 300, 1000 (CONFIG_HZ), not " + given);
  h.timers.hz = j.get<int>();
}

SleepPolicy read_policy(const Node& p) {
  try {
    return SleepPolicy::parse(p.str());
  } catch (const std::invalid_argument& e) {
    p.fail(e.what());
  }
}

constexpr const char* kPolicyType =
    "a sleep: `\"msleep(MS)\"`, `\"usleep_range(MIN_US, MAX_US)\"`, `\"fsleep(US)\"`, `\"udelay(US)\"` or `\"busy\"`";

const Section<KernelProfile>& overrides_section() {
  static const Section<KernelProfile> s(
      "host.overrides",
      "One behaviour of the release changed, e.g. for a stable kernel that got a later change. Each key is a "
      "field of the kernel profile; the default is the release's row (`nvmesim profiles`, docs/profiles.md "
      "\"The fields\").",
      {KP::row("poll", kPolicyType, computed("the release's"), "", "the sleep between two CSTS reads in the wait",
               [](const Node& n, KernelProfile& p) { p.poll = read_policy(n); }),
       KP::row("shutdown_poll", kPolicyType, computed("the release's"), "", "the sleep of the shutdown wait",
               [](const Node& n, KernelProfile& p) { p.shutdown_poll = read_policy(n); }),
       KP::choice("deadline", kDeadlineFormNames, computed("the release's"),
                  "how the wait's deadline follows from a timeout in 500 ms units", to(&KernelProfile::deadline)),
       KP::choice("enable_timeout", kEnableTimeoutNames, computed("the release's"), "the enable wait's timeout",
                  to(&KernelProfile::enable_timeout)),
       KP::choice("crime", kCrimeRuleNames, computed("the release's"),
                  "when CC.CRIME (ready independent of media) is set", to(&KernelProfile::crime)),
       KP::choice("cc_sequence", kCcSequenceNames, computed("the release's"), "the enable's register accesses",
                  to(&KernelProfile::cc_sequence)),
       KP::boolean("enable_reads_cap", computed("the release's"),
                   "the enable starts by re-reading CAP (5.4+)", to(&KernelProfile::enable_reads_cap)),
       KP::boolean("admin_queue_reads_cap", computed("the release's"),
                   "the admin-queue setup re-reads CAP before VS (4.8)", to(&KernelProfile::admin_queue_reads_cap)),
       KP::boolean("css_from_cap", computed("the release's"),
                   "CC.CSS 6 when CAP.CSS has bit 6, else 0 (5.10+; before: always 0)",
                   to(&KernelProfile::css_from_cap)),
       KP::boolean("rtd3e_shutdown_timeout", computed("the release's"),
                   "Identify RTD3E sets the shutdown timeout, clamp(RTD3E, shutdown_timeout_s, 60) (4.14+)",
                   to(&KernelProfile::rtd3e_shutdown_timeout)),
       KP::boolean("crto_warning", computed("the release's"), "`bad crto:%x cap:%llx` once per boot (6.6+)",
                   to(&KernelProfile::crto_warning)),
       KP::boolean("msleep_extra_jiffy", computed("the release's"), "msleep asks for one more jiffy (before 6.12)",
                   to(&KernelProfile::timer, &TimerRules::msleep_extra_jiffy)),
       KP::boolean("fsleep_613", computed("the release's"), "fsleep follows the 6.13 rule",
                   to(&KernelProfile::timer, &TimerRules::fsleep_613)),
       KP::boolean("csts_in_message", computed("the release's"), "`Device not ready; aborting ..., CSTS=0x%x` (5.7+)",
                   to(&KernelProfile::csts_in_message)),
       KP::boolean("all_ones_in_loop", computed("the release's"),
                   "the wait loop fails at once when CSTS reads all ones (4.9+; 4.8 tests it like any value)",
                   to(&KernelProfile::all_ones_in_loop)),
       KP::boolean("queues_line", computed("the release's"), "the `D/R/P default/read/poll queues` line (5.0+)",
                   to(&KernelProfile::queues_line)),
       KP::boolean("probe_failure_message", computed("the release's"),
                   "`Removing after probe failure status: %d` when the probe or a reset fails (up to 6.1); "
                   "false: a failed reset logs `Disabling device after reset failure: %d` (6.2+)",
                   to(&KernelProfile::probe_failure_message)),
       KP::boolean("d3_latency_message", computed("the release's"),
                   "`D3 entry latency set to %u seconds` instead of `Shutdown timeout set to %u seconds` (6.9+)",
                   to(&KernelProfile::d3_latency_message)),
       KP::choice("shutdown_wait", kShutdownWaitNames, computed("the release's"),
                  "how shutdown waits for SHST = complete", to(&KernelProfile::shutdown_wait)),
       KP::row("delay_quirk_ids", "array of `\"vvvv:dddd\"` (hex)", computed("the release's"), "",
               "PCI ids with NVME_QUIRK_DELAY_BEFORE_CHK_RDY: msleep(delay_quirk_ms) before the RDY=0 wait",
               [](const Node& ids, KernelProfile& p) {
                 p.delay_quirk_ids.clear();
                 for (size_t i = 0; i < ids.array().size(); ++i) p.delay_quirk_ids.push_back(read_pci_id(ids.at(i)));
               }),
       KP::integer("delay_quirk_ms", 0, kDelayQuirkMaxMs, computed("the release's"), "ms",
                   "NVME_QUIRK_DELAY_AMOUNT: 2000 up to 4.13, 2300 from 4.14",
                   [](KernelProfile& p, int64_t v) { p.delay_quirk_ms = static_cast<unsigned>(v); }),
       KP::boolean("delay_quirk_first_probe", computed("the release's"),
                   "the quirk delays the first probe's disable too (4.10+; 4.8-4.9 only later disables)",
                   to(&KernelProfile::delay_quirk_first_probe)),
       KP::boolean("delay_quirk_model_rule", computed("the release's"),
                   "the same quirk by Identify model, learnt at Identify (5.19+)",
                   to(&KernelProfile::delay_quirk_model_rule)),
       KP::boolean("flr_retry", computed("the release's"),
                   "a failed disable wait gets one function-level reset and one retry (6.17+)",
                   to(&KernelProfile::flr_retry))});
  return s;
}

const Section<HostParams::BadConfig>& bad_config_section() {
  static const Section<HostParams::BadConfig> s(
      "host.bad_config",
      "What-if host mistakes (Linux makes none of them) that provoke the device's bad-configuration "
      "behaviour (docs/behaviours.md).",
      {KB::integer("mps", 0, 15, computed("Linux's (0: 4 KiB)"), "",
                   "CC.MPS to write: pages of 2^(12+mps) bytes", to(&HostParams::BadConfig::mps)),
       KB::boolean("asq_misaligned", dflt("false"), "ASQ/ACQ off a 4 KiB boundary",
                   to(&HostParams::BadConfig::asq_misaligned)),
       KB::boolean("aqa_zero", dflt("false"), "AQA = 0 (one-entry queues)", to(&HostParams::BadConfig::aqa_zero)),
       KB::boolean("skip_admin_queue", dflt("false"), "never write AQA, ASQ and ACQ",
                   to(&HostParams::BadConfig::skip_admin_queue))});
  return s;
}

KernelProfile& profile_of(HostParams& h) { return h.profile; }
HostParams::BadConfig& bad_config_of(HostParams& h) { return h.bad_config; }

}  // namespace

const Section<HostParams>& host_section() {
  static const Section<HostParams> s(
      "host", "The host: its Linux release, timer configuration and driver.",
      {used_by(KH::row("kernel", "string `\"MAJOR.MINOR[.PATCH]\"`", dflt("\"5.7\""), "",
               "Linux release; a **string** (6.10 as a JSON number would read 6.1). Selects a row of the kernel "
               "profile table (`nvmesim profiles`); releases 4.8 to 6.19",
               read_kernel), kLinux),
       used_by(KH::row("hz", "100, 250, 300 or 1000 (freebsd: 100 or 1000)", computed("250 (freebsd: 1000)"), "Hz",
                       "CONFIG_HZ; FreeBSD's kern.hz (1000 on bare metal, 100 in many VMs): its tick counter, "
                       "pause() ticks and the 13.1+ ready timeout's tick deadline",
                       read_hz),
               {"linux", "freebsd"}),
       used_by(KH::boolean("highres", dflt("true"), "high-resolution timers; false: usleep_range wakes at the first tick at or "
                   "after min under `periodic`, at or after max under `auto` and `nohz_idle`",
                   to(&HostParams::timers, &TimerSettings::highres)), kLinux),
       used_by(KH::choice("tick", kTickModeNames, dflt("\"auto\""),
                  "how the tick runs while usleep_range sleeps: `auto`: CONFIG_NO_HZ_IDLE with the cpuidle governor's "
                  "rule: the tick keeps running when max is shorter than 1/HZ (usleep_range wakes at the first tick "
                  "in [min, max], else at max), else it stops (wakes at max); `nohz_idle`: the tick is already "
                  "stopped (wakes at max); `periodic`: the tick runs (first tick in [min, max], else max)",
                  to(&HostParams::timers, &TimerSettings::tick)), kLinux),
       used_by(KH::row("wakeup_latency", "duration or distribution", dflt("\"0ns\""), "",
               "scheduler wakeup latency added to every msleep and usleep_range",
               [](const Node& n, HostParams& h) { h.wakeup_latency = read_distribution(n); }), kLinux),
       used_by(KH::number("background_irq_rate_hz", 0, 1e7, dflt("0"), "Hz",
                  "other interrupts on the CPU (Poisson); one in [min, max] ends a usleep_range early",
                  to(&HostParams::timers, &TimerSettings::background_irq_rate_hz)), kLinux),
       used_by(KH::row("init_to_probe", "duration or distribution", dflt("\"0ns\""), "",
               "driver init (`nvme_init`) to the probe's `pci function` line, per controller",
               [](const Node& n, HostParams& h) { h.init_to_probe = read_distribution(n); }), kLinux),
       KH::row("driver", choice_type(driver_names()), dflt("\"linux\""), "", "the host driver", read_driver),
       used_by(KH::row("release", release_type(), computed("the driver's first"), "",
                       "the driver's release (Linux's is `kernel`)",
                       [](const Node& n, HostParams& h) { h.driver_release = n.str(); }),
               release_drivers()),
       used_by(KH::choice("sleep_lateness", kLatenessNames, dflt("\"uniform\""),
                          "where a pause_sbt callout fires in its window [d, 1.5 d] (FreeBSD 13.1+): `uniform` "
                          "(one draw per sleep), `none` (at d), `max` (at 1.5 d: an idle CPU's event timer)",
                          to(&HostParams::sleep_lateness)),
               {"freebsd"}),
       used_by(KH::boolean("nvme_2x_reset", dflt("false"),
                           "FreeBSD 13.1+ built with `options NVME_2X_RESET`: two controller resets at attach, as "
                           "before 13.1 (release \"older\" always resets twice: an error there)",
                           to(&HostParams::nvme_2x_reset)),
               {"freebsd"}),
       used_by(KH::row("poll_interval", "duration or distribution", dflt("\"2us\""), "",
                       "the application's time between two polls of a controller's init state machine "
                       "(SPDK: a busy-polling application polls every few microseconds); drawn per poll",
                       [](const Node& n, HostParams& h) { h.poll_interval = read_distribution(n); }),
               {"spdk"}),
       used_by(KH::object("overrides", "object: `host.overrides`", "change one behaviour of the release", overrides_section(),
                  profile_of), kLinux),
       used_by(KH::integer("cpus", 1, 65536, dflt("64"), "",
                   "I/O queues the driver asks for (one per CPU); the device grants at most its `io_queues`",
                   to(&HostParams::cpus)), {"linux", "freebsd"}),
       KH::integer("max_polls_per_wait", 1, static_cast<int64_t>(kMaxOperationsPerTrial), dflt("2000000"), "CSTS reads",
                   "safety limit: reads in one wait before the trial stops with an error (at most 2^26: a detailed trial of that many events, 128 bytes each, fits in 8 GiB)",
                   to(&HostParams::max_polls_per_wait)),
       used_by(KH::integer("shutdown_timeout_s", 0, 3600, dflt("5"), "s",
                   "nvme_core.shutdown_timeout; with Identify RTD3E the driver uses clamp(RTD3E s, this, 60)",
                   to(&HostParams::shutdown_timeout_s)), kLinux),
       used_by(KH::boolean("async_shutdown", dflt("false"), "shut controllers down in parallel (the proposed asynchronous "
                   "shutdown)", to(&HostParams::async_shutdown)), kLinux),
       used_by(KH::choice("shutdown_notification", kShutdownNotificationNames, dflt("\"normal\""),
                  "CC.SHN the shutdown writes (`abrupt` is a what-if)", to(&HostParams::abrupt_shutdown)), kLinux),
       used_by(KH::object("bad_config", "object: `host.bad_config`", "what-if host mistakes", bad_config_section(),
                  bad_config_of), kLinux),
       KH::integer("max_events_per_trial", 1, static_cast<int64_t>(kMaxOperationsPerTrial), dflt("4000000"), "host operations",
                   "safety limit: MMIO accesses and sleeps in one trial over all controllers (at most 2^26: a detailed trial of that many events, 128 bytes each, fits in 8 GiB)",
                   to(&HostParams::max_events_per_trial))},
      // A key of another driver is an error: host.driver is known once the keys are read.
      [](const Node& n, HostParams& h) {
        check_used_by(n, host_section(), h.driver);
        finish_release(n, h);
        // Without high-resolution timers usleep_range wakes at a tick (kernel_timers.hpp): another
        // interrupt cannot end it early, so a rate would be ignored: refused instead.
        if (!h.timers.highres && h.timers.background_irq_rate_hz > 0)
          n.at(n.has("background_irq_rate_hz") ? "background_irq_rate_hz" : "highres")
              .fail("background_irq_rate_hz has no effect with highres false (usleep_range then wakes at a "
                    "tick, never at another interrupt): leave it out, set it to 0, or set highres true");
      },
      // The driver first: the keys read before its row (hz) check against the section's driver
      // (a stage's, or host's when the stage names none), not host's.
      [](const Node& n, HostParams& h) {
        if (n.has("driver")) read_driver(n.at("driver"), h);
      });
  return s;
}

}  // namespace nvmesim::scenario_detail
