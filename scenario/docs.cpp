// docs/scenario.md's key tables from the tables themselves (scenario/schema.hpp).
#include <set>
#include <string>

#include "scenario/loader_parts.hpp"
#include "scenario/schema.hpp"

namespace nvmesim {

namespace {

using scenario_detail::KeyInfo;
using scenario_detail::SectionInfo;

// A table cell: a '|' would end the cell.
std::string cell(const std::string& s) {
  std::string out;
  for (char c : s) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

std::string default_cell(const KeyInfo& k) {
  if (k.def.json) return "`" + k.def.json->dump() + "`";
  if (!k.def.text.empty()) return k.def.text;
  return k.required ? "required" : "";
}

// The "drivers" cell: the drivers that read the key (KeyInfo::used_by), or "all".
std::string drivers_cell(const KeyInfo& k) {
  if (k.used_by.empty()) return "all";
  std::string out;
  for (size_t i = 0; i < k.used_by.size(); ++i) out += (i ? ", `" : "`") + k.used_by[i] + "`";
  return out;
}

// The section's table, then the tables of its object-valued keys (depth first, each once). A
// table with a key some driver does not read gets a "drivers" column.
void render(const SectionInfo& s, std::set<const SectionInfo*>& done, std::string& out) {
  if (!done.insert(&s).second) return;
  out += "\n### `" + s.title() + "`\n\n";
  if (!s.doc().empty()) out += s.doc() + "\n\n";
  bool per_driver = false;
  for (const KeyInfo* k : s.infos()) per_driver = per_driver || !k->used_by.empty();
  out += per_driver ? "| key | type | default | unit | drivers | meaning |\n|---|---|---|---|---|---|\n"
                    : "| key | type | default | unit | meaning |\n|---|---|---|---|---|\n";
  for (const KeyInfo* k : s.infos())
    out += "| `" + k->key + "` | " + cell(k->type) + " | " + cell(default_cell(*k)) + " | " + cell(k->unit) +
           " | " + (per_driver ? drivers_cell(*k) + " | " : "") + cell(k->doc) +
           (k->fixed_in_variants ? " (not in a variant)" : "") + " |\n";
  for (const KeyInfo* k : s.infos())
    if (k->sub) render(*k->sub, done, out);
}

}  // namespace

std::string scenario_keys_markdown() {
  std::string out = std::string(kKeysDocBegin) + "\n";
  out += scenario_detail::distributions_markdown();
  out += "\n## Keys\n\nEvery key the loader accepts, section by section; any other key is an error. A default "
         "in `code` is applied through the key's own check before the file's keys are read.\n";
  std::set<const SectionInfo*> done;
  render(scenario_detail::document_section(), done, out);
  out += std::string(kKeysDocEnd) + "\n";
  return out;
}

}  // namespace nvmesim
