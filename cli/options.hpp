#pragma once
// The one option-parsing helper every `nvmesim` command uses (Boost.Program_options).
#include <string>
#include <vector>

#include <boost/program_options.hpp>

namespace nvmesim {

/// Parses a command's arguments (after the command name) against `visible`, the options its
/// --help lists. With `positional`, the positional arguments are collected as a hidden option of
/// that name (a list of strings; absent from the map when there are none); without it, a
/// positional argument is an error. Throws boost::program_options errors (exit status 2), and
/// InputError when a file option (--out, --trace, --vcd, --dmesg, --scenario-out, --log) is "".
boost::program_options::variables_map parse_command(const std::vector<std::string>& args,
                                                    const boost::program_options::options_description& visible,
                                                    const char* positional = nullptr);

/// Refuses (InputError, exit 2) an output that is an input or another output: an output at an
/// input's path would replace the evidence, and two outputs at one path would leave only the one
/// renamed last. Each pair is {what, path} ("--out", "out.json"); paths are compared canonically,
/// and existing files also by device and inode (a hard link counts). Call before any work.
void check_distinct_paths(const std::vector<std::pair<std::string, std::string>>& inputs,
                          const std::vector<std::pair<std::string, std::string>>& outputs);

}  // namespace nvmesim
