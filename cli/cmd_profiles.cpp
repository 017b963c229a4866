#include <ostream>

#include "cli/cli.hpp"
#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "tools/profiles.hpp"

namespace po = boost::program_options;

namespace nvmesim {

int cmd_profiles(const std::vector<std::string>& args, std::ostream& out, std::ostream& /*err*/) {
  po::options_description opts(
      "Usage: nvmesim profiles [--json]\n\n"
      "Prints the kernel profile table: per Linux release (4.8 to 6.19) the readiness-wait behaviour\n"
      "nvmesim replays. Every field can be overridden in a scenario under host.overrides, under the\n"
      "names the JSON output uses.\n\nOptions");
  opts.add_options()("help,h", "this help")("json", "the table as JSON (schema nvmesim.profiles/1), one object per row");
  const auto vm = parse_command(args, opts);
  if (vm.count("help")) {
    out << opts;
    return kExitOk;
  }
  if (vm.count("json")) {
    out << profiles_json().dump(2) << "\n";
    return kExitOk;
  }
  print_profiles_table(out);
  return kExitOk;
}

}  // namespace nvmesim
