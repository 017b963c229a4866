#pragma once
// Output files (DESIGN section 8): atomic writes, the timeline trial records (JSON and JSON
// Lines), and dmesg lines in the kernel's format.
#include <cstdint>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>

#include "core/atomic_file.hpp"
#include "core/json_text.hpp"
#include "engine/system.hpp"

namespace nvmesim {

/// True when the trials of `v` report `namespace_ns` (time to the first usable namespace): some
/// controller supports ready independent of media (CAP.CRIMS).
bool variant_reports_namespace(const Variant& v);

/// Appends one trial as a JSON object. With `events`, the events and dmesg lines of a detailed
/// trial are included. With `variant_name` (JSON Lines), the record names its variant.
void append_trial_json(std::string& out, const TrialRequest& req, const TrialResult& res,
                       double probe_start_s, bool events, const std::string* variant_name);

/// "[    0.543457] " for a line printed `t_ps` after driver init, with driver init at
/// `probe_start_s` seconds of the kernel's clock (boot.probe_start_s). printk's "[%5lu.%06lu] ".
std::string dmesg_prefix(double probe_start_s, int64_t t_ps);

}  // namespace nvmesim
