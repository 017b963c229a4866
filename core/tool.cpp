#include "core/tool.hpp"

#include "core/version.hpp"

namespace nvmesim {

nlohmann::ordered_json tool_json() {
  nlohmann::ordered_json t;
  t["name"] = "nvmesim";
  t["version"] = kVersion;
  return t;
}

}  // namespace nvmesim
