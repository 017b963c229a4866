#include <map>
#include <memory>
#include <ostream>

#include "cli/cli.hpp"
#include "cli/commands.hpp"
#include "cli/file_kind.hpp"
#include "cli/options.hpp"
#include "core/atomic_file.hpp"
#include "core/signals.hpp"
#include "tools/dmesg_report.hpp"

namespace po = boost::program_options;

namespace nvmesim {

int cmd_dmesg(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  po::options_description opts(
      "Usage: nvmesim dmesg LOG... [options]\n\n"
      "Reads kernel logs and prints the intervals from each line matching --from to the next line\n"
      "matching --to, per controller (nvmeN), as JSON (nvmesim.dmesg/2): every interval, then one\n"
      "summary per log, per variant (the boot markers of `nvmesim run --dmesg`) and per controller.\n"
      "Logs may repeat the probe (module reloads, concatenated boots); intervals over which the time\n"
      "goes backwards are skipped with a warning. A log in which no interval is found is an error.\n"
      "Logs are read line by line: any size. Accepted line formats: dmesg ([  0.543457] ...),\n"
      "dmesg -r, /dev/kmsg, kern.log/syslog, journalctl -k -o short-monotonic or short-iso-precise,\n"
      "dmesg --time-format=iso; FreeBSD's with kern.msgbuf_show_timestamp 1 or 2 ([2.543457] ...);\n"
      "SPDK's log ([2023-04-17 19:10:08.630485] ...); lines without a time are skipped.\n"
      "Hosts read by the default --from/--to: Linux (pci function / driver init to the queues line),\n"
      "FreeBSD (nvme0: <...> ... on pci0 to nvd0: <...> NVMe namespace, or nda0 at nvme0),\n"
      "SPDK (a debug build's `setting state to delay init` to `setting state to ready`, controllers\n"
      "by PCI address); other lines are ignored.\n\nOptions");
  opts.add_options()
      ("help,h", "this help")
      ("from", po::value<std::string>()->default_value(kDmesgDefaultFrom),
       "start of an interval: regular expression (RE2 syntax, linear time) searched in the message "
       "(default: Linux's driver init or the probe's pci function line, FreeBSD's attach line, SPDK's "
       "delay init state)")
      ("to", po::value<std::string>()->default_value(kDmesgDefaultTo),
       "end of an interval (default: Linux's queues line, FreeBSD's nvd or nda line, SPDK's ready state)")
      ("variant", po::value<std::string>()->value_name("NAME"),
       "only the boots of this variant (logs written by nvmesim run --dmesg)")
      ("pool", "also summarise all logs together (\"pooled\", per variant)")
      ("out,o", po::value<std::string>(), "write the JSON to this file (atomically) instead of stdout")
      ("empirical", "print only the durations as an empirical distribution in scenario syntax, e.g. for "
                    "--set /host/init_to_probe=\"$(nvmesim dmesg LOG --from ... --to ... --empirical)\"; "
                    "one log (or --pool), one variant (or --variant)");
  const auto vm = parse_command(args, opts, "log");
  if (vm.count("help")) {
    out << opts
        << "\nExamples:\n"
           "  nvmesim dmesg /var/log/kern.log\n"
           "  nvmesim dmesg tests/data/shared/cases/reload-32q-msleep100.dmesg --from nvme_init --to queues\n"
           "  nvmesim dmesg boot-*.dmesg --from 'pci function' --to queues --pool -o real.json\n"
           "  nvmesim run --dmesg sim.dmesg && nvmesim dmesg sim.dmesg --variant '5.7 usleep_range(1000, 2000)'\n";
    return kExitOk;
  }
  if (!vm.count("log")) throw InputError("dmesg needs at least one LOG file");
  DmesgReportOptions o;
  o.from = vm["from"].as<std::string>();
  o.to = vm["to"].as<std::string>();
  if (vm.count("variant")) o.variant = vm["variant"].as<std::string>();
  o.pool = vm.count("pool") > 0;
  o.empirical = vm.count("empirical") > 0;
  const auto logs = vm["log"].as<std::vector<std::string>>();
  if (o.empirical && logs.size() > 1 && !o.pool)
    throw InputError("--empirical gives one distribution but " + std::to_string(logs.size()) +
                     " logs were given: add --pool to pool their intervals, or give one log");
  if (vm.count("out")) {
    std::vector<std::pair<std::string, std::string>> inputs;
    for (const auto& path : logs) inputs.emplace_back("the log", path);
    check_distinct_paths(inputs, {{"--out", vm["out"].as<std::string>()}});
  }
  // Outputs name each log by its file name only (no paths in outputs): two logs of one name
  // (d1/x.dmesg, d2/x.dmesg) would be told apart by nothing (attack of stop 25).
  const auto name_of = [](const std::string& path) {
    const size_t slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
  };
  std::map<std::string, size_t> first_of;  // file name -> the first log of that name
  for (size_t i = 0; i < logs.size(); ++i) {
    const auto [at, fresh] = first_of.emplace(name_of(logs[i]), i);
    if (!fresh)
      throw InputError(logs[i] + ": a log named " + name_of(logs[i]) + " was given before (" + logs[at->second] +
                       "); outputs name each log by its file name, so give the logs distinct names (copies or links)");
  }
  DmesgReport report(o);
  for (const auto& path : logs) require_file_kind(path, {FileKind::kernel_log}, "a kernel log");
  // SIGINT/SIGTERM stop the reading (exit 130/143) and the output's temporary is removed.
  StopSignals stop_signals;
  // With --out, the intervals go into the output's temporary as they are read, in blocks (an error
  // removes it: nothing half-written); to stdout they are spooled, so that the whole output is
  // ready before the first byte reaches stdout.
  std::unique_ptr<AtomicFile> file;
  const bool streamed = vm.count("out") && !o.empirical;
  if (vm.count("out")) {
    file = std::make_unique<AtomicFile>(vm["out"].as<std::string>());
    if (streamed) report.stream_intervals_to([f = file.get()](const char* d, size_t n) { f->write(d, n); });
  }
  try {
    for (const auto& path : logs) report.add_file(path, name_of(path), err);
  } catch (const InputError&) {
    // A signal during the last lines of a log may come after the reader's own look: the stop,
    // not the input error it caused ("no interval"), is what happened.
    if (stop_requested()) throw Interrupted(stop_signal());
    throw;
  }
  if (stop_requested()) throw Interrupted(stop_signal());
  if (file) {
    if (streamed)
      report.finish_stream();
    else
      report.write([&](const char* d, size_t n) { file->write(d, n); });
    file->commit();
  } else {
    report.write([&](const char* d, size_t n) { out.write(d, static_cast<std::streamsize>(n)); });
  }
  return kExitOk;
}

}  // namespace nvmesim
