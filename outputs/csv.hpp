#pragma once
// The trials as CSV (`nvmesim run --out FILE.csv` or `--format csv`, docs/output.md): a header
// line, then one row per trial in run order (variant-major). Fields as RFC 4180 writes them:
// quoted when they hold a comma, a quote or a line break, quotes doubled. Pure C++.
#include <memory>
#include <string>

#include "outputs/sink.hpp"
#include "outputs/trial.hpp"

namespace nvmesim {

/// The header line: variant,trial,status,probe_ms,critical_path_ms,namespace_ms,workload_ms,polls,sleeps,phases
/// and its newline.
std::string csv_trials_header();

/// RFC 4180: `s` as it is, or in double quotes (quotes doubled) when it holds `,`, `"`, CR or LF.
std::string csv_quote(const std::string& s);

/// `t_ps` as milliseconds with 6 decimals (whole nanoseconds, truncated toward zero as the
/// timeline's *_ns fields are): 21349123456 ps -> "21.349123". Exact: integer arithmetic.
std::string csv_ms(int64_t t_ps);

/// Appends one trial's row and its newline: its variant's name, the trial index, the status
/// (ok, enodev, eintr, fatal), probe_ms, critical_path_ms, namespace_ms and workload_ms (empty when
/// the trial does not report them), polls and sleeps summed over every phase and controller of the
/// trial, and `phases`: each phase as NAME[CTRL]:POLLS/SLEEPS, space separated, in the order recorded.
void append_csv_trial(std::string& out, const TrialRequest& req, const TrialResult& res);

/// The CSV file at `path` as a sink: every trial of every variant (no events needed). Throws IoError
/// when `path` cannot be written.
std::unique_ptr<TrialSink> open_csv_sink(const std::string& path);

}  // namespace nvmesim
