#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "cli/cli.hpp"
#include "cli/commands.hpp"
#include "cli/file_kind.hpp"
#include "cli/options.hpp"
#include "core/json_text.hpp"
#include "core/terminal_text.hpp"
#include "scenario/scenario.hpp"
#include "sweep/sweep.hpp"

namespace po = boost::program_options;

namespace nvmesim {

int cmd_validate(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  po::options_description opts(
      "Usage: nvmesim validate FILE...\n\nChecks scenario and sweep files without running them: syntax, keys, "
      "types, values, and every variant (of a sweep: every point).\nPrints one line per file; exits 2 if any file is invalid.\n\nOptions");
  opts.add_options()("help,h", "this help");
  const auto vm = parse_command(args, opts, "file");
  if (vm.count("help")) {
    out << opts;
    return kExitOk;
  }
  if (!vm.count("file")) throw InputError("validate needs at least one FILE");
  int rc = kExitOk;
  for (const auto& f : vm["file"].as<std::vector<std::string>>()) {
    try {
      require_file_kind(f, {FileKind::scenario, FileKind::sweep}, "a scenario or sweep file");
      // A sweep file (schema nvmesim.sweep/1) is validated as a sweep: every point's scenario.
      // The file is read and parsed once.
      nlohmann::ordered_json doc = parse_json_text(read_text_file(f), f);
      if (doc.is_object() && doc.contains("schema") && doc["schema"] == "nvmesim.sweep/1") {
        const Sweep sw = load_sweep_document(doc, f, folder_of(f));
        out << terminal_text(f) << ": ok (sweep, " << sw.points.size() << " point" << (sw.points.size() == 1 ? "" : "s") << ", "
            << sw.trials << " trial" << (sw.trials == 1 ? "" : "s") << " per point)\n";
        continue;
      }
      const Scenario sc = load_scenario_document(std::move(doc), f);
      for (const std::string& w : sc.warnings) err << "nvmesim: warning: " << terminal_text(w) << "\n";
      size_t ctrls = sc.variants.front().controllers.size();
      out << terminal_text(f) << ": ok (" << sc.variants.size() << " variant" << (sc.variants.size() == 1 ? "" : "s") << ", "
          << ctrls << " controller" << (ctrls == 1 ? "" : "s") << ", " << sc.trials << " trial"
          << (sc.trials == 1 ? "" : "s") << ")\n";
    } catch (const InputError& e) {
      err << "nvmesim: error: " << terminal_text(e.what()) << "\n";
      rc = kExitUsage;
    }
  }
  return rc;
}

}  // namespace nvmesim
