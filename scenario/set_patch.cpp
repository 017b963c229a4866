#include <string>

#include "core/json_text.hpp"
#include "scenario/loader_parts.hpp"

namespace nvmesim {

using ojson = nlohmann::ordered_json;

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
  return p;
}

}  // namespace nvmesim

namespace nvmesim::scenario_detail {

using ojson = nlohmann::ordered_json;

void apply_set_patches(ojson& doc, const std::vector<SetPatch>& sets, const std::string& source) {
  for (const auto& s : sets) {
    try {
      ojson::json_pointer ptr(s.pointer);
      if (!ptr.empty() && !doc.contains(ptr.parent_pointer()))
        throw InputError("--set " + s.pointer + ": the parent " + pointer_text(ptr.parent_pointer().to_string()) +
                         " does not exist in " + source);
      if (!ptr.empty() && doc.at(ptr.parent_pointer()).is_array()) {
        // Setting index N of a shorter array would fill it with N nulls (a memory bomb).
        const ojson& array = doc.at(ptr.parent_pointer());
        const std::string last = ptr.back();
        const bool ok = last == "-" || (!last.empty() && last.size() <= 9 &&
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
      doc[ptr] = s.value;
    } catch (const InputError&) {
      throw;
    } catch (const std::exception& e) {
      throw InputError("--set " + s.pointer + ": cannot set it in " + source + ": " + e.what());
    }
  }
}

void attribute_to_set(const InputError& e, const std::vector<SetPatch>& sets, const std::string& source) {
  // An error at (or inside) a value that --set put there: say so, the file is not to blame. The
  // sets apply in order, so the last one that covers the pointer put the value there.
  if (e.has_pointer() && e.source() == source) {
    const std::string ptr = pointer_text(e.pointer());
    for (auto it = sets.rbegin(); it != sets.rend(); ++it) {
      const SetPatch& set = *it;
      if (ptr == set.pointer || ptr.rfind(set.pointer + "/", 0) == 0)
        throw InputError(source, e.pointer(),
                         e.message() + " (this value comes from --set " + set.pointer + "=" + set.value.dump() + ")");
    }
  }
}

}  // namespace nvmesim::scenario_detail
