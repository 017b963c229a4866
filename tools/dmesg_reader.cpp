#include "tools/dmesg_reader.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <regex>

#include "core/errors.hpp"
#include "core/stats.hpp"
#include "core/tool.hpp"

namespace nvmesim {

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Parses "SSSS.ffffff" (seconds, up to 9 digits; fraction up to 9 digits) at s[i..], stopping at
// the first other character. Returns ns and moves i past it.
std::optional<int64_t> parse_seconds(const std::string& s, size_t& i) {
  size_t j = i;
  int64_t sec = 0;
  int digits = 0;
  while (j < s.size() && is_digit(s[j])) {
    if (++digits > 9) return std::nullopt;  // 31 years of uptime; keeps ns within int64
    sec = sec * 10 + (s[j++] - '0');
  }
  if (digits == 0) return std::nullopt;
  int64_t frac = 0;
  int fd = 0;
  if (j < s.size() && (s[j] == '.' || s[j] == ',')) {
    ++j;
    while (j < s.size() && is_digit(s[j])) {
      if (fd < 9) {
        frac = frac * 10 + (s[j] - '0');
        ++fd;
      }
      ++j;
    }
  }
  for (; fd < 9; ++fd) frac *= 10;
  i = j;
  return sec * 1000000000 + frac;
}

// "[  714.456099]" at s[i..]: returns ns and moves i past "]" and one following space.
std::optional<int64_t> parse_bracket(const std::string& s, size_t& i) {
  if (i >= s.size() || s[i] != '[') return std::nullopt;
  size_t j = i + 1;
  while (j < s.size() && s[j] == ' ') ++j;
  const auto ns = parse_seconds(s, j);
  if (!ns || j >= s.size() || s[j] != ']') return std::nullopt;
  ++j;
  if (j < s.size() && s[j] == ' ') ++j;
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

// "2020-03-03T10:00:00,123456+00:00" (or '.', 'Z', "+0000", no zone) at the start of s.
std::optional<int64_t> parse_iso(const std::string& s, size_t& i) {
  static const char* shape = "dddd-dd-ddTdd:dd:dd";
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
  if (y < 1970 || y > 2200) return std::nullopt;  // ns since the epoch stay within int64
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60) return std::nullopt;
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
  if (j < s.size() && s[j] == 'Z') {
    ++j;
  } else if (j + 5 <= s.size() && (s[j] == '+' || s[j] == '-') && is_digit(s[j + 1]) && is_digit(s[j + 2])) {
    const int64_t sign = s[j] == '+' ? 1 : -1;
    const int64_t zh = num(j + 1, 2);
    size_t k = j + 3;
    if (k < s.size() && s[k] == ':') ++k;
    if (k + 2 > s.size() || !is_digit(s[k]) || !is_digit(s[k + 1])) return std::nullopt;
    const int64_t zm = num(k, 2);
    ns -= sign * (zh * 3600 + zm * 60) * 1000000000;
    j = k + 2;
  }
  if (j < s.size() && s[j] == ' ') ++j;
  i = j;
  return ns;
}

// Skips "HOST kernel: " (journalctl, syslog) at s[i..] when present.
void skip_kernel_tag(const std::string& s, size_t& i) {
  const size_t sp = s.find(' ', i);
  if (sp == std::string::npos) return;
  if (s.compare(sp + 1, 8, "kernel: ") == 0) i = sp + 9;
}

struct Line {
  bool timed = false;
  int64_t ns = 0;
  std::string msg;
};

// /dev/kmsg: "6,1234,714456099,-;msg" (time in microseconds). True when `raw` is such a record.
bool split_kmsg(const std::string& raw, Line& l) {
  size_t j = 0, commas = 0;
  int64_t fields[3] = {0, 0, 0};
  bool ok = true;
  while (j < raw.size() && raw[j] != ';' && ok) {
    if (raw[j] == ',') {
      ++commas;
    } else if (commas < 3) {
      if (!is_digit(raw[j])) ok = false;
      else if (fields[commas] < 100000000000000) fields[commas] = fields[commas] * 10 + (raw[j] - '0');
      else ok = false;  // more than 31 years in microseconds: not a kmsg record
    }
    ++j;
  }
  if (!(ok && commas >= 3 && j < raw.size() && j > 0 && is_digit(raw[0]))) return false;
  l.timed = true;
  l.ns = fields[2] * 1000;
  l.msg = raw.substr(j + 1);
  return true;
}

// Splits one raw line into its time (if any) and the kernel's message.
Line split_line(const std::string& raw) {
  Line l;
  size_t i = 0;
  if (split_kmsg(raw, l)) return l;
  // "<6>" printk level (dmesg -r).
  if (i < raw.size() && raw[i] == '<') {
    size_t j = i + 1;
    while (j < raw.size() && is_digit(raw[j])) ++j;
    if (j > i + 1 && j < raw.size() && raw[j] == '>') i = j + 1;
  }
  if (auto ns = parse_bracket(raw, i)) {
    l.timed = true;
    l.ns = *ns;
    skip_kernel_tag(raw, i);  // journalctl -o short-monotonic
    l.msg = raw.substr(i);
    return l;
  }
  if (auto ns = parse_iso(raw, i)) {
    l.timed = true;
    l.ns = *ns;
    skip_kernel_tag(raw, i);
    size_t k = i;
    if (auto mono = parse_bracket(raw, k)) {  // the kernel's own time inside, as kern.log has it
      l.ns = *mono;
      i = k;
    }
    l.msg = raw.substr(i);
    return l;
  }
  // Syslog ("Mar  3 10:00:00 host kernel: [  714.456099] msg"): the bracketed kernel time.
  const size_t k = raw.find("kernel: ");
  if (k != std::string::npos) {
    size_t j = k + 8;
    if (auto ns = parse_bracket(raw, j)) {
      l.timed = true;
      l.ns = *ns;
      l.msg = raw.substr(j);
      return l;
    }
    l.msg = raw.substr(k + 8);
    return l;
  }
  l.msg = raw.substr(i);
  return l;
}

// The first "nvmeN" (not preceded by a letter, digit or '_') in msg, or "".
std::string controller_of(const std::string& msg) {
  for (size_t p = msg.find("nvme"); p != std::string::npos; p = msg.find("nvme", p + 1)) {
    if (p > 0) {
      const char c = msg[p - 1];
      if (is_digit(c) || c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) continue;
    }
    size_t e = p + 4;
    while (e < msg.size() && is_digit(msg[e])) ++e;
    if (e > p + 4 && e - p <= 14) return msg.substr(p, e - p);
  }
  return "";
}

std::regex compile(const std::string& re, const std::string& source, const char* option) {
  try {
    return std::regex(re, std::regex::ECMAScript | std::regex::optimize);
  } catch (const std::regex_error& e) {
    throw InputError::in_source(source, std::string(option) + ": \"" + re +
                                            "\" is not a valid regular expression (ECMAScript syntax): " + e.what());
  }
}

struct Open {
  int64_t ns = 0;
  size_t line = 0;
};

}  // namespace

namespace {

// The open intervals while the lines of one log go by, and what closing them gives.
class IntervalTracker {
 public:
  explicit IntervalTracker(DmesgParse& out) : out_(out) {}
  /// A --to line of controller `ctrl` ("" for a driver-level line) at `ns`.
  void on_to(const std::string& ctrl, int64_t ns);
  /// A --from line of controller `ctrl` ("" for a driver-level line) at `ns`.
  void on_from(const std::string& ctrl, int64_t ns);
  /// Intervals still open at the end: controllers' own starts, and a driver-level start nobody used.
  size_t unclosed() const { return own_.size() + (global_ && global_used_.empty() ? 1 : 0); }

 private:
  bool used(const std::string& c) const {
    return std::find(global_used_.begin(), global_used_.end(), c) != global_used_.end();
  }
  void close(const std::string& c, const Open& o, int64_t ns) {
    out_.intervals.push_back(DmesgInterval{out_.source, c, o.ns, ns, o.line, out_.lines});
  }
  DmesgParse& out_;
  // Driver-level start (reset by each driver-level --from line) and the controllers that have
  // already used it; controllers' own starts.
  std::optional<Open> global_;
  std::vector<std::string> global_used_;
  std::map<std::string, Open> own_;
};

void IntervalTracker::on_to(const std::string& ctrl, int64_t ns) {
  if (!ctrl.empty()) {
    auto it = own_.find(ctrl);
    if (it != own_.end()) {
      close(ctrl, it->second, ns);
      own_.erase(it);
      if (global_) global_used_.push_back(ctrl);
    } else if (global_ && !used(ctrl)) {
      close(ctrl, *global_, ns);
      global_used_.push_back(ctrl);
    } else {
      ++out_.unmatched_to;
    }
    return;
  }
  // A driver-level end closes every open interval (and the driver-level one).
  bool any = false;
  for (const auto& [c, o] : own_) {
    close(c, o, ns);
    any = true;
  }
  own_.clear();
  if (global_ && !used("")) {
    close("", *global_, ns);
    any = true;
  }
  if (global_) global_used_.push_back("");
  if (!any) ++out_.unmatched_to;
}

void IntervalTracker::on_from(const std::string& ctrl, int64_t ns) {
  if (ctrl.empty()) {
    global_ = Open{ns, out_.lines};
    global_used_.clear();
    own_.clear();
  } else if (!(global_ && !used(ctrl))) {
    own_[ctrl] = Open{ns, out_.lines};
  }
}

}  // namespace

DmesgParse parse_dmesg_text(const std::string& text, const std::string& source, const std::string& from_regex,
                            const std::string& to_regex) {
  const std::regex from = compile(from_regex, source, "--from");
  const std::regex to = compile(to_regex, source, "--to");
  DmesgParse out;
  out.source = source;
  IntervalTracker tracker(out);
  std::optional<size_t> first_untimed_match;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    std::string raw = text.substr(pos, std::min(nl - pos, kDmesgMaxLineBytes));
    pos = nl + 1;
    ++out.lines;
    if (!raw.empty() && raw.back() == '\r') raw.pop_back();
    if (raw.empty()) continue;
    const Line l = split_line(raw);
    const bool is_from = std::regex_search(l.msg, from);
    const bool is_to = std::regex_search(l.msg, to);
    if (!l.timed) {
      if ((is_from || is_to) && !first_untimed_match) first_untimed_match = out.lines;
      continue;
    }
    ++out.timed_lines;
    const std::string ctrl = controller_of(l.msg);
    if (is_to) tracker.on_to(ctrl, l.ns);
    if (is_from) tracker.on_from(ctrl, l.ns);
  }
  out.unclosed = tracker.unclosed();
  if (out.timed_lines == 0 && first_untimed_match)
    throw InputError::in_source(source, "line " + std::to_string(*first_untimed_match) +
                                            ": no timestamp; nvmesim dmesg needs the kernel's times: use `dmesg` without -t, "
                                            "`journalctl -k -o short-monotonic`, or `dmesg --time-format=iso`");
  return out;
}

namespace {
std::string ns_text(int64_t ns) { return std::to_string(ns) + "ns"; }
}  // namespace

nlohmann::ordered_json dmesg_empirical(const std::vector<DmesgParse>& parses) {
  nlohmann::ordered_json d;
  d["dist"] = "empirical";
  d["samples"] = nlohmann::ordered_json::array();
  for (const auto& p : parses)
    for (const auto& iv : p.intervals) d["samples"].push_back(ns_text(iv.end_ns - iv.start_ns));
  return d;
}

nlohmann::ordered_json dmesg_json(const std::vector<DmesgParse>& parses, const std::string& from_regex,
                                  const std::string& to_regex) {
  using ojson = nlohmann::ordered_json;
  ojson doc;
  doc["schema"] = "nvmesim.dmesg/1";
  doc["tool"] = tool_json();
  doc["from"] = from_regex;
  doc["to"] = to_regex;
  ojson sources = ojson::array();
  ojson ivs = ojson::array();
  std::vector<double> d;
  for (const auto& p : parses) {
    ojson s;
    s["source"] = p.source;
    s["lines"] = p.lines;
    s["timed_lines"] = p.timed_lines;
    s["intervals"] = p.intervals.size();
    s["unmatched_to"] = p.unmatched_to;
    s["unclosed"] = p.unclosed;
    sources.push_back(s);
    for (const auto& iv : p.intervals) {
      ojson j;
      j["source"] = iv.source;
      j["ctrl"] = iv.ctrl.empty() ? ojson() : ojson(iv.ctrl);
      j["start_ns"] = iv.start_ns;
      j["end_ns"] = iv.end_ns;
      j["duration_ms"] = round6(iv.duration_ms());
      j["from_line"] = iv.from_line;
      j["to_line"] = iv.to_line;
      ivs.push_back(j);
      d.push_back(iv.duration_ms());
    }
  }
  doc["sources"] = sources;
  doc["intervals"] = ivs;
  doc["summary"] = to_json(summarize(d));
  doc["empirical"] = dmesg_empirical(parses);
  return doc;
}

std::string dump_dmesg_json(const nlohmann::ordered_json& doc) {
  std::string out = "{\n";
  bool first = true;
  for (const auto& [key, value] : doc.items()) {
    if (!first) out += ",\n";
    first = false;
    out += "  " + nlohmann::ordered_json(key).dump() + ": ";
    if ((key == "intervals" || key == "sources") && value.is_array() && !value.empty()) {
      out += "[\n";
      for (size_t i = 0; i < value.size(); ++i) out += "    " + value[i].dump() + (i + 1 < value.size() ? ",\n" : "\n");
      out += "  ]";
    } else {
      out += value.dump();
    }
  }
  out += "\n}\n";
  return out;
}

}  // namespace nvmesim
