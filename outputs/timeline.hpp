#pragma once
// The run's timeline file (`--out`, DESIGN section 8): nvmesim.timeline/1 (one JSON document:
// header, per variant its trials and summary, then the paired deltas) or nvmesim.trials/1 (JSON
// Lines: a header record, one record per trial, a summary record). Pure C++; the runner writes
// the pieces in order as the trials come in.
#include <cstdint>
#include <memory>
#include <string>

#include "outputs/report.hpp"
#include "outputs/sink.hpp"
#include "outputs/trial.hpp"
#include "scenario/scenario.hpp"

namespace nvmesim {

/// What `--out` holds: the timeline as one JSON document, as JSON Lines, or the trials as CSV
/// (outputs/csv.hpp; the timeline functions below take json and jsonl only).
enum class OutputFormat { json, jsonl, csv };

/// Appends one trial as a JSON object. With `events`, the events and dmesg lines of a detailed
/// trial are included. With `variant_name` (JSON Lines), the record names its variant.
void append_trial_json(std::string& out, const TrialRequest& req, const TrialResult& res,
                       double probe_start_s, bool events, const std::string* variant_name);

/// The start of the file: the schema, the tool and the resolved scenario (json: the document
/// left open for "variants"; jsonl: the header record and its newline).
std::string timeline_header(const Scenario& sc, OutputFormat format);

/// Appends trial `req` (json: opening its variant's object at trial 0; events and dmesg for the
/// first `detail_trials` trials; jsonl: one record line without events).
void append_timeline_trial(std::string& out, const TrialRequest& req, const TrialResult& res, double probe_start_s,
                           OutputFormat format, uint64_t detail_trials);

/// json only: closes a variant's trials with its summary (`last`: no comma after it).
std::string timeline_variant_end(const VariantReport& r, bool last);

/// The end of the file: json: "paired" and the closing brace; jsonl: the summary record.
std::string timeline_footer(const RunReport& report, OutputFormat format);

/// The timeline file at `path` as a sink (the pieces above in order): json keeps the events and
/// dmesg of the first `detail_trials` trials of each variant; jsonl keeps none. `sc` must outlive
/// the sink. Throws IoError when `path` cannot be written.
std::unique_ptr<TrialSink> open_timeline_sink(const Scenario& sc, const std::string& path, OutputFormat format,
                                              uint64_t detail_trials);

}  // namespace nvmesim
