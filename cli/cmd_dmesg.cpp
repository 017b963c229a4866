#include <ostream>

#include "cli/cli.hpp"
#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "core/atomic_file.hpp"
#include "core/json_text.hpp"
#include "tools/dmesg_reader.hpp"

namespace po = boost::program_options;

namespace nvmesim {

int cmd_dmesg(const std::vector<std::string>& args, std::ostream& out, std::ostream& /*err*/) {
  po::options_description opts(
      "Usage: nvmesim dmesg LOG... [options]\n\n"
      "Reads real kernel logs and prints the intervals from each line matching --from to the next\n"
      "line matching --to, per controller (nvmeN), as JSON (nvmesim.dmesg/1). Logs may repeat the\n"
      "probe (module reloads, concatenated boots). Accepted line formats: dmesg ([  0.543457] ...),\n"
      "dmesg -r, /dev/kmsg, kern.log/syslog, journalctl -k -o short-monotonic or short-iso-precise,\n"
      "dmesg --time-format=iso; lines without a time are skipped.\n\nOptions");
  opts.add_options()
      ("help,h", "this help")
      ("from", po::value<std::string>()->default_value(kDmesgDefaultFrom),
       "start of an interval: ECMAScript regular expression searched in the message (default: driver "
       "init, or the probe's pci function line)")
      ("to", po::value<std::string>()->default_value(kDmesgDefaultTo),
       "end of an interval (default: the probe's queues line)")
      ("out,o", po::value<std::string>(), "write the JSON to this file (atomically) instead of stdout")
      ("empirical", "print only the durations as an empirical distribution in scenario syntax, e.g. for "
                    "--set /host/init_to_probe=\"$(nvmesim dmesg LOG --from ... --to ... --empirical)\"");
  const auto vm = parse_command(args, opts, "log");
  if (vm.count("help")) {
    out << opts
        << "\nExamples:\n"
           "  nvmesim dmesg /var/log/kern.log\n"
           "  nvmesim dmesg reload-32q-msleep100.dmesg --from nvme_init --to queues\n"
           "  nvmesim dmesg boot.dmesg --from 'pci function' --to queues -o real.json\n";
    return kExitOk;
  }
  if (!vm.count("log")) throw InputError("dmesg needs at least one LOG file");
  const std::string from = vm["from"].as<std::string>();
  const std::string to = vm["to"].as<std::string>();
  std::vector<DmesgParse> parses;
  for (const auto& path : vm["log"].as<std::vector<std::string>>()) {
    const std::string text = read_text_file(path, 256u << 20);
    // Outputs name the log by its file name only (no paths in outputs).
    const size_t slash = path.rfind('/');
    const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
    parses.push_back(parse_dmesg_text(text, name, from, to));
  }
  const std::string text = vm.count("empirical") ? dmesg_empirical(parses).dump() + "\n"
                                                 : dump_dmesg_json(dmesg_json(parses, from, to));
  if (vm.count("out")) {
    AtomicFile f(vm["out"].as<std::string>());
    f.write(text);
    f.commit();
  } else {
    out << text;
  }
  return kExitOk;
}

}  // namespace nvmesim
