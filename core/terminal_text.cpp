#include "core/terminal_text.hpp"

namespace nvmesim {

std::string terminal_text(const std::string& text) {
  static const char* const kHex = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    const bool c1 = c == 0xC2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
                    static_cast<unsigned char>(text[i + 1]) <= 0x9F;  // U+0080..U+009F (e.g. CSI)
    if (c < 0x20 || c == 0x7f || c1) {
      const auto b = c1 ? static_cast<unsigned char>(text[++i]) : c;
      out += c1 ? "\\u00" : "\\x";
      out += kHex[b >> 4];
      out += kHex[b & 0xf];
    } else {
      out += text[i];
    }
  }
  return out;
}

}  // namespace nvmesim
