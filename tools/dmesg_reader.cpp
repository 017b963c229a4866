#include "tools/dmesg_reader.hpp"

#include <algorithm>
#include <cstring>
#include <limits>

#include <nlohmann/json.hpp>
#include <re2/re2.h>

#include "core/errors.hpp"
#include "core/json_text.hpp"
#include "tools/dmesg_lines.hpp"

namespace nvmesim {

namespace {

using dmesg_detail::controller_of;
using dmesg_detail::DmesgLineView;
using dmesg_detail::split_dmesg_line_view;

std::unique_ptr<re2::RE2> compile(const std::string& re, const char* option) {
  if (!is_valid_utf8(re))
    throw InputError(std::string(option) + ": the pattern is not valid UTF-8; give it in UTF-8 (RE2 syntax)");
  re2::RE2::Options o;
  o.set_log_errors(false);
  auto r = std::make_unique<re2::RE2>(re, o);
  if (!r->ok())
    throw InputError(std::string(option) + ": \"" + re + "\" is not a valid regular expression (RE2 syntax: "
                     "ECMAScript's without backreferences and lookaround): " + r->error());
  return r;
}

struct Open {
  int64_t ns = 0;
  size_t line = 0;
  bool foreign = false;  ///< opened by a Linux or SPDK line: a FreeBSD disk line never ends it
};

// Linux's and SPDK's lines: the nvme driver's device lines (`nvme nvme0: ...`), its init
// (`initcall nvme_init ...`), SPDK's `nvme_ctrlr.c:...`/`nvme.c:...` lines.
bool starts_with(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && std::memcmp(s.data(), prefix.data(), prefix.size()) == 0;
}

bool is_linux_or_spdk_line(std::string_view msg) {
  return starts_with(msg, "nvme nvme") || msg.find("nvme_init") != std::string_view::npos ||
         msg.find("nvme_ctrlr") != std::string_view::npos || starts_with(msg, "nvme.c:");
}

// FreeBSD's lines: a controller's own (`nvme0: ...`, the attach line among them; Linux's read
// `nvme nvme0: ...`, SPDK's `nvme_ctrlr.c:...`) and a disk's (`nvd0: ...`, `nda0 at nvme0 ...`).
bool is_freebsd_controller_line(std::string_view msg) {
  if (!starts_with(msg, "nvme")) return false;
  const char* b = msg.data();
  size_t e = 4;
  while (e < msg.size() && b[e] >= '0' && b[e] <= '9') ++e;
  return e > 4 && e + 2 <= msg.size() && b[e] == ':' && b[e + 1] == ' ';
}
bool is_freebsd_disk_line(std::string_view msg) {
  if (!starts_with(msg, "nvd") && !starts_with(msg, "nda")) return false;
  return msg.size() > 3 && msg.data()[3] >= '0' && msg.data()[3] <= '9';
}

}  // namespace

bool is_valid_utf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    size_t n = 0;
    uint32_t cp = 0;
    if (c < 0x80) n = 0, cp = c;
    else if ((c & 0xE0) == 0xC0) n = 1, cp = c & 0x1F;
    else if ((c & 0xF0) == 0xE0) n = 2, cp = c & 0x0F;
    else if ((c & 0xF8) == 0xF0) n = 3, cp = c & 0x07;
    else return false;
    if (n > 0 && i + n >= s.size()) return false;
    for (size_t k = 1; k <= n; ++k) {
      const auto d = static_cast<unsigned char>(s[i + k]);
      if ((d & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (d & 0x3F);
    }
    // Overlong forms, surrogates and code points past U+10FFFF are not UTF-8.
    if ((n == 1 && cp < 0x80) || (n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) || cp > 0x10FFFF ||
        (cp >= 0xD800 && cp <= 0xDFFF))
      return false;
    i += n + 1;
  }
  return true;
}

bool looks_like_kernel_log(std::string_view head) {
  const size_t first = head.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || head[first] == '{') return false;
  size_t timed = 0, seen = 0, pos = 0;
  while (pos < head.size() && seen < 10) {
    const size_t nl = head.find('\n', pos);
    if (nl == std::string_view::npos) break;  // the last line may be cut: not judged
    std::string_view l = head.substr(pos, nl - pos);
    pos = nl + 1;
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    if (l.empty()) continue;
    ++seen;
    if (l.substr(0, kDmesgBootMarker.size()) == kDmesgBootMarker ||
        split_dmesg_line_view(l.substr(0, kDmesgMaxLineBytes)).timed)
      ++timed;
  }
  return timed > 0 && 2 * timed >= seen;
}

struct DmesgPatterns::Impl {
  std::unique_ptr<re2::RE2> from, to;
};

DmesgPatterns::DmesgPatterns(const std::string& from_regex, const std::string& to_regex)
    : impl_(std::make_unique<Impl>()), from_text_(from_regex), to_text_(to_regex) {
  impl_->from = compile(from_regex, "--from");
  impl_->to = compile(to_regex, "--to");
}
DmesgPatterns::~DmesgPatterns() = default;
DmesgPatterns::DmesgPatterns(DmesgPatterns&&) noexcept = default;

bool DmesgPatterns::is_from(std::string_view msg) const {
  return re2::RE2::PartialMatch(re2::StringPiece(msg.data(), msg.size()), *impl_->from);
}
bool DmesgPatterns::is_to(std::string_view msg) const {
  return re2::RE2::PartialMatch(re2::StringPiece(msg.data(), msg.size()), *impl_->to);
}

// The open intervals while the lines of one boot go by, and what closing them gives. `close`
// reports an interval (controller, start, end line's time).
class DmesgScanner::Tracker {
 public:
  using CloseFn = std::function<void(const std::string& ctrl, const Open& o, int64_t ns)>;
  Tracker(CloseFn close, DmesgCounts& counts) : close_(std::move(close)), counts_(counts) {}
  /// A --to line of controller `ctrl` ("" for a driver-level line) at `ns`.
  void on_to(const std::string& ctrl, int64_t ns);
  /// A --to line of a FreeBSD disk (`nvd0: ...`, `nda0 at nvme0 ...`) of controller `ctrl` ("" for
  /// nvd, which names none) at `ns`: as on_to, but it never ends an interval a Linux or SPDK line
  /// opened (a mixed log).
  void on_freebsd_disk(const std::string& ctrl, int64_t ns);
  /// Controllers with an interval of their own open that no Linux or SPDK line opened.
  size_t freebsd_open() const {
    size_t n = 0;
    for (const auto& [c, o] : own_) n += !o.foreign;
    return n;
  }
  /// A --from line of controller `ctrl` ("" for a driver-level line) at `ns`, line `line`;
  /// `foreign`: the line is Linux's or SPDK's. Throws std::length_error past
  /// kDmesgMaxOpenControllers open intervals.
  void on_from(const std::string& ctrl, int64_t ns, size_t line, bool foreign);
  /// Intervals open now: controllers' own starts, and a driver-level start nobody used.
  size_t open() const { return own_.size() + (global_ && global_used_.empty() ? 1 : 0); }
  /// Forgets every open interval (the end of a boot, time going backwards).
  void clear() {
    global_.reset();
    global_used_.clear();
    own_.clear();
  }

 private:
  bool used(const std::string& c) const {
    return std::find(global_used_.begin(), global_used_.end(), c) != global_used_.end();
  }
  void mark_used(const std::string& c) {
    if (!used(c)) global_used_.push_back(c);
  }
  CloseFn close_;
  DmesgCounts& counts_;
  // Driver-level start (reset by each driver-level --from line) and the controllers that have
  // already used it (each once); controllers' own starts.
  std::optional<Open> global_;
  std::vector<std::string> global_used_;
  std::map<std::string, Open> own_;
};

void DmesgScanner::Tracker::on_to(const std::string& ctrl, int64_t ns) {
  if (!ctrl.empty()) {
    auto it = own_.find(ctrl);
    if (it != own_.end()) {
      close_(ctrl, it->second, ns);
      own_.erase(it);
      if (global_) mark_used(ctrl);
    } else if (global_ && !used(ctrl)) {
      close_(ctrl, *global_, ns);
      mark_used(ctrl);
    } else {
      ++counts_.unmatched_to;
    }
    return;
  }
  // A driver-level end closes every open interval (and the driver-level one).
  bool any = false;
  for (const auto& [c, o] : own_) {
    close_(c, o, ns);
    any = true;
  }
  own_.clear();
  if (global_ && !used("")) {
    close_("", *global_, ns);
    any = true;
  }
  if (global_) mark_used("");
  if (!any) ++counts_.unmatched_to;
}

void DmesgScanner::Tracker::on_freebsd_disk(const std::string& ctrl, int64_t ns) {
  bool any = false;
  for (auto it = own_.begin(); it != own_.end();) {
    if (it->second.foreign || (!ctrl.empty() && it->first != ctrl)) {
      ++it;
      continue;
    }
    close_(it->first, it->second, ns);
    if (global_) mark_used(it->first);
    it = own_.erase(it);
    any = true;
  }
  // A driver-level start that is not Linux's or SPDK's (a FreeBSD boot line as --from), as on_to.
  if (!any && global_ && !global_->foreign && !used(ctrl)) {
    close_(ctrl, *global_, ns);
    mark_used(ctrl);
    any = true;
  }
  if (!any) ++counts_.unmatched_to;
}

void DmesgScanner::Tracker::on_from(const std::string& ctrl, int64_t ns, size_t line, bool foreign) {
  if (ctrl.empty()) {
    global_ = Open{ns, line, foreign};
    global_used_.clear();
    own_.clear();
  } else if (!(global_ && !used(ctrl))) {
    if (own_.size() >= kDmesgMaxOpenControllers && !own_.count(ctrl))
      throw std::length_error("more than " + std::to_string(kDmesgMaxOpenControllers) +
                              " controllers (nvmeN names) have an interval open at once");
    own_[ctrl] = Open{ns, line, foreign};
  }
}

DmesgScanner::DmesgScanner(const DmesgPatterns& patterns, std::string source, IntervalFn on_interval,
                           std::optional<std::string> variant)
    : patterns_(patterns), source_(std::move(source)), on_interval_(std::move(on_interval)),
      want_variant_(std::move(variant)) {
  // With a variant chosen, lines before the first boot marker (and a log without markers) belong
  // to no boot of it: skipped (attack of stop 26: they were pooled into the variant).
  skipping_ = want_variant_.has_value();
  // One interval record, refilled per interval (its strings keep their capacity: no allocation
  // per interval).
  iv_.source = source_;
  tracker_ = std::make_unique<Tracker>(
      [this](const std::string& ctrl, const Open& o, int64_t ns) {
        ++counts_.intervals;
        iv_.variant = variant_;
        iv_.trial = trial_;
        iv_.ctrl = ctrl;
        iv_.start_ns = o.ns;
        iv_.end_ns = ns;
        iv_.from_line = o.line;
        iv_.to_line = counts_.lines;
        on_interval_(iv_);
      },
      counts_);
}
DmesgScanner::~DmesgScanner() = default;

void DmesgScanner::warn(std::string text) {
  if (warnings_.size() < kMaxWarnings) warnings_.push_back(std::move(text));
  ++warnings_total_;
}

void DmesgScanner::marker(std::string_view raw) {
  // Exactly what `run --dmesg` writes: {"variant": a non-empty name, "trial": 0 to 2^63-1}, each
  // key once (the project's own parser refuses a repeated key, nlohmann's keeps the last), no
  // other key; anything else is not our marker (attack of stop 25: extra and repeated keys and an
  // empty variant, which read as "no marker", were taken).
  nlohmann::ordered_json m;
  bool parsed = true;
  try {
    m = parse_json_text(std::string(raw.substr(kDmesgBootMarker.size())), source_);
  } catch (const InputError&) {
    parsed = false;
  }
  if (!parsed || !m.is_object() || m.size() != 2 || !m.contains("variant") || !m["variant"].is_string() ||
      m["variant"].get_ref<const std::string&>().empty() || !m.contains("trial") || !m["trial"].is_number_unsigned() ||
      m["trial"].get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))  // no wrap to "no trial"
    throw InputError::in_source(source_, "line " + std::to_string(counts_.lines) +
                                             ": a boot marker must be `" + std::string(kDmesgBootMarker) +
                                             "{\"variant\": NAME, \"trial\": N}` (as nvmesim run --dmesg writes it)");
  counts_.unclosed += tracker_->open();
  tracker_->clear();
  last_ns_.reset();
  ++counts_.boots;
  variant_ = m["variant"].get<std::string>();
  trial_ = m["trial"].get<int64_t>();
  if (std::find(variants_.begin(), variants_.end(), variant_) == variants_.end()) {
    if (variants_.size() >= kDmesgMaxVariants)
      throw InputError::in_source(source_, "line " + std::to_string(counts_.lines) + ": more than " +
                                               std::to_string(kDmesgMaxVariants) + " variants in the boot markers");
    variants_.push_back(variant_);
  }
  skipping_ = want_variant_ && *want_variant_ != variant_;
  if (skipping_) ++counts_.skipped_boots;
}

void DmesgScanner::line(std::string_view raw) {
  ++counts_.lines;
  if (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
  if (!raw.empty() && raw.front() == '#' && raw.substr(0, kDmesgBootMarker.size()) == kDmesgBootMarker)
    return marker(raw);
  if (skipping_) return;
  if (raw.size() > kDmesgMaxLineBytes) {
    ++cut_lines_;
    raw = raw.substr(0, kDmesgMaxLineBytes);
  }
  if (raw.empty()) return;
  const DmesgLineView l = split_dmesg_line_view(raw);  // l.msg: a view into raw
  // A time of a known shape that is no time (hour 25, February 30) is a damaged log: taking the
  // line as untimed, or the date as the next month's, would give an interval silently wrong or
  // none with a misleading reason. Refused at its line, as an unreadable boot marker is.
  if (!l.bad_time.empty())
    throw InputError::in_source(source_, "line " + std::to_string(counts_.lines) + ": " + l.bad_time +
                                             " (nvmesim dmesg reads printk, ISO-8601 and SPDK times as written; fix or "
                                             "remove the line)");
  const bool is_from = patterns_.is_from(l.msg);
  const bool is_to = patterns_.is_to(l.msg);
  if (!l.timed) {
    if ((is_from || is_to) && !first_untimed_match_) first_untimed_match_ = counts_.lines;
    return;
  }
  ++counts_.timed_lines;
  if (last_ns_ && l.ns < *last_ns_) {
    const size_t dropped = tracker_->open();
    if (dropped > 0) {
      counts_.backwards += dropped;
      warn(source_ + ": line " + std::to_string(counts_.lines) + ": the time goes backwards (line " +
           std::to_string(last_line_) + " is later); " + std::to_string(dropped) +
           " open interval(s) skipped");
    }
    tracker_->clear();
  }
  last_ns_ = l.ns;
  last_line_ = counts_.lines;
  if (!is_from && !is_to) return;
  const std::string ctrl = controller_of(l.msg);
  counts_.from_matches += is_from;
  counts_.to_matches += is_to;
  // FreeBSD's `nvdN: <MODEL> NVMe namespace` names no controller (nvd units are numbered over
  // all controllers), so with two controllers attaching at once it cannot say whose interval it
  // ends: closing every open one would give each controller the first disk's time. It ends none
  // then, with a warning, rather than a wrong interval.
  // FreeBSD's attach and disk lines, counted for the "no interval" error's hint.
  const bool freebsd_line = is_from && is_freebsd_controller_line(l.msg);
  const bool disk_line = is_to && is_freebsd_disk_line(l.msg);
  counts_.freebsd_attach_lines += freebsd_line;
  counts_.freebsd_disk_lines += disk_line;
  // A FreeBSD disk line never ends an interval a Linux or SPDK line opened: in a mixed log it
  // ends the FreeBSD attach only (nor Linux's driver-level start).
  // FreeBSD's `nvdN: <MODEL> NVMe namespace` names no controller (nvd units are numbered over
  // all controllers), so with two controllers attaching at once it cannot say whose interval it
  // ends: closing every open one would give each controller the first disk's time. It ends none
  // then, with a warning, rather than a wrong interval.
  if (is_to && disk_line && ctrl.empty() && tracker_->freebsd_open() > 1) {
    ++counts_.unmatched_to;
    warn(source_ + ": line " + std::to_string(counts_.lines) + ": an nvd line names no controller and " +
         std::to_string(tracker_->freebsd_open()) + " controllers' intervals are open: it ends none (give --to a line "
         "that names the controller, e.g. nda(4)'s 'nda[0-9]+ at nvme[0-9]+', or measure one controller)");
  } else if (is_to && disk_line) {
    tracker_->on_freebsd_disk(ctrl, l.ns);
  } else if (is_to) {
    tracker_->on_to(ctrl, l.ns);
  }
  try {
    if (is_from) tracker_->on_from(ctrl, l.ns, counts_.lines, is_linux_or_spdk_line(l.msg));
  } catch (const std::length_error& e) {
    throw InputError::in_source(source_, "line " + std::to_string(counts_.lines) + ": " + e.what());
  }
}

void DmesgScanner::finish() {
  counts_.unclosed += tracker_->open();
  tracker_->clear();
  if (counts_.timed_lines == 0 && first_untimed_match_)
    throw InputError::in_source(source_, "line " + std::to_string(*first_untimed_match_) +
                                             ": no timestamp; nvmesim dmesg needs the kernel's times: use `dmesg` "
                                             "without -t, `journalctl -k -o short-monotonic`, or `dmesg "
                                             "--time-format=iso`");
}

DmesgParse parse_dmesg_text(const std::string& text, const std::string& source, const std::string& from_regex,
                            const std::string& to_regex) {
  const DmesgPatterns patterns(from_regex, to_regex);
  DmesgParse out;
  out.source = source;
  DmesgScanner scan(patterns, source, [&](const DmesgInterval& iv) { out.intervals.push_back(iv); });
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    scan.line(std::string_view(text).substr(pos, std::min(nl - pos, kDmesgMaxMarkerBytes)));
    pos = nl + 1;
  }
  scan.finish();
  const DmesgCounts& c = scan.counts();
  out.lines = c.lines;
  out.timed_lines = c.timed_lines;
  out.unmatched_to = c.unmatched_to;
  out.unclosed = c.unclosed;
  out.backwards = c.backwards;
  out.warnings = scan.warnings();
  return out;
}

}  // namespace nvmesim
