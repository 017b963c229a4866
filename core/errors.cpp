#include "core/errors.hpp"

#include <utility>

namespace nvmesim {

std::string pointer_text(const std::string& ptr) { return ptr.empty() ? "/" : ptr; }

InputError::InputError(std::string source, std::string pointer, std::string message)
    : std::runtime_error(source + ": " + pointer_text(pointer) + ": " + message),
      source_(std::move(source)),
      pointer_(std::move(pointer)),
      message_(std::move(message)),
      has_pointer_(true) {}

InputError::InputError(std::string message) : std::runtime_error(message), message_(std::move(message)) {}

InputError::InputError(std::string what, std::string source, std::string message, size_t line, size_t column)
    : std::runtime_error(what),
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
