#include "core/terminal_text.hpp"

namespace nvmesim {

namespace {

/// The length (2 to 4) of the well-formed UTF-8 sequence at text[i] (RFC 3629: no overlong form,
/// no surrogate, nothing above U+10FFFF), or 0 when the bytes there are not one.
size_t utf8_sequence(const std::string& text, size_t i) {
  const auto b = [&](size_t k) { return i + k < text.size() ? static_cast<unsigned char>(text[i + k]) : 0u; };
  const unsigned c = b(0);
  const auto cont = [&](size_t k, unsigned lo = 0x80, unsigned hi = 0xBF) { return b(k) >= lo && b(k) <= hi; };
  if (c >= 0xC2 && c <= 0xDF) return cont(1) ? 2 : 0;
  if (c == 0xE0) return cont(1, 0xA0) && cont(2) ? 3 : 0;
  if (c == 0xED) return cont(1, 0x80, 0x9F) && cont(2) ? 3 : 0;  // not U+D800..U+DFFF
  if (c >= 0xE1 && c <= 0xEF) return cont(1) && cont(2) ? 3 : 0;
  if (c == 0xF0) return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
  if (c >= 0xF1 && c <= 0xF3) return cont(1) && cont(2) && cont(3) ? 4 : 0;
  if (c == 0xF4) return cont(1, 0x80, 0x8F) && cont(2) && cont(3) ? 4 : 0;
  return 0;
}

/// Whether the 3-byte sequence at text[i] is a bidirectional control: U+200E, U+200F (E2 80 8E/8F),
/// U+202A..U+202E (E2 80 AA..AE), U+2066..U+2069 (E2 81 A6..A9).
bool bidi_control(const std::string& text, size_t i) {
  const auto b1 = static_cast<unsigned char>(text[i + 1]), b2 = static_cast<unsigned char>(text[i + 2]);
  if (static_cast<unsigned char>(text[i]) != 0xE2) return false;
  if (b1 == 0x80) return b2 == 0x8E || b2 == 0x8F || (b2 >= 0xAA && b2 <= 0xAE);
  return b1 == 0x81 && b2 >= 0xA6 && b2 <= 0xA9;
}

}  // namespace

std::string terminal_text(const std::string& text) {
  static const char* const kHex = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  const auto escape = [&](const char* prefix, unsigned char b) {
    out += prefix;
    out += kHex[b >> 4];
    out += kHex[b & 0xf];
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c == 0x7f) {
      escape("\\x", c);  // C0 controls (NUL too) and DEL
    } else if (c < 0x80) {
      out += text[i];
    } else if (const size_t n = utf8_sequence(text, i); n == 0) {
      escape("\\x", c);  // a byte of no well-formed UTF-8 sequence (a file name in Latin-1, a cut sequence)
    } else if (c == 0xD8 && static_cast<unsigned char>(text[i + 1]) == 0x9C) {
      out += "\\u061c";  // U+061C, the Arabic letter mark: a bidirectional control of two bytes
      ++i;
    } else if (c == 0xC2 && static_cast<unsigned char>(text[i + 1]) <= 0x9F) {
      escape("\\u00", static_cast<unsigned char>(text[++i]));  // U+0080..U+009F, the C1 controls (e.g. CSI)
    } else if (n == 3 && bidi_control(text, i)) {
      // U+200E/F, U+202A..E, U+2066..9: the bidirectional controls, which reorder what follows
      // on the terminal (a message's text could be shown in another order than it has).
      const unsigned cp = ((c & 0x0Fu) << 12) | ((static_cast<unsigned char>(text[i + 1]) & 0x3Fu) << 6) |
                          (static_cast<unsigned char>(text[i + 2]) & 0x3Fu);
      escape("\\u", static_cast<unsigned char>(cp >> 8));
      out += kHex[(cp >> 4) & 0xf];
      out += kHex[cp & 0xf];
      i += 2;
    } else {
      out.append(text, i, n);
      i += n - 1;
    }
  }
  return out;
}

std::string quoted_text(std::string_view text) { return "\"" + terminal_text(std::string(text)) + "\""; }

}  // namespace nvmesim
