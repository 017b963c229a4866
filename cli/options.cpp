#include "cli/options.hpp"

#include <sys/stat.h>

#include <filesystem>

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

// The outputs are neither each other nor an input: an output at an input's path would replace
// the evidence, and two outputs at one path would leave only the one renamed last. Exit 2
// before the run. Paths are compared canonically, and existing files also by device and inode.
void check_distinct_paths(const std::vector<std::pair<std::string, std::string>>& inputs,
                          const std::vector<std::pair<std::string, std::string>>& outputs) {
  namespace fs = std::filesystem;
  auto key = [](const std::string& p) {
    std::error_code ec;
    const fs::path c = fs::weakly_canonical(fs::absolute(p), ec);
    return ec ? fs::absolute(p).lexically_normal() : c;
  };
  auto same = [&](const std::string& a, const std::string& b) {
    struct stat sa {}, sb {};
    if (::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino)
      return true;
    return key(a) == key(b);
  };
  for (size_t i = 0; i < outputs.size(); ++i) {
    for (const auto& [what, path] : inputs)
      if (same(outputs[i].second, path))
        throw InputError(outputs[i].first + " " + outputs[i].second + ": the same file as " + what + " (" + path +
                         "); an output must not replace an input: give it a path of its own");
    for (size_t j = 0; j < i; ++j)
      if (same(outputs[i].second, outputs[j].second))
        throw InputError(outputs[i].first + " " + outputs[i].second + ": the same file as " + outputs[j].first + " (" +
                         outputs[j].second + "); give each output a path of its own");
  }
}

}  // namespace nvmesim
