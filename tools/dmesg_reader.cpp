#include "tools/dmesg_reader.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <regex>

#include "core/errors.hpp"
#include "core/stats.hpp"
#include "core/tool.hpp"
#include "tools/dmesg_lines.hpp"

namespace nvmesim {

namespace {

using dmesg_detail::controller_of;
using dmesg_detail::DmesgLine;
using dmesg_detail::split_dmesg_line;

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
    const DmesgLine l = split_dmesg_line(raw);
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
