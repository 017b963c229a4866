#pragma once
// A set of trial indices chosen on the command line (--trace-trials, --dmesg-trials). Pure C++.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace nvmesim {

/// A set of trial indices: "all", "none", or a comma-separated list of K and K-L (inclusive), e.g.
/// "0,3,10-19" (at most 10000 items).
class TrialSelection {
 public:
  TrialSelection() = default;
  /// Throws InputError("OPTION: \"TEXT\": ...; allowed: ...") for anything else.
  static TrialSelection parse(const std::string& text, const std::string& option);
  bool contains(uint64_t trial) const;
  /// True when at least one of trials 0 .. n-1 is selected ("none" and lists beyond n: false).
  bool any_below(uint64_t n) const;
  bool all() const { return all_; }
  const std::string& text() const { return text_; }

 private:
  bool all_ = false;
  std::vector<std::pair<uint64_t, uint64_t>> ranges_;
  std::string text_;
};

}  // namespace nvmesim
