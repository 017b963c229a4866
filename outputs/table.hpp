#pragma once
// The readable table `nvmesim run` prints on stdout (DESIGN section 9). Pure C++.
#include <iosfwd>
#include <string>

#include "core/terminal_text.hpp"
#include "outputs/report.hpp"
#include "scenario/scenario.hpp"

namespace nvmesim {

// terminal_text (core/terminal_text.hpp) escapes the names the table prints.

/// Prints the table of a report: per variant the status counts, probe percentiles and the mean
/// sleeps and polls of the disable and enable waits; then the namespace, critical-path and
/// workload lines where they differ from the probe; then the paired deltas. Names of any length
/// widen their column; none is cut.
void print_table(std::ostream& os, const Scenario& scenario, const RunReport& report);

}  // namespace nvmesim
