#include "core/errors.hpp"

#include <utility>

namespace nvmesim {

namespace {

// std::runtime_error keeps what() as a C string: a NUL in user text (a JSON "\u0000") would end
// the message there. It is written as terminal_text writes it, \x00 (issue 16's last findings,
// item 1); the fields (source(), message(), ...) keep the text as it is.
std::string what_text(std::string what) {
  for (size_t i = what.find('\0'); i != std::string::npos; i = what.find('\0', i + 4)) what.replace(i, 1, "\\x00");
  return what;
}

}  // namespace

std::string pointer_text(const std::string& ptr) { return ptr.empty() ? "/" : ptr; }

InputError::InputError(std::string source, std::string pointer, std::string message)
    : std::runtime_error(what_text(source + ": " + pointer_text(pointer) + ": " + message)),
      source_(std::move(source)),
      pointer_(std::move(pointer)),
      message_(std::move(message)),
      has_pointer_(true) {}

InputError::InputError(std::string message) : std::runtime_error(what_text(message)), message_(std::move(message)) {}

InputError::InputError(std::string what, std::string source, std::string message, size_t line, size_t column)
    : std::runtime_error(what_text(std::move(what))),
      source_(std::move(source)),
      message_(std::move(message)),
      line_(line),
      column_(column) {}

InputError InputError::in_source(std::string source, std::string message) {
  std::string what = source + ": " + message;
  return InputError(std::move(what), std::move(source), std::move(message), 0, 0);
}

InputError InputError::at_line(std::string source, size_t line, size_t column, std::string message) {
  std::string what = source + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " + message;
  return InputError(std::move(what), std::move(source), std::move(message), line, column);
}

InputError InputError::at_line_pointer(std::string source, size_t line, size_t column, std::string pointer,
                                       std::string message) {
  std::string what = source + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " + pointer_text(pointer) +
                     ": " + message;
  InputError e(std::move(what), std::move(source), std::move(message), line, column);
  e.pointer_ = std::move(pointer);
  e.has_pointer_ = true;
  return e;
}

}  // namespace nvmesim
