#include "host/kernel_profile.hpp"

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
  }
  return "?";
}
const char* to_string(CcSequence s) {
  switch (s) {
    case CcSequence::single_write: return "CC=config|EN";
  }
  return "?";
}

const std::vector<KernelProfile>& kernel_profiles() {
  static const std::vector<KernelProfile> table = [] {
    std::vector<KernelProfile> t;
    KernelProfile p;
    // 5.4 - 5.6: msleep(100) between CSTS reads; 5.4 is the first release with the queues line.
    p.first = "5.4";
    p.last = "5.6";
    p.poll = SleepPolicy::msleep(100);
    p.csts_in_message = false;
    t.push_back(p);
    // 5.7 - 5.18: usleep_range(1000, 2000) (the 2020 change, first released in 5.7), and the
    // ", CSTS=0x%x" suffix on the not-ready message.
    p.first = "5.7";
    p.last = "5.18";
    p.poll = SleepPolicy::usleep_range(1000, 2000);
    p.csts_in_message = true;
    t.push_back(p);
    return t;
  }();
  return table;
}

const KernelProfile& profile_for(const KernelVersion& v) {
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
  return t.front().first + " to " + t.back().last;
}

}  // namespace nvmesim
