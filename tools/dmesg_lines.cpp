#include "tools/dmesg_lines.hpp"

#include <algorithm>
#include <optional>

namespace nvmesim::dmesg_detail {

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Parses "SSSS.ffffff" (seconds, up to 9 digits; fraction up to 9 digits) at s[i..], stopping at
// the first other character. Returns ns and moves i past it. (Pointers, not string_view calls:
// this runs for every line, and the asan preset does not inline them; issue 16 item 9.)
std::optional<int64_t> parse_seconds(std::string_view s, size_t& i) {
  const char* p = s.data() + i;
  const char* const end = s.data() + s.size();
  int64_t sec = 0;
  int digits = 0;
  while (p != end && is_digit(*p)) {
    if (++digits > 9) return std::nullopt;  // 31 years of uptime; keeps ns within int64
    sec = sec * 10 + (*p++ - '0');
  }
  if (digits == 0) return std::nullopt;
  int64_t frac = 0;
  int fd = 0;
  if (p != end && (*p == '.' || *p == ',')) {
    ++p;
    while (p != end && is_digit(*p)) {
      if (fd < 9) {
        frac = frac * 10 + (*p - '0');
        ++fd;
      }
      ++p;
    }
  }
  for (; fd < 9; ++fd) frac *= 10;
  i = static_cast<size_t>(p - s.data());
  return sec * 1000000000 + frac;
}

// "[  714.456099]" at s[i..]: returns ns and moves i past "]" and one following space.
// A printk time of more than 9 digits of seconds ("[9999999999.000000]": it would not fit int64
// ns) gives nullopt with `*bad` saying so, rather than an untimed line (a line matching --to then
// counted as not matching).
std::optional<int64_t> parse_bracket(std::string_view s, size_t& i, std::string* bad) {
  if (i >= s.size() || s.data()[i] != '[') return std::nullopt;
  size_t j = i + 1;
  while (j < s.size() && s.data()[j] == ' ') ++j;
  const size_t digits_at = j;
  const auto ns = parse_seconds(s, j);
  if (!ns) {
    // Only on the rare line that is not a printk time: was it one of too many digits?
    size_t k = digits_at;
    while (k < s.size() && is_digit(s[k])) ++k;
    if (k - digits_at > 9 && k < s.size() && (s[k] == '.' || s[k] == ',' || s[k] == ']')) {
      const size_t close = s.find(']', k);
      *bad = "\"" + std::string(s.substr(i, std::min<size_t>(close == std::string_view::npos ? s.size() - i : close + 1 - i, 40))) +
             "\" is not a time the reader takes: more than 9 digits of seconds (31 years of uptime)";
    }
    return std::nullopt;
  }
  if (j >= s.size() || s.data()[j] != ']') return std::nullopt;
  ++j;
  if (j < s.size() && s.data()[j] == ' ') ++j;
  i = j;
  return ns;
}

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
int64_t days_from_civil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

// Days in month `m` (1-12) of year `y` (Gregorian leap years).
int64_t days_in_month(int64_t y, int64_t m) {
  static const int64_t days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return m == 2 && leap ? 29 : days[m - 1];
}

// "2020-03-03T10:00:00,123456+00:00" (or '.', 'Z', "+0000", no zone) at the start of s; with
// `space`, "2020-03-03 10:00:00.123456" (SPDK's log time) instead. A time of that shape whose
// value is none (month 13, February 30, hour 24, minute 60, second 61, a zone past +23:59, a
// year outside 1970-2200) gives nullopt with `*bad` saying what is wrong.
std::optional<int64_t> parse_iso(std::string_view s, size_t& i, bool space, std::string* bad) {
  const char* shape = space ? "dddd-dd-dd dd:dd:dd" : "dddd-dd-ddTdd:dd:dd";
  size_t n = 0;
  for (; shape[n]; ++n) {
    if (n >= s.size()) return std::nullopt;
    if (shape[n] == 'd' ? !is_digit(s[n]) : s[n] != shape[n]) return std::nullopt;
  }
  auto num = [&](size_t a, size_t len) {
    int64_t v = 0;
    for (size_t k = a; k < a + len; ++k) v = v * 10 + (s[k] - '0');
    return v;
  };
  const int64_t y = num(0, 4), mo = num(5, 2), d = num(8, 2), h = num(11, 2), mi = num(14, 2), se = num(17, 2);
  const std::string_view shown = s.substr(0, n);
  auto fail = [&](const std::string& why) -> std::optional<int64_t> {
    *bad = "\"" + std::string(shown) + "\" is not a time: " + why;
    return std::nullopt;
  };
  // ns since the epoch stay within int64 (2262); 1970 keeps them above -24 h (a zone east of UTC
  // on 1970-01-01 gives a negative time).
  if (y < 1970 || y > 2200) return fail("the year must be 1970 to 2200");
  if (mo < 1 || mo > 12) return fail("the month must be 01 to 12");
  if (d < 1 || d > days_in_month(y, mo))
    return fail("the day must be 01 to " + std::to_string(days_in_month(y, mo)) + " in " + std::string(shown.substr(0, 7)));
  if (h > 23) return fail("the hour must be 00 to 23");
  if (mi > 59) return fail("the minute must be 00 to 59");
  if (se > 60) return fail("the second must be 00 to 60 (a leap second)");
  int64_t ns = (days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se) * 1000000000;
  size_t j = n;
  if (j < s.size() && (s[j] == '.' || s[j] == ',')) {
    ++j;
    int64_t frac = 0;
    int fd = 0;
    while (j < s.size() && is_digit(s[j])) {
      if (fd < 9) {
        frac = frac * 10 + (s[j] - '0');
        ++fd;
      }
      ++j;
    }
    for (; fd < 9; ++fd) frac *= 10;
    ns += frac;
  }
  // A zone right after the time: Z, +HH:MM or +HHMM (either sign). Anything else that starts
  // like one ("+00:3", "+0", U+2212 for the minus) is refused, not read as untimed or UTC.
  const bool unicode_minus = s.compare(j, 3, "\xe2\x88\x92") == 0;
  if (j < s.size() && s[j] == 'Z') {
    ++j;
  } else if (unicode_minus || (j < s.size() && (s[j] == '+' || s[j] == '-'))) {
    const size_t end = std::min(s.find(' ', j), s.size());
    const std::string zone(s.substr(j, std::min<size_t>(end - j, 16)));
    auto two_digits = [&](size_t a) { return a + 2 <= s.size() && is_digit(s[a]) && is_digit(s[a + 1]); };
    if (unicode_minus) return fail("its zone \"" + zone + "\" has the minus U+2212; write ASCII '-' (e.g. -05:00)");
    const int64_t sign = s[j] == '+' ? 1 : -1;
    size_t k = j + 1;
    if (!two_digits(k)) return fail("its zone \"" + zone + "\" is not +HH:MM, +HHMM or Z");
    const int64_t zh = num(k, 2);
    k += 2;
    if (k < s.size() && s[k] == ':') ++k;
    if (!two_digits(k) || (k + 2 < s.size() && is_digit(s[k + 2])))
      return fail("its zone \"" + zone + "\" is not +HH:MM, +HHMM or Z");
    const int64_t zm = num(k, 2);
    if (zh > 23 || zm > 59) return fail("the zone offset must be at most 23:59");
    ns -= sign * (zh * 3600 + zm * 60) * 1000000000;
    j = k + 2;
  }
  if (j < s.size() && s[j] == ' ') ++j;
  i = j;
  return ns;
}

// SPDK's log: "[2023-04-17 19:10:08.630485] msg" (local time, microseconds) at the start of raw:
// returns ns since the epoch (as if UTC) and moves i past "] ".
std::optional<int64_t> parse_spdk_time(std::string_view raw, size_t& i, std::string* bad) {
  if (raw.size() < 2 || raw[0] != '[') return std::nullopt;
  const size_t close = raw.find(']');
  if (close == std::string_view::npos) return std::nullopt;
  const std::string_view inner = raw.substr(1, close - 1);
  size_t j = 0;
  const auto ns = parse_iso(inner, j, true, bad);
  if (!ns || j != inner.size()) return std::nullopt;
  i = close + 1;
  if (i < raw.size() && raw[i] == ' ') ++i;
  return ns;
}

// Skips "HOST kernel: " (journalctl, syslog) at s[i..] when present.
void skip_kernel_tag(std::string_view s, size_t& i) {
  const size_t sp = s.find(' ', i);
  if (sp == std::string_view::npos) return;
  if (sp + 1 < s.size() && s.data()[sp + 1] == 'k' && s.compare(sp + 1, 8, "kernel: ") == 0) i = sp + 9;
}

// /dev/kmsg: "6,1234,714456099,-;msg" (time in microseconds). True when `raw` is such a record.
bool split_kmsg(std::string_view raw, DmesgLineView& l) {
  if (raw.empty() || !is_digit(raw.data()[0])) return false;  // a record starts with its level
  size_t j = 0, commas = 0;
  int64_t fields[3] = {0, 0, 0};
  bool ok = true, too_big = false;
  while (j < raw.size() && raw[j] != ';' && ok) {
    if (raw[j] == ',') {
      ++commas;
    } else if (commas < 3) {
      if (!is_digit(raw[j])) ok = false;
      else if (fields[commas] < 100000000000000) fields[commas] = fields[commas] * 10 + (raw[j] - '0');
      else too_big = true;  // more than 31 years in microseconds (a sequence number as long is no record either)
    }
    ++j;
  }
  if (!(ok && commas >= 3 && j < raw.size() && j > 0 && is_digit(raw[0]))) return false;
  if (too_big) {
    // A record of the right shape whose numbers do not fit: refused at its line, as a printk time
    // of more than 9 digits of seconds is, not read as untimed (attack of stop 26: the interval
    // then closed at a later line).
    l.bad_time = "\"" + std::string(raw.substr(0, std::min<size_t>(j, 40))) +
                 "\" is not a /dev/kmsg record the reader takes: a number of more than 15 digits (the time "
                 "would be more than 31 years of microseconds)";
    l.msg = raw;
    return true;
  }
  l.timed = true;
  l.ns = fields[2] * 1000;
  l.msg = raw.substr(j + 1);
  return true;
}

}  // namespace

DmesgLineView split_dmesg_line_view(std::string_view raw) {
  DmesgLineView l;
  size_t i = 0;
  if (split_kmsg(raw, l)) return l;
  // "<6>" printk level (dmesg -r).
  if (i < raw.size() && raw[i] == '<') {
    size_t j = i + 1;
    while (j < raw.size() && is_digit(raw[j])) ++j;
    if (j > i + 1 && j < raw.size() && raw[j] == '>') i = j + 1;
  }
  std::string bad;
  if (auto ns = parse_bracket(raw, i, &bad)) {
    l.timed = true;
    l.ns = *ns;
    skip_kernel_tag(raw, i);  // journalctl -o short-monotonic
    l.msg = raw.substr(i);
    return l;
  }
  if (!bad.empty()) {
    l.bad_time = bad;
    l.msg = raw;
    return l;
  }
  if (auto ns = parse_spdk_time(raw, i, &bad)) {
    l.timed = true;
    l.ns = *ns;
    l.msg = raw.substr(i);
    return l;
  }
  if (!bad.empty()) {
    l.bad_time = bad;
    l.msg = raw;
    return l;
  }
  if (auto ns = parse_iso(raw, i, false, &bad)) {
    l.timed = true;
    l.ns = *ns;
    skip_kernel_tag(raw, i);
    size_t k = i;
    if (auto mono = parse_bracket(raw, k, &bad)) {  // the kernel's own time inside, as kern.log has it
      l.ns = *mono;
      i = k;
    } else if (!bad.empty()) {
      l.timed = false;
      l.bad_time = bad;
      l.msg = raw;
      return l;
    }
    l.msg = raw.substr(i);
    return l;
  }
  if (!bad.empty()) {
    l.bad_time = bad;
    l.msg = raw;
    return l;
  }
  // Syslog ("Mar  3 10:00:00 host kernel: [  714.456099] msg"): the bracketed kernel time.
  const size_t k = raw.find("kernel: ");
  if (k != std::string_view::npos) {
    size_t j = k + 8;
    if (auto ns = parse_bracket(raw, j, &bad)) {
      l.timed = true;
      l.ns = *ns;
      l.msg = raw.substr(j);
      return l;
    }
    if (!bad.empty()) {
      l.bad_time = bad;
      l.msg = raw;
      return l;
    }
    l.msg = raw.substr(k + 8);
    return l;
  }
  l.msg = raw.substr(i);
  return l;
}

DmesgLine split_dmesg_line(std::string_view raw) {
  DmesgLineView v = split_dmesg_line_view(raw);
  return DmesgLine{v.timed, v.ns, std::string(v.msg), std::move(v.bad_time)};
}

namespace {

bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

// True when msg[p..] starts with a PCI address "dddd:bb:dd.f" (hex digits).
bool pci_address_at(std::string_view msg, size_t p) {
  static const char* shape = "hhhh:hh:hh.h";
  for (size_t k = 0; shape[k]; ++k) {
    if (p + k >= msg.size()) return false;
    if (shape[k] == 'h' ? !is_hex(msg[p + k]) : msg[p + k] != shape[k]) return false;
  }
  return true;
}

}  // namespace

std::string controller_of(std::string_view msg) {
  // A plain scan for "nvme" (each matching line comes here; string_view::find is not inlined
  // under the asan preset, issue 16 item 9).
  const char* const b = msg.data();
  const size_t n = msg.size();
  for (size_t p = 0; p + 4 <= n; ++p) {
    if (b[p] != 'n' || b[p + 1] != 'v' || b[p + 2] != 'm' || b[p + 3] != 'e') continue;
    if (p > 0) {
      const char c = b[p - 1];
      if (is_digit(c) || c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) continue;
    }
    size_t e = p + 4;
    while (e < n && is_digit(b[e])) ++e;
    if (e > p + 4 && e - p <= 14) return std::string(b + p, e - p);
  }
  // SPDK names a PCIe controller by its address: "*DEBUG*: [0000:04:00.0] setting state to ..."
  // (NVME_CTRLR_*LOG), "Failed to initialize SSD: 0000:04:00.0".
  for (size_t p = msg.find("*: "); p != std::string_view::npos; p = msg.find("*: ", p + 1)) {
    if (p + 3 < msg.size() && msg[p + 3] == '[' && pci_address_at(msg, p + 4) && p + 16 < msg.size() &&
        msg[p + 16] == ']')
      return std::string(msg.substr(p + 4, 12));
  }
  const size_t ssd = msg.find("SSD: ");
  if (ssd != std::string_view::npos && pci_address_at(msg, ssd + 5)) return std::string(msg.substr(ssd + 5, 12));
  return "";
}

}  // namespace nvmesim::dmesg_detail
