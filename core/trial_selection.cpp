#include "core/trial_selection.hpp"

#include "core/errors.hpp"

namespace nvmesim {

TrialSelection TrialSelection::parse(const std::string& text, const std::string& option) {
  TrialSelection s;
  s.text_ = text;
  if (text == "all") {
    s.all_ = true;
    return s;
  }
  if (text == "none") return s;
  auto bad = [&](const std::string& why) -> InputError {
    return InputError(option + ": \"" + text + "\": " + why +
                      "; allowed: all, none, or trial numbers and ranges from 0, e.g. 0,3,10-19");
  };
  auto number = [&](const std::string& t) {
    if (t.empty() || t.size() > 12 || t.find_first_not_of("0123456789") != std::string::npos)
      throw bad("\"" + t + "\" is not a trial number");
    return std::stoull(t);
  };
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t comma = text.find(',', pos);
    if (comma == std::string::npos) comma = text.size();
    const std::string item = text.substr(pos, comma - pos);
    const size_t dash = item.find('-');
    uint64_t a, b;
    if (dash == std::string::npos) {
      a = b = number(item);
    } else {
      a = number(item.substr(0, dash));
      b = number(item.substr(dash + 1));
      if (b < a) throw bad("range " + item + " goes backwards");
    }
    s.ranges_.emplace_back(a, b);
    if (s.ranges_.size() > 10000) throw bad("more than 10000 items");
    pos = comma + 1;
  }
  return s;
}

bool TrialSelection::contains(uint64_t trial) const {
  if (all_) return true;
  for (const auto& [a, b] : ranges_)
    if (trial >= a && trial <= b) return true;
  return false;
}

bool TrialSelection::any_below(uint64_t n) const {
  if (n == 0) return false;
  if (all_) return true;
  for (const auto& [a, b] : ranges_)
    if (a < n) return true;
  return false;
}

}  // namespace nvmesim
