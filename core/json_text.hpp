#pragma once
// JSON as nvmesim reads and writes it (DESIGN section 7): files of JSON with comments, a nesting
// limit checked before parsing, syntax errors with line and column, and the pieces every error
// message and writer uses. Pure C++ (nlohmann::json).
#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/errors.hpp"

namespace nvmesim {

/// Deepest nesting of arrays and objects a JSON input may have (the scenario needs 6).
inline constexpr size_t kMaxNestingDepth = 64;

/// Throws InputError "SOURCE:LINE:COLUMN: JSON nested deeper than ..." when `text` nests arrays
/// and objects deeper than kMaxNestingDepth (strings and comments are skipped).
void check_nesting_depth(const std::string& text, const std::string& source);

/// Parses JSON with comments (core/json_parse.cpp), in time linear in the text. Throws InputError
/// at the place in the text: "SOURCE:LINE:COLUMN: JSON syntax error: ...", a number out of range
/// at its first byte, a NUL byte (which would otherwise end the text), nesting deeper than
/// kMaxNestingDepth, and "SOURCE:LINE:COLUMN: POINTER: the key "K" appears twice in one object"
/// at the second occurrence of the key.
nlohmann::ordered_json parse_json_text(const std::string& text, const std::string& source);

/// Nesting depth of `value`: 0 for a scalar, 1 for [] or {}, 2 for [[]], ... Iterative (safe on
/// a document of any depth); stops counting once the depth passes `stop_above`.
size_t json_depth(const nlohmann::ordered_json& value, size_t stop_above = kMaxNestingDepth);

/// The depth check of a resolved document (issue 16 item 3: `set` entries or `--set` options that
/// each point inside the previous one built documents 31931 levels deep, whose recursive copy and
/// dump overflow the stack): `value` is about to be placed at the JSON pointer `pointer` (each of
/// its reference tokens counts one level). Throws InputError(source, error_pointer, "the value
/// would be nested deeper than 64 levels once placed at POINTER ...") when the result would nest
/// deeper than kMaxNestingDepth. Call it before the value is placed, copied or dumped.
void check_placed_depth(const nlohmann::ordered_json& value, const std::string& pointer, const std::string& source,
                        const std::string& error_pointer);

/// Reads a whole input file (at most `max_bytes`): read_input_file of core/file_input.hpp, which
/// refuses FIFOs, devices and folders. Throws InputError ("PATH: cannot open: ...") or IoError.
std::string read_text_file(const std::string& path, size_t max_bytes = size_t{16} << 20);

/// A key escaped as a JSON pointer reference token (RFC 6901: "~" -> "~0", "/" -> "~1").
std::string escape_token(const std::string& key);
/// "an object", "a string", "an integer", ... for messages.
const char* type_name(const nlohmann::ordered_json& j);

/// The closest of `candidates` to `word` within edit distance 2 (or a prefix), or "".
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);

/// Appends `s` as a JSON string literal (quoted, escaped) to `out`.
void append_json_string(std::string& out, const std::string& s);

}  // namespace nvmesim
