#pragma once
// The one progress bar (run: trials; sweep: points), on stderr and only when stderr is a terminal,
// so that it never reaches a file or a pipe. Pure C++.
#include <chrono>
#include <string>

namespace nvmesim {

/// "\r[####          ] TEXT" on stderr: the caller says when (due) and what (draw).
class ProgressBar {
 public:
  /// Draws nothing unless `enabled` and stderr is a terminal. Redraws at most every `interval`,
  /// and not in the first `delay` (a short run shows no bar).
  ProgressBar(bool enabled, std::chrono::milliseconds interval,
              std::chrono::milliseconds delay = std::chrono::milliseconds(0));
  /// Erases the bar.
  ~ProgressBar() { clear(); }
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  /// True when the bar is shown at all (enabled, and stderr is a terminal).
  bool tty() const { return tty_; }
  /// True when a redraw is due now (with `force`, whenever the bar is shown); then draw().
  bool due(bool force = false);
  /// Draws the bar with `fraction` (0 to 1) of its 30 characters filled, then `text`.
  void draw(double fraction, const std::string& text);
  /// Erases the bar (before other output on stderr, and at the end).
  void clear();
  /// Seconds since construction.
  double elapsed_s() const;

 private:
  using clock = std::chrono::steady_clock;
  bool tty_;
  std::chrono::milliseconds interval_, delay_;
  clock::time_point start_, last_;
  bool shown_ = false;
  int drawn_chars_ = 0;  // the longest line drawn since the last clear()
};

}  // namespace nvmesim
