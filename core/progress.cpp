#include "core/progress.hpp"

#include <algorithm>
#include <cstdio>
#include <unistd.h>

namespace nvmesim {

ProgressBar::ProgressBar(bool enabled, std::chrono::milliseconds interval, std::chrono::milliseconds delay)
    : tty_(enabled && ::isatty(2)), interval_(interval), delay_(delay), start_(clock::now()) {}

bool ProgressBar::due(bool force) {
  if (!tty_) return false;
  const auto now = clock::now();
  if (!force && (now - start_ < delay_ || now - last_ < interval_)) return false;
  last_ = now;
  return true;
}

void ProgressBar::draw(double fraction, const std::string& text) {
  constexpr int kWidth = 30;
  const int filled = std::clamp(static_cast<int>(kWidth * fraction), 0, kWidth);
  const int n = std::fprintf(stderr, "\r[%-*s] %s", kWidth, std::string(static_cast<size_t>(filled), '#').c_str(),
                             text.c_str());
  drawn_chars_ = std::max(drawn_chars_, n - 1);
  shown_ = true;
}

void ProgressBar::clear() {
  if (shown_) std::fprintf(stderr, "\r%*s\r", drawn_chars_, "");
  shown_ = false;
  drawn_chars_ = 0;
}

double ProgressBar::elapsed_s() const { return std::chrono::duration<double>(clock::now() - start_).count(); }

}  // namespace nvmesim
