#pragma once
// Entry points for the fuzz targets of input readers that are built on other branches. Each takes
// the whole input as text and must either return or throw nvmesim::InputError; anything else
// (another exception, a crash, a hang, a sanitizer report) is a bug the fuzzer reports.
#include <string>

namespace nvmesim::fuzz_hooks {

/// The sweep loader (`nvmesim sweep`, schema nvmesim.sweep/1): parse and validate `text` as a
/// sweep file named `source`, expanding its points. Filled in when the sweep branch is merged.
void load_sweep_text(const std::string& text, const std::string& source);

/// The dmesg reader (`nvmesim dmesg`): read `text` as a kernel log named `source` and extract its
/// intervals. Filled in when the dmesg branch is merged.
void read_dmesg_text(const std::string& text, const std::string& source);

/// True when the hooks above call real code (false while they are the placeholders).
bool hooks_filled();

}  // namespace nvmesim::fuzz_hooks
