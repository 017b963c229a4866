#include "cli/options.hpp"

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
  return vm;
}

}  // namespace nvmesim
