#include "cli/options.hpp"

#include <string>

#include "core/errors.hpp"

namespace nvmesim {

namespace po = boost::program_options;

po::variables_map parse_command(const std::vector<std::string>& args, const po::options_description& visible,
                                const char* positional) {
  po::options_description all;
  all.add(visible);
  po::positional_options_description pos;
  if (positional) {
    po::options_description hidden;
    hidden.add_options()(positional, po::value<std::vector<std::string>>(), positional);
    all.add(hidden);
    pos.add(positional, -1);
  }
  po::command_line_parser parser(args);
  parser.options(all);
  if (positional) parser.positional(pos);
  po::variables_map vm;
  po::store(parser.run(), vm);
  po::notify(vm);
  // A file option given as "" names no file: an error, not an output silently skipped (`run
  // --out ""` wrote nothing and exited 0) nor the current folder (issue 16 item 22).
  for (const char* name : {"out", "trace", "vcd", "dmesg", "scenario-out", "log"}) {
    const auto it = vm.find(name);
    if (it == vm.end() || it->second.defaulted()) continue;
    const po::option_description* desc = all.find_nothrow(name, false);
    if (desc && desc->semantic()->max_tokens() == 0) continue;  // a switch (sweep --trace): no file name
    const auto* value = boost::any_cast<std::string>(&it->second.value());
    if (value && value->empty())
      throw InputError(std::string("--") + name + ": the file name is empty; give a file name");
  }
  return vm;
}

}  // namespace nvmesim
