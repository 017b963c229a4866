#include "host/linux/kernel_profile.hpp"

#include <cctype>
#include <stdexcept>

namespace nvmesim {

KernelVersion KernelVersion::parse(std::string_view text) {
  KernelVersion v;
  int* parts[] = {&v.major, &v.minor, &v.patch};
  size_t n = 0, i = 0;
  auto fail = [&]() {
    throw std::invalid_argument("kernel version \"" + std::string(text) +
                                "\" is not of the form \"MAJOR.MINOR\" or \"MAJOR.MINOR.PATCH\" (e.g. \"5.7\", \"6.6.30\")");
  };
  while (n < 3) {
    size_t start = i;
    int value = 0;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
      value = value * 10 + (text[i] - '0');
      if (value > 9999) fail();
      ++i;
    }
    if (i == start) fail();
    *parts[n++] = value;
    if (i == text.size()) break;
    if (text[i] != '.') fail();
    ++i;
  }
  if (n < 2 || i != text.size()) fail();
  return v;
}

std::string KernelVersion::to_string() const {
  return std::to_string(major) + "." + std::to_string(minor) + (patch ? "." + std::to_string(patch) : "");
}

const char* to_string(DeadlineForm f) {
  switch (f) {
    case DeadlineForm::half_jiffies: return "jiffies + (TO+1)*HZ/2";
    case DeadlineForm::whole_seconds: return "jiffies + ((TO+1)/2)*HZ";
  }
  return "?";
}
const char* to_string(EnableTimeout t) {
  switch (t) {
    case EnableTimeout::cap_to: return "CAP.TO";
    case EnableTimeout::crto_instead: return "CRWMS ? CRTO (CRIMT if CRIME else CRWMT) : CAP.TO";
    case EnableTimeout::crto_max: return "CRWMS ? max(CAP.TO, CRTO) : CAP.TO";
  }
  return "?";
}
const char* to_string(CrimeRule r) {
  switch (r) {
    case CrimeRule::never: return "never";
    case CrimeRule::if_crims: return "if CAP.CRIMS";
    case CrimeRule::if_crwms_and_crims: return "if CAP.CRWMS and CAP.CRIMS";
  }
  return "?";
}
const char* to_string(CcSequence s) {
  switch (s) {
    case CcSequence::single_write: return "CC=config|EN";
    case CcSequence::en0_readback: return "CC=config; read CC; [read CRTO]; CC|=EN";
    case CcSequence::en0_readback_cap: return "CC=config; read CC; read CAP; [read CRTO]; CC|=EN";
    case CcSequence::en0_cap: return "CC=config; read CAP; [read CRTO]; CC|=EN";
  }
  return "?";
}
const char* to_string(ShutdownWait w) {
  switch (w) {
    case ShutdownWait::msleep_loop: return "own loop, no all-ones check";
    case ShutdownWait::wait_ready: return "nvme_wait_ready(shutdown)";
  }
  return "?";
}
const char* key_of(DeadlineForm f) { return f == DeadlineForm::half_jiffies ? "half_jiffies" : "whole_seconds"; }
const char* key_of(EnableTimeout t) {
  switch (t) {
    case EnableTimeout::cap_to: return "cap_to";
    case EnableTimeout::crto_instead: return "crto_instead";
    case EnableTimeout::crto_max: return "crto_max";
  }
  return "?";
}
const char* key_of(CrimeRule r) {
  switch (r) {
    case CrimeRule::never: return "never";
    case CrimeRule::if_crims: return "if_crims";
    case CrimeRule::if_crwms_and_crims: return "if_crwms_and_crims";
  }
  return "?";
}
const char* key_of(CcSequence s) {
  switch (s) {
    case CcSequence::single_write: return "single_write";
    case CcSequence::en0_readback: return "en0_readback";
    case CcSequence::en0_readback_cap: return "en0_readback_cap";
    case CcSequence::en0_cap: return "en0_cap";
  }
  return "?";
}
const char* key_of(ShutdownWait w) { return w == ShutdownWait::msleep_loop ? "msleep_loop" : "wait_ready"; }

const std::vector<std::string>& base_delay_quirk_ids() {
  static const std::vector<std::string> ids = {"1bb1:0100", "1c58:0003", "1c58:0023",
                                               "1c5f:0540", "144d:a821", "144d:a822"};
  return ids;
}

const std::vector<KernelProfile>& kernel_profiles() {
  // One row per range of mainline releases that behave alike (linux-readiness.md section 2).
  // Each row starts from the one before and changes only what the release changed.
  static const std::vector<KernelProfile> table = [] {
    std::vector<KernelProfile> t;
    KernelProfile p;
    p.delay_quirk_ids = base_delay_quirk_ids();
    // 4.8 - 5.3: msleep(100) polls, half-jiffies deadline from CAP.TO, one CC write, the shutdown's
    // own msleep(100) loop; no queues line (4.19 does not print it).
    p.first = "4.8";
    p.last = "5.3";
    p.queues_line = false;
    t.push_back(p);
    // 5.4 - 5.6: the "%d/%d/%d default/read/poll queues" line.
    p.first = "5.4";
    p.last = "5.6";
    p.queues_line = true;
    t.push_back(p);
    // 5.7 - 5.17: usleep_range(1000, 2000) (the 2020 change) and ", CSTS=0x%x" in the message.
    p.first = "5.7";
    p.last = "5.17";
    p.poll = SleepPolicy::usleep_range(1000, 2000);
    p.csts_in_message = true;
    t.push_back(p);
    // 5.18: 144d:a808 carries the delay quirk too (+2.3 s on many Samsung 970 EVO Plus boots).
    p.first = "5.18";
    p.last = "5.18";
    p.delay_quirk_ids.push_back("144d:a808");
    t.push_back(p);
    // 5.19 - 6.1: NVMe 2.0 ready modes: CRTO instead of CAP.TO when CAP.CRWMS, CC.CRIME when
    // CAP.CRIMS, CC written with EN=0 and read back before EN=1; the X5 quirk moves to a model
    // match applied after Identify.
    p.first = "5.19";
    p.last = "6.1";
    p.delay_quirk_ids = base_delay_quirk_ids();
    p.delay_quirk_model_rule = true;
    p.enable_timeout = EnableTimeout::crto_instead;
    p.crime = CrimeRule::if_crims;
    p.cc_sequence = CcSequence::en0_readback;
    t.push_back(p);
    // 6.2 - 6.5: whole-second deadlines; the shutdown uses nvme_wait_ready (usleep_range).
    p.first = "6.2";
    p.last = "6.5";
    p.deadline = DeadlineForm::whole_seconds;
    p.shutdown_wait = ShutdownWait::wait_ready;
    p.shutdown_poll = SleepPolicy::usleep_range(1000, 2000);
    t.push_back(p);
    // 6.6 - 6.11: max(CAP.TO, CRTO) with the "bad crto" warning once; CRIME only with CRWMS and
    // CRIMS; CAP re-read after the first CC write.
    p.first = "6.6";
    p.last = "6.11";
    p.enable_timeout = EnableTimeout::crto_max;
    p.crime = CrimeRule::if_crwms_and_crims;
    p.cc_sequence = CcSequence::en0_readback_cap;
    p.crto_warning = true;
    t.push_back(p);
    // 6.12: CRIME never set; msleep loses its extra jiffy.
    p.first = "6.12";
    p.last = "6.12";
    p.crime = CrimeRule::never;
    p.msleep_extra_jiffy = false;
    t.push_back(p);
    // 6.13 - 6.18: fsleep's 6.13 rule (the waits do not use fsleep; an override may).
    p.first = "6.13";
    p.last = "6.18";
    p.fsleep_613 = true;
    t.push_back(p);
    // 6.19: no CC read-back; a failed disable wait at probe gets one FLR and one retry.
    p.first = "6.19";
    p.last = "6.19";
    p.cc_sequence = CcSequence::en0_cap;
    p.flr_retry = true;
    t.push_back(p);
    return t;
  }();
  return table;
}

const KernelProfile& profile_for(const KernelVersion& v) {
  // Mainline numbering: 4.x ended at 4.20, 5.x at 5.19; 6.19 is the newest release described.
  const bool exists = (v.major == 4 && v.minor <= 20) || (v.major == 5 && v.minor <= 19) || v.major == 6;
  if (!exists)
    throw std::invalid_argument("kernel " + v.to_string() + " is not supported; supported releases: " +
                                supported_kernel_range());
  for (const auto& p : kernel_profiles()) {
    if (v.release_key() >= KernelVersion::parse(p.first).release_key() &&
        v.release_key() <= KernelVersion::parse(p.last).release_key())
      return p;
  }
  throw std::invalid_argument("kernel " + v.to_string() + " is not supported; supported releases: " +
                              supported_kernel_range());
}

std::string supported_kernel_range() {
  const auto& t = kernel_profiles();
  return t.front().first + " to " + t.back().last + " (mainline 4.8, 4.9, ..., 4.20, 5.0, ..., 5.19, 6.0, ..., 6.19)";
}

}  // namespace nvmesim
