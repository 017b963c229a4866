#pragma once
// Text from the user made safe for a terminal (issue 16 items 22 and the hard16c follow-up): the
// table's names and every error and warning message on stderr. Pure C++.
#include <string>
#include <string_view>

namespace nvmesim {

/// `text` made safe for a terminal: C0 control characters (NUL too) and DEL as `\xNN`, C1
/// controls (U+0080..U+009F, e.g. CSI) as `\u00NN`, each byte that is not part of a well-formed
/// UTF-8 sequence (RFC 3629; e.g. a Latin-1 file name) as `\xNN`, the bidirectional controls
/// (U+061C, U+200E/F, U+202A..E, U+2066..9) as `\uNNNN`, everything else as is (never
/// cut; a backslash stays one, so escaping twice changes nothing). A scenario's names reach the table this way, and
/// every error and warning the CLI prints (it escapes what() as a whole), so that a file name, a
/// JSON key or a variant name holding ESC or a newline cannot move the cursor, recolour the
/// terminal or forge a line of its own.
std::string terminal_text(const std::string& text);

/// `text` between double quotes for a message, through terminal_text: a NUL (or any control) in
/// a user's value shows as `\x00` instead of ending the message (an exception's what() is a C
/// string: "5.\x007" was reported as "5.).
std::string quoted_text(std::string_view text);

}  // namespace nvmesim
