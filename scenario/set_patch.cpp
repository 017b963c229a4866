#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "core/json_text.hpp"
#include "scenario/loader_parts.hpp"

namespace nvmesim {

using ojson = nlohmann::ordered_json;

namespace {

using WrittenKey = std::pair<std::string, std::string>;  // pointer, the parsed value's dump()

/// The VALUE text of each --set parse_set has read, by its pointer and parsed value: messages
/// echo what the user wrote, not the value re-serialised (5.10 parses as the number 5.1, 1e3 as
/// 1000.0; issue 16's last findings, item 4). SetPatch holds the parsed value only (a field of its
/// own there is the cleaner home, left for a change of scenario.hpp, which every part includes).
std::map<WrittenKey, std::string>& written_texts() {
  static std::map<WrittenKey, std::string> texts;
  return texts;
}
std::mutex written_texts_mutex;

/// The text `set`'s VALUE was written as (its value's dump() for a patch parse_set did not read).
std::string set_value_text(const SetPatch& set) {
  const std::string dumped = set.value.dump();
  const std::lock_guard<std::mutex> lock(written_texts_mutex);
  const auto it = written_texts().find({set.pointer, dumped});
  return it == written_texts().end() ? dumped : it->second;
}

}  // namespace

std::string set_text(const SetPatch& set) { return set.pointer + "=" + set_value_text(set); }

SetPatch parse_set(const std::string& text) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos || text.empty() || text[0] != '/')
    throw InputError("--set " + text + ": expected PTR=VALUE with PTR a JSON pointer such as /host/hz");
  SetPatch p;
  p.pointer = text.substr(0, eq);
  try {
    (void)ojson::json_pointer(p.pointer);
  } catch (const std::exception& e) {
    throw InputError("--set " + text + ": \"" + p.pointer + "\" is not a JSON pointer");
  }
  const std::string value = text.substr(eq + 1);
  check_nesting_depth(value, "--set " + p.pointer);
  try {
    p.value = ojson::parse(value);
  } catch (const std::exception&) {
    p.value = value;
    try {
      (void)p.value.dump();  // outputs hold the resolved scenario: it must be valid UTF-8
    } catch (const ojson::type_error&) {
      throw InputError("--set " + p.pointer + ": the value is not valid UTF-8 text");
    }
  }
  const std::lock_guard<std::mutex> lock(written_texts_mutex);
  // Bounded: a fuzzer parses millions (past 1024 options the oldest are echoed re-serialised).
  if (written_texts().size() >= 1024) written_texts().clear();
  written_texts()[{p.pointer, p.value.dump()}] = value;
  return p;
}

}  // namespace nvmesim

namespace nvmesim::scenario_detail {

using ojson = nlohmann::ordered_json;

std::vector<std::string> apply_set_patches(ojson& doc, const std::vector<SetPatch>& sets, const std::string& source) {
  std::vector<std::string> written;
  written.reserve(sets.size());
  for (const auto& s : sets) {
    try {
      ojson::json_pointer ptr(s.pointer);
      if (!ptr.empty() && !doc.contains(ptr.parent_pointer()))
        throw InputError("--set " + s.pointer + ": the parent " + pointer_text(ptr.parent_pointer().to_string()) +
                         " does not exist in " + source);
      if (!ptr.empty() && !doc.at(ptr.parent_pointer()).is_structured())
        // A key inside a string or a number (issue 16 item 22: nlohmann's exception text).
        throw InputError("--set " + s.pointer + ": the parent " + pointer_text(ptr.parent_pointer().to_string()) +
                         " is " + type_name(doc.at(ptr.parent_pointer())) + " in " + source +
                         ", not an object or an array: --set sets a key of an object or an element of an array");
      if (!ptr.empty() && doc.at(ptr.parent_pointer()).is_array()) {
        // Setting index N of a shorter array would fill it with N nulls (a memory bomb).
        const ojson& array = doc.at(ptr.parent_pointer());
        const std::string last = ptr.back();
        // RFC 6901: an index is "0" or digits without a leading zero ("00" is no index).
        const bool ok = last == "-" || (!last.empty() && last.size() <= 9 && (last == "0" || last[0] != '0') &&
                                        last.find_first_not_of("0123456789") == std::string::npos &&
                                        std::stoul(last) <= array.size());
        if (!ok)
          throw InputError("--set " + s.pointer + ": \"" + last + "\" is not an index of " +
                           pointer_text(ptr.parent_pointer().to_string()) + " in " + source + " (" +
                           std::to_string(array.size()) + (array.size() == 1 ? " element" : " elements") + "); allowed: 0 to " +
                           std::to_string(array.size()) + ", or - to append");
      }
      // Each --set may point inside the one before: the depth of the result is checked before
      // the value is placed (150 chained options built a document 9450 deep; issue 16 item 3).
      try {
        check_placed_depth(s.value, s.pointer, source, s.pointer);
      } catch (const InputError& e) {
        throw InputError("--set " + s.pointer + ": " + e.message());
      }
      // "-" appends: the element written is the array's size before it (RFC 6901 section 4).
      if (!ptr.empty() && ptr.back() == "-" && doc.at(ptr.parent_pointer()).is_array())
        written.push_back(ptr.parent_pointer().to_string() + "/" + std::to_string(doc.at(ptr.parent_pointer()).size()));
      else
        written.push_back(s.pointer);
      doc[ptr] = s.value;
    } catch (const InputError&) {
      throw;
    } catch (const std::exception& e) {
      throw InputError("--set " + s.pointer + ": cannot set it in " + source + ": " + e.what());
    }
  }
  return written;
}

void attribute_to_set(const InputError& e, const std::vector<SetPatch>& sets, const std::vector<std::string>& written,
                      const std::string& source) {
  // An error at (or inside) a value that --set put there: say so, the file is not to blame. The
  // sets apply in order, so the last one that covers the pointer put the value there.
  if (e.has_pointer() && e.source() == source) {
    const std::string ptr = pointer_text(e.pointer());
    for (size_t i = sets.size(); i-- > 0;) {
      const SetPatch& set = sets[i];
      const std::string& at = i < written.size() ? written[i] : set.pointer;  // "/a/-" as the index it appended
      if (ptr == at || ptr.rfind(at + "/", 0) == 0)
        throw InputError(source, e.pointer(),
                         e.message() + " (this value comes from --set " + set_text(set) + ")");
    }
  }
}

}  // namespace nvmesim::scenario_detail
