#include "cli/cli.hpp"

#include <boost/program_options.hpp>
#include <functional>
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "core/json_text.hpp"
#include "core/signals.hpp"
#include "core/terminal_text.hpp"
#include "core/version.hpp"

namespace po = boost::program_options;

namespace nvmesim {

namespace {

struct Command {
  const char* name;
  const char* args;
  const char* summary;
  std::function<int(const std::vector<std::string>&, std::ostream&, std::ostream&)> run;
};

const std::vector<Command>& commands();

void print_usage(std::ostream& os) {
  os << "Usage: nvmesim <command> [options]\n\n"
        "Simulates how long a host takes to bring PCIe NVMe controllers up: SystemC models of the\n"
        "controller and link, driven by a replay of the Linux driver's probe release by release, or\n"
        "of FreeBSD's, SPDK's, UEFI firmware's (EDK2) and other hosts' (docs/hosts.md).\n\nCommands:\n";
  for (const auto& c : commands()) {
    std::string left = std::string(c.name) + " " + c.args;
    // A name and arguments too long for the column put the summary on a line of its own.
    if (left.size() < 22)
      os << "  " << left << std::string(22 - left.size(), ' ') << c.summary << "\n";
    else
      os << "  " << left << "\n" << std::string(24, ' ') << c.summary << "\n";
  }
  os << "\nOptions:\n  -h, --help            this help\n  --version             print the version\n\n"
        "Run 'nvmesim <command> --help' for a command's options.\n"
        "Exit status: 0 done (a simulated probe failure is a result), 2 bad usage or input,\n"
        "3 I/O failure, 4 internal error, 130/143 stopped by SIGINT/SIGTERM (partial outputs removed).\n";
}

const std::vector<Command>& commands() {
  static const std::vector<Command> table = {
      {"run", "[SCENARIO]", "run a scenario's variants and trials; table on stdout, timeline with --out", cmd_run},
      {"validate", "FILE...", "check scenario files without running them", cmd_validate},
      {"dmesg", "LOG...", "intervals (e.g. driver init to queues line) from real kernel logs, as JSON", cmd_dmesg},
      {"profiles", "[--json]", "the Linux kernel profiles 4.8 to 6.19 and their fields", cmd_profiles},
      {"sweep", "SWEEP --out DIR", "run a sweep's points in worker processes (--jobs, --shard, --resume)", cmd_sweep},
      {"merge", "DIR... --out F", "combine sweep folders into one summary (JSON and CSV)", cmd_merge},
      {"fit", "OBS --out POST", "fit a device and boot stages to a machine's kernel logs (ABC-SMC)", cmd_fit},
      {"predict", "POST --kernel K", "what another kernel, HZ or tick does to the fitted probe, with intervals", cmd_predict},
  };
  return table;
}

}  // namespace

int cli_main(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  std::vector<std::string> args(argv + 1, argv + argc);
  try {
    if (args.empty()) {
      print_usage(err);
      return kExitUsage;
    }
    const std::string cmd = args[0];
    if (cmd == "-h" || cmd == "--help" || cmd == "help") {
      print_usage(out);
      return kExitOk;
    }
    if (cmd == "--version") {
      out << "nvmesim " << kVersion << "\n";
      return kExitOk;
    }
    for (const auto& c : commands()) {
      if (cmd == c.name) return c.run(std::vector<std::string>(args.begin() + 1, args.end()), out, err);
    }
    std::vector<std::string> names;
    for (const auto& c : commands()) names.push_back(c.name);
    std::string msg = "unknown command \"" + cmd + "\"";
    const std::string near = did_you_mean(cmd, names);
    if (!near.empty()) msg += "; did you mean \"" + near + "\"?";
    err << "nvmesim: error: " << terminal_text(msg) << "\nRun 'nvmesim --help' for the list of commands.\n";
    return kExitUsage;
  } catch (const InputError& e) {
    err << "nvmesim: error: " << terminal_text(e.what()) << "\n";
    return kExitUsage;
  } catch (const po::error& e) {
    err << "nvmesim: error: " << terminal_text(e.what()) << "\nRun 'nvmesim " << terminal_text(args[0]) << " --help' for the options.\n";
    return kExitUsage;
  } catch (const IoError& e) {
    err << "nvmesim: error: " << terminal_text(e.what()) << "\n";
    return kExitIo;
  } catch (const Interrupted& e) {
    err << "nvmesim: " << terminal_text(e.what()) << "\n";
    return e.exit_status();
  } catch (const std::bad_alloc&) {
    // Every list nvmesim keeps is bounded by its input (README, Limits and guarantees), and a
    // parsed document by kMaxJsonValues: memory that runs out is an input too large for the
    // memory this process may use (issue 16 item 18), an input error, not an internal one.
    err << "nvmesim: error: input too large: memory ran out (std::bad_alloc); give nvmesim more memory "
           "(ulimit -v) or use a smaller input (README, Limits and guarantees)\n";
    return kExitUsage;
  } catch (const std::exception& e) {
    err << "nvmesim: internal error: " << terminal_text(e.what()) << "\n";
    return kExitInternal;
  }
}

int cli_process_main(int argc, const char* const* argv) {
  const int rc = cli_main(argc, argv, std::cout, std::cerr);
  // Results on stdout count as an output: `nvmesim run > /dev/full` must not exit 0.
  std::cout.flush();
  std::cerr.flush();
  if (!std::cout && rc == kExitOk) {
    std::cerr << "nvmesim: error: stdout: write failed\n";
    return kExitIo;
  }
  return rc;
}

}  // namespace nvmesim
