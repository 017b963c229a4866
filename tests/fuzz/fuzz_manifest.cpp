// libFuzzer target: a sweep manifest read back by merge and --resume (sweep/manifest_check.cpp),
// then what merge derives from a manifest that passed: the parameters and id of each point from
// the recorded axes (issue 16 item 2: an axis with no values made that divide by zero). Each
// input must pass or throw InputError; anything else is a bug. Links nvmesim_sweep only.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "core/json_text.hpp"
#include "sweep/folder.hpp"
#include "sweep/sweep.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const nlohmann::ordered_json m = nvmesim::parse_json_text(text, "manifest.json");
    nvmesim::sweep_detail::check_manifest(m, "manifest.json");
    std::vector<nvmesim::SweepAxis> axes;
    for (const auto& a : m["sweep"].value("axes", nlohmann::ordered_json::array())) {
      nvmesim::SweepAxis ax;
      ax.pointer = a["pointer"].get<std::string>();
      ax.zip = a["kind"] == "zip";
      for (const auto& v : a["values"]) ax.values.push_back(v);
      axes.push_back(std::move(ax));
    }
    // The first and last points (at most 64 of each) keep each input cheap.
    const size_t points = m["sweep"]["points"].get<size_t>();
    for (size_t i = 0; i < points; i = i + 1 == 64 && points > 128 ? points - 64 : i + 1)
      (void)nvmesim::point_id(nvmesim::point_parameters(axes, i));
  } catch (const nvmesim::InputError&) {
  }
  return 0;
}
