#pragma once
// The errors every layer shares (DESIGN section 9, exit statuses): bad input, which names where
// the problem is, and I/O failures. Pure C++.
#include <cstddef>
#include <stdexcept>
#include <string>

namespace nvmesim {

/// "/" for the root pointer "", else `ptr` (for messages).
std::string pointer_text(const std::string& ptr);

/// Bad input (exit status 2). The error keeps its place apart from its message, so that code
/// which moves an error to the place the user wrote (the --set attribution, variant patches,
/// sweep axes) reads the fields and never parses what(). what() is one of:
/// - "SOURCE: POINTER: MESSAGE": at a JSON pointer (RFC 6901) inside SOURCE; the root pointer ""
///   is shown as "/";
/// - "SOURCE:LINE:COLUMN: MESSAGE": at a place in the text (syntax errors), line and column from 1;
/// - "SOURCE:LINE:COLUMN: POINTER: MESSAGE": both (a key an object repeats);
/// - "SOURCE: MESSAGE": about the whole of SOURCE (a file that cannot be read, a log line);
/// - "MESSAGE": the message names its place itself ("--trials: must be from 1 to ...").
class InputError : public std::runtime_error {
 public:
  /// A problem at `pointer` ("" for the whole document) inside `source`.
  InputError(std::string source, std::string pointer, std::string message);
  /// A message that names its place itself (a command-line option or argument).
  explicit InputError(std::string message);
  /// A problem with `source` as a whole.
  static InputError in_source(std::string source, std::string message);
  /// A problem at `line` and `column` (both from 1) of the text of `source`.
  static InputError at_line(std::string source, size_t line, size_t column, std::string message);
  /// A problem at `line` and `column` of the text of `source`, which is also at `pointer`.
  static InputError at_line_pointer(std::string source, size_t line, size_t column, std::string pointer,
                                    std::string message);

  const std::string& source() const { return source_; }
  /// True for the pointer forms; pointer() is then the JSON pointer ("" for the root).
  bool has_pointer() const { return has_pointer_; }
  const std::string& pointer() const { return pointer_; }
  /// Line and column of the line forms; 0 otherwise.
  size_t line() const { return line_; }
  size_t column() const { return column_; }
  /// What is wrong and what is allowed, without the place.
  const std::string& message() const { return message_; }

 private:
  InputError(std::string what, std::string source, std::string message, size_t line, size_t column);
  std::string source_, pointer_, message_;
  bool has_pointer_ = false;
  size_t line_ = 0, column_ = 0;
};

/// An output could not be written, or a file or process the run needs could not be used (exit
/// status 3).
class IoError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace nvmesim
