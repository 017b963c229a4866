#include "host/linux/kernel_profile.hpp"
#include "core/terminal_text.hpp"

#include <algorithm>
#include <cctype>
#include <stdexcept>

namespace nvmesim {

KernelVersion KernelVersion::parse(std::string_view text) {
  KernelVersion v;
  int* parts[] = {&v.major, &v.minor, &v.patch};
  size_t n = 0, i = 0;
  auto fail = [&]() {
    throw std::invalid_argument("kernel version " + quoted_text(text) +
                                " is not of the form \"MAJOR.MINOR\" or \"MAJOR.MINOR.PATCH\" (e.g. \"5.7\", \"6.6.30\"), "
                                "optionally followed by a distribution's suffix as `uname -r` prints it "
                                "(\"5.4.0-150-generic\", \"6.6.13+deb12-amd64\")");
  };
  auto suffix_char = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '+' || c == '~' || c == '-';
  };
  while (n < 3) {
    size_t start = i;
    int value = 0;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
      value = value * 10 + (text[i] - '0');
      if (value > 9999) fail();
      ++i;
    }
    if (i == start || (i - start > 1 && text[start] == '0')) fail();  // "05.4", "5.04": no leading zeros
    *parts[n++] = value;
    if (i == text.size()) break;
    if (n >= 2 && (text[i] == '-' || text[i] == '+' || text[i] == '~')) break;  // a distribution suffix
    if (text[i] != '.' || n == 3) fail();  // "5.4.0." and "5.4.0.1" are not versions
    ++i;
  }
  if (n < 2) fail();
  if (i != text.size()) {
    if (text[i] != '-' && text[i] != '+' && text[i] != '~') fail();
    const std::string_view suffix = text.substr(i + 1);
    if (suffix.empty() || suffix.size() > 64 || !std::isalnum(static_cast<unsigned char>(suffix[0])) ||
        !std::all_of(suffix.begin(), suffix.end(), suffix_char))
      fail();  // "5.4.0--", "5.4.0-.": a suffix starts with a letter or digit
    v.uname_r = std::string(text);
  }
  return v;
}

bool KernelVersion::release_candidate() const {
  const size_t at = uname_r.find_first_of("-+~");
  const std::string tail = at == std::string::npos ? std::string() : uname_r.substr(at);
  return tail.size() > 3 && tail.compare(0, 3, "-rc") == 0 &&
         std::all_of(tail.begin() + 3, tail.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

std::string KernelVersion::mainline() const {
  return std::to_string(major) + "." + std::to_string(minor) + (patch ? "." + std::to_string(patch) : "");
}

const std::vector<std::string>& base_delay_quirk_ids() {
  static const std::vector<std::string> ids = {"1bb1:0100", "1c58:0003", "1c58:0023",
                                               "1c5f:0540", "144d:a821", "144d:a822"};
  return ids;
}

const std::vector<KernelProfile>& kernel_profiles() {
  // One row per range of mainline releases that behave alike (linux-readiness.md section 2, with
  // the corrections of section 6).
  // Each row starts from the one before and changes only what the release changed.
  static const std::vector<KernelProfile> table = [] {
    std::vector<KernelProfile> t;
    KernelProfile p;
    // 4.8: msleep(100) polls, half-jiffies deadline from CAP.TO, one CC write, the shutdown's own
    // msleep(100) loop; no queues line (it starts at 5.0, section 6); no all-ones test in the wait
    // loop (section 6). The delay quirk (section 6): msleep(2000), two ids, and only on disables
    // after the I/O tag set exists (not the first probe).
    p.first = "4.8";
    p.last = "4.8";
    p.queues_line = false;
    p.all_ones_in_loop = false;
    p.enable_reads_cap = false;      // the enable uses the CAP of the probe (5.4 re-reads it)
    p.admin_queue_reads_cap = true;  // section 6: 4.8 reads CAP again in the admin-queue setup
    p.css_from_cap = false;          // CC.CSS 0 (NVM) up to 5.9
    p.rtd3e_shutdown_timeout = false;  // 4.8 - 4.13: the module parameter alone
    p.delay_quirk_ids = {"1c58:0003", "1c5f:0540"};
    p.delay_quirk_ms = 2000;
    p.delay_quirk_first_probe = false;
    t.push_back(p);
    // 4.9: the wait loop fails at once with -ENODEV when CSTS reads all ones; CAP is read once
    // before the disable.
    p.first = "4.9";
    p.last = "4.9";
    p.all_ones_in_loop = true;
    p.admin_queue_reads_cap = false;
    t.push_back(p);
    // 4.10 - 4.12: the quirk delays every disable, the first probe's included.
    p.first = "4.10";
    p.last = "4.12";
    p.delay_quirk_first_probe = true;
    t.push_back(p);
    // 4.13: 144d:a821 and 144d:a822 get the quirk.
    p.first = "4.13";
    p.last = "4.13";
    p.delay_quirk_ids = {"1c58:0003", "1c5f:0540", "144d:a821", "144d:a822"};
    t.push_back(p);
    // 4.14 - 4.18: NVME_QUIRK_DELAY_AMOUNT becomes 2300 ms; 1c58:0023 gets the quirk; Identify
    // RTD3E sets the shutdown timeout (section 6: clamp from 4.14/4.15; the table takes 4.14).
    p.first = "4.14";
    p.last = "4.18";
    p.rtd3e_shutdown_timeout = true;
    p.delay_quirk_ids = {"1c58:0003", "1c58:0023", "1c5f:0540", "144d:a821", "144d:a822"};
    p.delay_quirk_ms = 2300;
    t.push_back(p);
    // 4.19 - 4.20: 1bb1:0100 (it appears between 4.15 and 4.19; the table puts it at 4.19, the first
    // release the reference names with it): section 2's six ids.
    p.first = "4.19";
    p.last = "4.20";
    p.delay_quirk_ids = base_delay_quirk_ids();
    t.push_back(p);
    // 5.0 - 5.3: the "%d/%d/%d default/read/poll queues" line (section 6: from 5.0, not 5.4).
    p.first = "5.0";
    p.last = "5.3";
    p.queues_line = true;
    t.push_back(p);
    // 5.4 - 5.6: nvme_enable_ctrl starts by re-reading CAP (section 6).
    p.first = "5.4";
    p.last = "5.6";
    p.enable_reads_cap = true;
    t.push_back(p);
    // 5.7 - 5.9: usleep_range(1000, 2000) (the 2020 change) and ", CSTS=0x%x" in the message.
    p.first = "5.7";
    p.last = "5.9";
    p.poll = SleepPolicy::usleep_range(1000, 2000);
    p.csts_in_message = true;
    t.push_back(p);
    // 5.10 - 5.17: CC.CSS = 6 when CAP.CSS advertises the I/O command sets (bit 6), else 0 (section 6).
    p.first = "5.10";
    p.last = "5.17";
    p.css_from_cap = true;
    t.push_back(p);
    // 5.18: 144d:a808 carries the delay quirk too (+2.3 s on many Samsung 970 EVO Plus boots).
    p.first = "5.18";
    p.last = "5.18";
    p.delay_quirk_ids.push_back("144d:a808");
    t.push_back(p);
    // 5.19 - 6.1: NVMe 2.0 ready modes: CRTO (read before the first CC write) instead of CAP.TO when
    // CAP.CRWMS; CC.CRIME only when CAP.CRWMS and CAP.CRIMS are both set (the CRIME line sits
    // inside the CRWMS test, section 6); CC written with EN=0 and read back before EN=1; the X5
    // quirk moves to a model match applied after Identify.
    p.first = "5.19";
    p.last = "6.1";
    p.delay_quirk_ids = base_delay_quirk_ids();
    p.delay_quirk_model_rule = true;
    p.enable_timeout = EnableTimeout::crto_instead;
    p.crime = CrimeRule::if_crwms_and_crims;
    p.cc_sequence = CcSequence::en0_readback;
    t.push_back(p);
    // 6.2 - 6.5: whole-second deadlines; the shutdown uses nvme_wait_ready (usleep_range); a
    // failed probe returns its error without "Removing after probe failure" (section 6).
    p.first = "6.2";
    p.last = "6.5";
    p.probe_failure_message = false;
    p.deadline = DeadlineForm::whole_seconds;
    p.shutdown_wait = ShutdownWait::wait_ready;
    p.shutdown_poll = SleepPolicy::usleep_range(1000, 2000);
    t.push_back(p);
    // 6.6 - 6.11: max(CAP.TO, CRTO) with the "bad crto" warning once; CAP re-read after the first
    // CC write, CRTO read after it.
    p.first = "6.6";
    p.last = "6.8";
    p.enable_timeout = EnableTimeout::crto_max;
    p.cc_sequence = CcSequence::en0_readback_cap;
    p.crto_warning = true;
    t.push_back(p);
    // 6.9 - 6.11: "D3 entry latency set to %u seconds" instead of "Shutdown timeout set to"
    // (section 6: by 6.12, likely 6.9; the table takes 6.9, docs/profiles.md says why).
    p.first = "6.9";
    p.last = "6.11";
    p.d3_latency_message = true;
    t.push_back(p);
    // 6.12: CRIME never set; no CC read-back in the enable (section 6: removed in 6.12, not 6.19);
    // msleep loses its extra jiffy.
    p.first = "6.12";
    p.last = "6.12";
    p.cc_sequence = CcSequence::en0_cap;
    p.crime = CrimeRule::never;
    p.timer.msleep_extra_jiffy = false;
    t.push_back(p);
    // 6.13 - 6.16: fsleep's 6.13 rule (the waits do not use fsleep; an override may).
    p.first = "6.13";
    p.last = "6.16";
    p.timer.fsleep_613 = true;
    t.push_back(p);
    // 6.17 - 6.19: a failed disable wait at probe gets one FLR and one retry (section 6: mainline
    // from 6.17, not 6.19; 6.12.y and 6.6.y stable got it in August 2025: an override).
    p.first = "6.17";
    p.last = "6.19";
    p.flr_retry = true;
    t.push_back(p);
    return t;
  }();
  return table;
}

namespace {

// The last minor release of each finished mainline major line within the table: 4.x ended at 4.20
// and 5.x at 5.19 (Linux numbering; 6.x goes on, and the table's last row bounds it).
struct MajorLineEnd {
  int major, last_minor;
};
constexpr MajorLineEnd kMajorLineEnds[] = {{4, 20}, {5, 19}};

int last_minor_of(int major, int table_last_minor, int table_last_major) {
  for (const auto& e : kMajorLineEnds)
    if (e.major == major) return e.last_minor;
  return major == table_last_major ? table_last_minor : -1;
}

}  // namespace

std::vector<std::string> supported_releases() {
  const auto& t = kernel_profiles();
  const KernelVersion first = KernelVersion::parse(t.front().first), last = KernelVersion::parse(t.back().last);
  std::vector<std::string> out;
  for (int major = first.major; major <= last.major; ++major) {
    const int end = last_minor_of(major, last.minor, last.major);
    for (int minor = major == first.major ? first.minor : 0; minor <= end; ++minor)
      out.push_back(std::to_string(major) + "." + std::to_string(minor));
  }
  return out;
}

const KernelProfile& profile_for(const KernelVersion& v) {
  const std::vector<std::string> releases = supported_releases();
  const bool exists = std::any_of(releases.begin(), releases.end(), [&](const std::string& r) {
    return KernelVersion::parse(r).release_key() == v.release_key();
  });
  if (exists) {
    for (const auto& p : kernel_profiles()) {
      if (v.release_key() >= KernelVersion::parse(p.first).release_key() &&
          v.release_key() <= KernelVersion::parse(p.last).release_key())
        return p;
    }
  }
  throw std::invalid_argument("kernel " + v.to_string() + " is not supported; supported releases: " +
                              supported_kernel_range());
}

std::string supported_kernel_range() {
  // "4.8 to 6.19 (mainline 4.8, 4.9, ..., 4.20, 5.0, ..., 5.19, 6.0, ..., 6.19)": per major line
  // its first release (and the next one for the first line, to show the step), "...", its last.
  const auto& t = kernel_profiles();
  const std::vector<std::string> releases = supported_releases();
  std::string lines;
  for (size_t i = 0; i < releases.size();) {
    const int major = KernelVersion::parse(releases[i]).major;
    size_t j = i;
    while (j + 1 < releases.size() && KernelVersion::parse(releases[j + 1]).major == major) ++j;
    lines += (lines.empty() ? "" : ", ") + releases[i];
    if (i == 0 && j > i + 1) lines += ", " + releases[i + 1];
    if (j > i) lines += (j > i + 1 ? ", ..., " : ", ") + releases[j];
    i = j + 1;
  }
  return t.front().first + " to " + t.back().last + " (mainline " + lines + ")";
}

}  // namespace nvmesim
