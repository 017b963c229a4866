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

/// Most JSON values (numbers, strings, true/false/null, arrays and objects, each counted once; an
/// object's keys are not counted) one parsed document may hold: 4194304 (2^22). A value costs the
/// DOM 16 bytes, 48 for a string, array or object, so the bound keeps a document under about
/// 200 MB whatever its text (issue 16 item 18: 5.5 million "{}" in a 16 MiB file died of
/// std::bad_alloc under `ulimit -v 400000`). The largest legitimate documents fit: a 16 MiB file of
/// the shortest empirical samples ("1s", 5 bytes each) holds 3.4 million values, and a posterior of
/// the most particles fit allows (100000 x 16 numbers) about 1.7 million.
inline constexpr size_t kMaxJsonValues = size_t{1} << 22;

/// Throws InputError "SOURCE:LINE:COLUMN: JSON nested deeper than ..." when `text` nests arrays
/// and objects deeper than kMaxNestingDepth (strings and comments are skipped).
void check_nesting_depth(const std::string& text, const std::string& source);

/// Parses JSON with comments (core/json_parse.cpp), in time linear in the text. Throws InputError
/// at the place in the text: "SOURCE:LINE:COLUMN: JSON syntax error: ...", a number out of range
/// at its first byte, a NUL byte (which would otherwise end the text), nesting deeper than
/// kMaxNestingDepth, and "SOURCE:LINE:COLUMN: POINTER: the key "K" appears twice in one object"
/// at the second occurrence of the key. A document of more than `max_values` values (1 to
/// kMaxJsonValues; tests pass fewer) is refused at the first value past the bound, before it is
/// built: "SOURCE:LINE:COLUMN: the JSON text holds more than N values ...". When memory runs out
/// while the document is built (std::bad_alloc), the partial document is released without
/// allocating and the error is an InputError "SOURCE:LINE:COLUMN: input too large: ..." (exit 2).
nlohmann::ordered_json parse_json_text(const std::string& text, const std::string& source,
                                       size_t max_values = kMaxJsonValues);

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
