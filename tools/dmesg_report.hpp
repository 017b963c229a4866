#pragma once
// What `nvmesim dmesg` prints for one or more logs (DESIGN section 9): the nvmesim.dmesg/2
// document (every interval, one summary per log, per variant of its boot markers and per
// controller, and the pooled summaries with --pool) or, with --empirical, the durations as an
// empirical distribution. Memory is bounded by the number of summaries, never by the size of the
// logs: the logs are read line by line and the intervals and samples go to temporary files until
// the output is written whole. Pure C++.
#include <cstdint>
#include <cstdio>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/sketch.hpp"
#include "core/stats.hpp"
#include "tools/dmesg_reader.hpp"

namespace nvmesim {

/// Most summaries one `nvmesim dmesg` keeps (logs, variants per log, controllers per variant, and
/// the pooled ones): each takes at most ~0.9 MiB (a QuantileSketch over ns), so the whole stays
/// under 1 GiB whatever the logs; real logs need a handful.
inline constexpr size_t kDmesgMaxSummaries = 1024;

/// Durations in ns summarised exactly up to kExact values (as nvmesim::summarize does), and
/// through a QuantileSketch above (percentiles within 0.05%; count, mean, min, max exact).
class DurationSummary {
 public:
  static constexpr size_t kExact = 512;
  void add(int64_t ns);
  uint64_t count() const { return count_; }
  /// The summary in ms.
  Summary summary() const;

 private:
  uint64_t count_ = 0;
  std::vector<int64_t> exact_;
  std::unique_ptr<QuantileSketch> sketch_;
};

/// An anonymous temporary file (std::tmpfile) that holds output until it is written whole.
class Spool {
 public:
  Spool();
  ~Spool();
  Spool(const Spool&) = delete;
  Spool& operator=(const Spool&) = delete;
  /// Throws IoError when the temporary file cannot be written (disk full).
  void write(const void* data, size_t n);
  /// Calls `out` with the spooled bytes in blocks, from the start. Throws IoError.
  void replay(const std::function<void(const char*, size_t)>& out);
  uint64_t bytes() const { return bytes_; }

 private:
  std::FILE* f_ = nullptr;
  uint64_t bytes_ = 0;
};

/// Appends to `out` the interval's duration_ms in a record, as a JSON number without building a
/// value: for 100 ns and more the exact decimal duration_ns / 10^6 from the integer (below 10^15 ns
/// that is the shortest decimal of round6(duration_ns / 1e6), which nlohmann's Grisu2 sometimes
/// writes with more digits for the same double: 1.0246170000000001 for 1.024617; from 10^15 ns the
/// double has no six exact places, and the decimal is the exact value); below 100 ns nlohmann's
/// dump() of round6(duration_ns / 1e6) (9.9e-05). duration_ns >= 0.
void append_duration_ms_json(std::string& out, int64_t duration_ns);
/// The same written at `p` (at most kDurationJsonMaxBytes); returns the end.
inline constexpr size_t kDurationJsonMaxBytes = 64;
char* write_duration_ms_json(char* p, int64_t duration_ns);

/// What `nvmesim dmesg` was asked.
struct DmesgReportOptions {
  std::string from = kDmesgDefaultFrom, to = kDmesgDefaultTo;
  std::optional<std::string> variant;  ///< --variant: only the boots of this variant
  bool pool = false;                   ///< --pool: also the summaries over all logs
  bool empirical = false;              ///< --empirical: only the samples
};

/// Reads logs one after another and writes what `nvmesim dmesg` prints.
class DmesgReport {
 public:
  /// Throws InputError for patterns DmesgPatterns refuses and a --variant that is not UTF-8.
  explicit DmesgReport(DmesgReportOptions opt);
  ~DmesgReport();
  /// Reads the log file `path`, named `name` in the output (its file name). Throws InputError:
  /// a name that is not UTF-8, a file that cannot be opened or is not a regular file (a FIFO),
  /// what DmesgScanner throws, "NAME: no interval: ..." (naming the patterns) when no interval was
  /// found, and past kDmesgMaxSummaries. IoError for read errors. Warnings go to `warn`.
  void add_file(const std::string& path, const std::string& name, std::ostream& warn);
  /// The same for a log given as lines (tests): `next(line)` returns false at the end.
  void add_lines(const std::string& name, const std::function<bool(std::string&)>& next, std::ostream& warn);
  /// Writes the document (or the --empirical distribution) through `out`. Throws InputError for
  /// --empirical over several logs without --pool or several variants without --variant, and
  /// std::logic_error after stream_intervals_to (call finish_stream() then).
  void write(const std::function<void(const char*, size_t)>& out);
  /// Sends the document's head now, then the intervals' records as they are read (in blocks of at
  /// most 1 MiB, each log's by the end of that log), to `out` instead of spooling them (for an output that is itself a temporary, e.g. an AtomicFile: the records
  /// are written once, not twice). Call before the first add_file/add_lines, not with
  /// `empirical`; finish the document with finish_stream(). Throws std::logic_error otherwise.
  void stream_intervals_to(std::function<void(const char*, size_t)> out);
  /// Writes the rest of the document (the summaries) to the stream_intervals_to sink. Throws
  /// std::logic_error when the intervals were not streamed.
  void finish_stream();

 private:
  struct Group {
    std::string ctrl;
    DurationSummary d;
  };
  struct VariantPart {
    std::string variant;  ///< "" without markers
    DurationSummary d;
    std::vector<Group> ctrls;
  };
  struct Source {
    std::string name;
    DmesgCounts counts;
    DurationSummary d;
    std::vector<VariantPart> variants;
  };
  /// add_file's and add_lines' common part: `next(line)` gives each line (a view valid until the
  /// next call), false at the end.
  void scan_lines(const std::string& name, const std::function<bool(std::string_view&)>& next, std::ostream& warn);
  void on_interval(Source& s, const DmesgInterval& iv);
  /// Appends the interval's record (one JSON object, the bytes nlohmann's dump() gives, but for a
  /// shorter duration_ms where its Grisu2 is not the shortest) to record_, flushed to the
  /// stream_intervals_to sink, else to the intervals' spool.
  void write_record(const DmesgInterval& iv);
  /// A name and its JSON form (for a variant or controller, "null" for ""), recomputed only when
  /// the name changes. Throws nlohmann's type_error for a name that is not UTF-8.
  class QuotedCache {
   public:
    explicit QuotedCache(bool empty_is_null) : empty_is_null_(empty_is_null) {}
    const std::string& get(const std::string& s);

   private:
    bool empty_is_null_;
    bool valid_ = false;
    std::string raw_, quoted_;
  };
  void count_summary(const Source& s, const char* what);
  std::string source_json(const Source& s) const;
  /// The document up to and including `"intervals": [` and its newline.
  std::string document_head() const;
  void write_document(const std::function<void(const char*, size_t)>& out);
  void write_empirical(const std::function<void(const char*, size_t)>& out);

  DmesgReportOptions opt_;
  DmesgPatterns patterns_;
  std::vector<Source> sources_;
  struct Pooled {
    std::string variant;
    DurationSummary d;
    size_t sources = 0;      ///< logs with intervals of this variant
    size_t last_source = 0;  ///< 1 + index of the last log counted in `sources`
  };
  std::vector<Pooled> pooled_;  ///< by variant, in their first order
  size_t summaries_ = 0;
  uint64_t intervals_ = 0;
  std::vector<std::string> variants_seen_;
  std::unique_ptr<Spool> intervals_spool_, samples_spool_;
  QuotedCache source_q_{false}, variant_q_{true}, ctrl_q_{true};
  /// Interval records not yet written (flushed at kRecordsBlock bytes and before the document's
  /// end) and durations not yet spooled: one write per block, not per interval.
  static constexpr size_t kRecordsBlock = size_t{1} << 20;
  static constexpr size_t kSamplesBlock = 8192;
  void flush_records();
  void flush_samples();
  std::string record_;
  std::vector<int64_t> samples_;
  std::function<void(const char*, size_t)> direct_;  ///< stream_intervals_to's sink, or empty
};

}  // namespace nvmesim
