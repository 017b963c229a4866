#include "tools/dmesg_report.hpp"

#include <algorithm>
#include <charconv>
#include <cerrno>
#include <cstring>
#include <ostream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "core/errors.hpp"
#include "core/signals.hpp"
#include "core/terminal_text.hpp"
#include "core/tool.hpp"
#include "tools/log_file.hpp"

namespace nvmesim {

namespace {

// The one place that opens a log (core/file_input.hpp's InputFile has its open and read_line, not
// read_line_view).
using DmesgInput = LogFile;

using ojson = nlohmann::ordered_json;

ojson name_or_null(const std::string& s) { return s.empty() ? ojson() : ojson(s); }

std::string json_quoted(const std::string& s) { return ojson(s).dump(); }

// The first at most `n` bytes of UTF-8 `s`, not cutting a character.
std::string utf8_prefix(const std::string& s, size_t n) {
  if (s.size() <= n) return s;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return s.substr(0, n);
}

}  // namespace

void DurationSummary::add(int64_t ns) {
  ++count_;
  if (sketch_) {
    sketch_->add(ns);
    return;
  }
  exact_.push_back(ns);
  if (exact_.size() > kExact) {
    sketch_ = std::make_unique<QuantileSketch>();
    for (int64_t v : exact_) sketch_->add(v);
    exact_.clear();
    exact_.shrink_to_fit();
  }
}

Summary DurationSummary::summary() const {
  if (sketch_) return sketch_->summary(1e6);
  std::vector<double> ms;
  ms.reserve(exact_.size());
  for (int64_t v : exact_) ms.push_back(static_cast<double>(v) / 1e6);
  return summarize(ms);
}

Spool::Spool() : f_(std::tmpfile()) {
  if (!f_) throw IoError(std::string("cannot create a temporary file for the output (") + std::strerror(errno) + ")");
}
Spool::~Spool() {
  if (f_) std::fclose(f_);
}
void Spool::write(const void* data, size_t n) {
  if (std::fwrite(data, 1, n, f_) != n)
    throw IoError(std::string("cannot write the temporary file of the output (") + std::strerror(errno) + ")");
  bytes_ += n;
}
void Spool::replay(const std::function<void(const char*, size_t)>& out) {
  if (std::fflush(f_) != 0 || std::fseek(f_, 0, SEEK_SET) != 0)
    throw IoError(std::string("cannot read back the temporary file of the output (") + std::strerror(errno) + ")");
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f_)) > 0) out(buf, n);
  if (std::ferror(f_)) throw IoError("cannot read back the temporary file of the output");
}

DmesgReport::DmesgReport(DmesgReportOptions opt)
    : opt_(std::move(opt)), patterns_(opt_.from, opt_.to), samples_spool_(std::make_unique<Spool>()) {
  if (opt_.variant && !is_valid_utf8(*opt_.variant)) throw InputError("--variant: the name is not valid UTF-8");
  if (!opt_.empirical) intervals_spool_ = std::make_unique<Spool>();
}
DmesgReport::~DmesgReport() = default;

void DmesgReport::count_summary(const Source& s, const char* what) {
  if (++summaries_ > kDmesgMaxSummaries)
    throw InputError::in_source(s.name, "line " + std::to_string(s.counts.lines) + ": more than " +
                                            std::to_string(kDmesgMaxSummaries) + " summaries (logs, variants and " +
                                            "controllers) in all, at a new " + what +
                                            "; give fewer logs or choose one variant with --variant");
}

void DmesgReport::on_interval(Source& s, const DmesgInterval& iv) {
  const int64_t ns = iv.duration_ns();
  ++intervals_;
  s.d.add(ns);
  auto v = std::find_if(s.variants.begin(), s.variants.end(), [&](const VariantPart& p) { return p.variant == iv.variant; });
  if (v == s.variants.end()) {
    count_summary(s, "variant");
    s.variants.push_back(VariantPart{iv.variant, {}, {}});
    v = s.variants.end() - 1;
  }
  v->d.add(ns);
  auto g = std::find_if(v->ctrls.begin(), v->ctrls.end(), [&](const Group& x) { return x.ctrl == iv.ctrl; });
  if (g == v->ctrls.end()) {
    count_summary(s, "controller");
    v->ctrls.push_back(Group{iv.ctrl, {}});
    g = v->ctrls.end() - 1;
  }
  g->d.add(ns);
  if (opt_.pool) {
    auto p = std::find_if(pooled_.begin(), pooled_.end(), [&](const Pooled& x) { return x.variant == iv.variant; });
    if (p == pooled_.end()) {
      count_summary(s, "pooled variant");
      pooled_.push_back(Pooled{iv.variant, {}, 0, 0});
      p = pooled_.end() - 1;
    }
    p->d.add(ns);
    if (p->last_source != sources_.size()) {
      p->last_source = sources_.size();
      ++p->sources;
    }
  }
  samples_.push_back(ns);
  if (samples_.size() >= kSamplesBlock) flush_samples();
  if (intervals_spool_ || direct_) write_record(iv);
}

void DmesgReport::flush_samples() {
  samples_spool_->write(samples_.data(), samples_.size() * sizeof(int64_t));
  samples_.clear();
}

void DmesgReport::flush_records() {
  if (record_.empty()) return;
  if (direct_)
    direct_(record_.data(), record_.size());
  else if (intervals_spool_)
    intervals_spool_->write(record_.data(), record_.size());
  record_.clear();
}

char* write_duration_ms_json(char* p, int64_t duration_ns) {
  // From 100 ns: the exact decimal ns / 10^6, in nlohmann's fixed notation ("77.0" for a whole
  // number). Below 10^15 ns that is the shortest form of round6(ns / 1e6), the double nearest to
  // it (the doubles there are closer together than 10^-6 ms), which nlohmann's Grisu2 sometimes
  // writes longer (1.0246170000000001). From 10^15 ns the double has no six exact places and
  // round6's roundings moved the sixth (4394443630.343081 gave ...082: attack of stop 26).
  // Below 100 ns nlohmann writes an exponent (9.9e-05): its own formatter.
  if (duration_ns >= 100) {
    const auto whole = duration_ns / 1'000'000, frac = duration_ns % 1'000'000;
    p = std::to_chars(p, p + 20, whole).ptr;
    *p++ = '.';
    if (frac == 0) {
      *p++ = '0';
      return p;
    }
    char digits[6];
    auto f = frac;
    for (int k = 5; k >= 0; --k, f /= 10) digits[k] = static_cast<char>('0' + f % 10);
    int last = 5;
    while (digits[last] == '0') --last;
    for (int k = 0; k <= last; ++k) *p++ = digits[k];
    return p;
  }
  return nlohmann::detail::to_chars(p, p + kDurationJsonMaxBytes, round6(static_cast<double>(duration_ns) / 1e6));
}

void append_duration_ms_json(std::string& out, int64_t duration_ns) {
  char buf[kDurationJsonMaxBytes];
  out.append(buf, static_cast<size_t>(write_duration_ms_json(buf, duration_ns) - buf));
}

const std::string& DmesgReport::QuotedCache::get(const std::string& s) {
  if (!valid_ || s != raw_) {
    valid_ = false;  // json_quoted throws on invalid UTF-8: the cache then holds nothing
    std::string quoted = s.empty() && empty_is_null_ ? "null" : json_quoted(s);
    raw_ = s;
    quoted_ = std::move(quoted);
    valid_ = true;
  }
  return quoted_;
}

// The same bytes as nlohmann's dump() of the object {source, variant, trial, ctrl, start_ns,
// end_ns, duration_ms, from_line, to_line} (the first version built that object per interval:
// about half of the CPU for a 244 MB log of 2.8 M intervals, bench/results.md "nvmesim dmesg
// throughput"), without a tree per interval: the names are quoted once per change of name, the
// integers go through std::to_chars, the duration through write_duration_ms_json (nlohmann's
// format, "77.0" for a whole value, with the exact decimal of the ns).
void DmesgReport::write_record(const DmesgInterval& iv) {
  const std::string& source = source_q_.get(iv.source);
  const std::string& variant = variant_q_.get(iv.variant);
  const std::string& ctrl = ctrl_q_.get(iv.ctrl);
  // Written through a pointer into room reserved at the end of record_ (one resize per record,
  // not a dozen appends: each append is a checked memcpy under the asan preset, issue 16 item 9).
  // Room: the quoted names, 5 integers of at most 20 characters, the duration (at most
  // kDurationJsonMaxBytes) and 112 characters of keys and punctuation.
  const size_t at = record_.size();
  record_.resize(at + source.size() + variant.size() + ctrl.size() + 5 * 20 + kDurationJsonMaxBytes + 112);
  char* p = &record_[at];
  char* const room_end = p + (record_.size() - at);
  const auto put = [&p](std::string_view t) {
    std::memcpy(p, t.data(), t.size());
    p += t.size();
  };
  const auto put_int = [&](auto v) { p = std::to_chars(p, room_end, v).ptr; };
  put(intervals_ == 1 ? "    {\"source\":" : ",\n    {\"source\":");
  put(source);
  put(",\"variant\":");
  put(variant);
  put(",\"trial\":");
  if (iv.trial < 0)
    put("null");
  else
    put_int(iv.trial);
  put(",\"ctrl\":");
  put(ctrl);
  put(",\"start_ns\":");
  put_int(iv.start_ns);
  put(",\"end_ns\":");
  put_int(iv.end_ns);
  put(",\"duration_ms\":");
  p = write_duration_ms_json(p, iv.duration_ns());
  put(",\"from_line\":");
  put_int(iv.from_line);
  put(",\"to_line\":");
  put_int(iv.to_line);
  *p++ = '}';
  // The room above is an upper bound by construction (keys and punctuation 106 bytes, integers
  // at most 20 characters each, the duration at most 24); past it, memory was overwritten.
  if (p > room_end) throw std::logic_error("DmesgReport::write_record: the record overran its reserved room");
  record_.resize(static_cast<size_t>(p - record_.data()));
  if (record_.size() >= kRecordsBlock) flush_records();
}

void DmesgReport::add_file(const std::string& path, const std::string& name, std::ostream& warn) {
  if (!is_valid_utf8(name))
    throw InputError::in_source(name, "the log's file name is not valid UTF-8 (outputs name each log by its file "
                                      "name); rename the file or give it through a link with a UTF-8 name");
  DmesgInput in(path);
  // Lines are views into the reader's buffer: nothing is copied per line (issue 16 item 9).
  scan_lines(name, [&](std::string_view& l) { return in.read_line_view(l, kDmesgMaxMarkerBytes); }, warn);
}

void DmesgReport::add_lines(const std::string& name, const std::function<bool(std::string&)>& next,
                            std::ostream& warn) {
  std::string line;
  scan_lines(name, [&](std::string_view& l) {
    if (!next(line)) return false;
    l = line;
    return true;
  }, warn);
}

void DmesgReport::scan_lines(const std::string& name, const std::function<bool(std::string_view&)>& next,
                             std::ostream& warn) {
  sources_.push_back(Source{name, {}, {}, {}});
  Source& s = sources_.back();
  count_summary(s, "log");
  // s.counts is copied from the scanner at the end; while reading, only its line number is read
  // (count_summary's message), set from the interval's end line.
  DmesgScanner scan(
      patterns_, name,
      [&](const DmesgInterval& iv) {
        s.counts.lines = iv.to_line;
        on_interval(s, iv);
      },
      opt_.variant);
  std::string_view line;
  uint64_t n = 0;
  while (next(line)) {
    scan.line(line);
    // SIGINT/SIGTERM under the command's StopSignals: stop reading, and unwinding removes the
    // output's temporary (the records stream into it with -o).
    if ((++n & 4095) == 0 && stop_requested()) throw Interrupted(stop_signal());
  }
  // A stop that came during the last lines (or one long line) is a stop, not "no interval".
  if (stop_requested()) throw Interrupted(stop_signal());
  scan.finish();
  s.counts = scan.counts();
  flush_records();  // each log's records reach the sink by the end of its reading
  for (const auto& w : scan.warnings()) warn << "nvmesim: warning: " << terminal_text(w) << "\n";
  if (scan.cut_lines() > 0)
    warn << "nvmesim: warning: " << terminal_text(name) << ": " << scan.cut_lines() << " line(s) longer than "
         << kDmesgMaxLineBytes << " bytes (printk's record limit) were cut there before matching: a --from or --to "
         << "text past the cut is not seen\n";
  if (scan.warnings_total() > scan.warnings().size())
    warn << "nvmesim: warning: " << terminal_text(name) << ": " << scan.warnings_total() - scan.warnings().size()
         << " more place(s) where the time goes backwards\n";
  for (const auto& v : scan.variants())
    if (std::find(variants_seen_.begin(), variants_seen_.end(), v) == variants_seen_.end()) variants_seen_.push_back(v);
  if (s.counts.intervals > 0) return;
  const DmesgCounts& c = s.counts;
  std::string msg = "no interval: no line matching --to " + json_quoted(opt_.to) + " follows a line matching --from " +
                    json_quoted(opt_.from) + " with a time";
  if (opt_.variant) msg += " in the boots of variant " + json_quoted(*opt_.variant);
  // With --variant the counts are those of the selected boots: say so, and how many were skipped
  // (a new user read "1600 lines, 0 with a time" as a log without timestamps).
  msg += " (" + std::to_string(c.lines) + " lines" + (opt_.variant ? "; in the boots of that variant: " : ", ") +
         std::to_string(c.timed_lines) + " with a time, " + std::to_string(c.from_matches) + " matching --from, " +
         std::to_string(c.to_matches) + " matching --to";
  if (opt_.variant && c.skipped_boots > 0)
    msg += "; " + std::to_string(c.skipped_boots) + " boot(s) of other variants skipped";
  if (c.backwards) msg += ", " + std::to_string(c.backwards) + " skipped where the time goes backwards";
  msg += ")";
  if (c.freebsd_attach_lines > 0 && c.freebsd_disk_lines == 0)
    msg += "; the log has FreeBSD attach lines but no nvd or nda line: FreeBSD prints one only for a namespace, "
           "and a scenario's controller has none unless it sets controllers[].identify.nn (default 0): set it to 1 "
           "or more for --dmesg";
  if (opt_.variant && c.boots > 0) {
    // At most 10 names of at most 100 bytes each (a log may hold 1000 variants of 64 KiB).
    msg += "; the log's variants:";
    const auto& vs = scan.variants();
    for (size_t i = 0; i < vs.size() && i < 10; ++i) {
      const std::string& v = vs[i];
      msg += (i ? ", " : " ") + (v.size() <= 100 ? json_quoted(v) : json_quoted(utf8_prefix(v, 100)) + " (cut)");
    }
    if (vs.size() > 10) msg += " and " + std::to_string(vs.size() - 10) + " more";
  }
  throw InputError::in_source(name, msg);
}

std::string DmesgReport::source_json(const Source& s) const {
  const DmesgCounts& c = s.counts;
  ojson j;
  j["source"] = s.name;
  j["lines"] = c.lines;
  j["timed_lines"] = c.timed_lines;
  j["from_matches"] = c.from_matches;
  j["to_matches"] = c.to_matches;
  j["intervals"] = c.intervals;
  j["unmatched_to"] = c.unmatched_to;
  j["unclosed"] = c.unclosed;
  j["backwards"] = c.backwards;
  j["boots"] = c.boots;
  // A log with boots of several variants keeps them apart: no summary over all of them.
  j["summary"] = s.variants.size() > 1 ? ojson() : to_json(s.d.summary());
  ojson vs = ojson::array();
  for (const auto& v : s.variants) {
    ojson jv;
    jv["variant"] = name_or_null(v.variant);
    jv["intervals"] = v.d.count();
    jv["summary"] = to_json(v.d.summary());
    ojson cs = ojson::array();
    for (const auto& g : v.ctrls)
      cs.push_back(ojson{{"ctrl", name_or_null(g.ctrl)}, {"intervals", g.d.count()}, {"summary", to_json(g.d.summary())}});
    jv["controllers"] = cs;
    vs.push_back(jv);
  }
  j["variants"] = vs;
  return j.dump();
}

void DmesgReport::write(const std::function<void(const char*, size_t)>& out) {
  if (direct_) throw std::logic_error("DmesgReport::write: the intervals were streamed; call finish_stream()");
  if (opt_.empirical) return write_empirical(out);
  write_document(out);
}

std::string DmesgReport::document_head() const {
  return "{\n  \"schema\": \"nvmesim.dmesg/2\",\n  \"tool\": " + tool_json().dump() + ",\n  \"from\": " +
         json_quoted(opt_.from) + ",\n  \"to\": " + json_quoted(opt_.to) + ",\n  \"variant\": " +
         (opt_.variant ? json_quoted(*opt_.variant) : "null") + ",\n  \"intervals\": [\n";
}

void DmesgReport::stream_intervals_to(std::function<void(const char*, size_t)> out) {
  if (opt_.empirical || intervals_ > 0 || !sources_.empty())
    throw std::logic_error("DmesgReport::stream_intervals_to: only before the first log, without --empirical");
  direct_ = std::move(out);
  const std::string head = document_head();
  direct_(head.data(), head.size());
  intervals_spool_.reset();
}

void DmesgReport::finish_stream() {
  if (!direct_) throw std::logic_error("DmesgReport::finish_stream: stream_intervals_to was not called");
  flush_records();
  write_document(direct_);
}

void DmesgReport::write_document(const std::function<void(const char*, size_t)>& out) {
  auto put = [&](const std::string& s) { out(s.data(), s.size()); };
  if (!direct_) {
    put(document_head());
    flush_records();
    intervals_spool_->replay(out);
  }
  put("\n  ],\n  \"sources\": [\n");
  for (size_t i = 0; i < sources_.size(); ++i) put("    " + source_json(sources_[i]) + (i + 1 < sources_.size() ? ",\n" : "\n"));
  put("  ]");
  if (opt_.pool) {
    put(",\n  \"pooled\": [\n");
    for (size_t i = 0; i < pooled_.size(); ++i) {
      const Pooled& p = pooled_[i];
      const ojson j{{"variant", name_or_null(p.variant)}, {"sources", p.sources}, {"intervals", p.d.count()},
                    {"summary", to_json(p.d.summary())}};
      put("    " + j.dump() + (i + 1 < pooled_.size() ? ",\n" : "\n"));
    }
    put("  ]");
  }
  put("\n}\n");
}

void DmesgReport::write_empirical(const std::function<void(const char*, size_t)>& out) {
  if (sources_.size() > 1 && !opt_.pool)
    throw InputError("--empirical gives one distribution but " + std::to_string(sources_.size()) +
                     " logs were given: add --pool to pool their intervals, or give one log");
  if (variants_seen_.size() > 1 && !opt_.variant) {
    std::string names;
    for (size_t i = 0; i < variants_seen_.size() && i < 10; ++i) names += (i ? ", " : "") + json_quoted(variants_seen_[i]);
    throw InputError("--empirical gives one distribution but the logs hold boots of " +
                     std::to_string(variants_seen_.size()) + " variants (" + names +
                     (variants_seen_.size() > 10 ? ", ..." : "") + "): choose one with --variant NAME");
  }
  const std::string head = "{\"dist\":\"empirical\",\"samples\":[";
  out(head.data(), head.size());
  bool first = true;
  std::string text;
  std::string carry;  // a value split between two blocks of the replay
  flush_samples();
  samples_spool_->replay([&](const char* data, size_t n) {
    carry.append(data, n);
    size_t k = 0;
    for (; k + sizeof(int64_t) <= carry.size(); k += sizeof(int64_t)) {
      int64_t ns;
      std::memcpy(&ns, carry.data() + k, sizeof ns);
      text = (first ? "\"" : ",\"") + std::to_string(ns) + "ns\"";
      first = false;
      out(text.data(), text.size());
    }
    carry.erase(0, k);
  });
  const std::string tail = "]}\n";
  out(tail.data(), tail.size());
}

}  // namespace nvmesim
