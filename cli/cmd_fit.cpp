#include <chrono>
#include <filesystem>
#include <memory>
#include <ostream>
#include <sys/resource.h>
#include <sys/stat.h>

#include "cli/cli.hpp"
#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "core/atomic_file.hpp"
#include "core/json_text.hpp"
#include "core/signals.hpp"
#include "fit/fit.hpp"
#include "tools/dmesg_reader.hpp"
#include "fit/forward.hpp"
#include "scenario/scenario.hpp"

namespace po = boost::program_options;

namespace nvmesim {

namespace {

// The observation file of one log given on the command line (docs/fit.md, "one log").
// Every missing or conflicting option is named in one message.
std::string one_log_observations(const po::variables_map& vm) {
  using oj = nlohmann::ordered_json;
  std::string missing;
  if (!vm.count("kernel") && !vm.count("uname-r")) missing += " --kernel (or --uname-r)";
  for (const char* k : {"hz", "tick", "cpus"})
    if (!vm.count(k)) missing += std::string(" --") + k;
  if (!missing.empty()) throw InputError("--log needs" + missing + " (the host the log ran on: docs/fit.md, \"one log\")");
  if (vm.count("kernel") && vm.count("uname-r")) throw InputError("--log needs exactly one of --kernel or --uname-r, not both");
  // The values go into the observation file (JSON text): bytes that are not UTF-8 are an input
  // error here, not nlohmann's type_error (exit 4) when the file is dumped (issue 16 item 18).
  for (const char* k : {"log", "kernel", "uname-r", "tick", "kind"})
    if (vm.count(k) && !is_valid_utf8(vm[k].as<std::string>()))
      throw InputError(std::string("--") + k + ": the value is not valid UTF-8; give it in UTF-8" +
                       (std::string(k) == "log" ? " (or give the log through a link with a UTF-8 name)" : ""));
  oj host = {{"hz", vm["hz"].as<int>()}, {"tick", vm["tick"].as<std::string>()}, {"cpus", vm["cpus"].as<int>()}};
  if (vm.count("kernel")) host["kernel"] = vm["kernel"].as<std::string>();
  else host["uname_r"] = vm["uname-r"].as<std::string>();
  const std::string path = vm["log"].as<std::string>();
  const size_t s = path.rfind('/');
  const std::string name = s == std::string::npos ? path : path.substr(s + 1);
  oj doc = {{"schema", "nvmesim.observations/1"}, {"name", name}, {"hosts", {{"host", host}}},
            {"logs", oj::array({{{"path", path}, {"host", "host"}, {"kind", vm["kind"].as<std::string>()}}})}};
  return doc.dump(2) + "\n";
}

// Each observed host as the simulator will run it (the scenario of one chunk): a host the reader
// let through but the scenario refuses is exit 2 at the host, never an internal error at a
// temporary file.
void check_hosts(const Observations& obs) {
  for (size_t h = 0; h < obs.hosts.size(); ++h) {
    const SimHost host = sim_host_of(obs, h);
    const std::vector<SimJob> jobs{SimJob{Theta{}, &host}};
    try {
      (void)load_scenario_text(chunk_scenario(jobs, 0, 1, 1, 1, obs.link).dump(), "host");
    } catch (const InputError& e) {
      throw InputError(obs.source + ": /hosts/" + obs.hosts[h].name + ": the simulator refuses this host: " +
                       (e.has_pointer() ? e.pointer() + ": " : "") + e.message());
    }
  }
}

// Options of the other mode are refused, never ignored: the host options describe a --log (an
// observation file gives its hosts itself), and --print-observations writes nothing but stdout.
void check_mode_options(const po::variables_map& vm) {
  const bool given_log = vm.count("log") > 0;
  for (const char* k : {"kernel", "uname-r", "hz", "tick", "cpus", "kind", "print-observations"})
    if (!given_log && vm.count(k) && !vm[k].defaulted())
      throw InputError(std::string("--") + k + " is an option of --log LOG; an observation file (OBS) gives its hosts "
                       "and kinds in /hosts and /logs");
  if (!vm.count("print-observations")) return;
  for (const char* k : {"out", "scenario-out", "seed", "jobs", "particles", "trials-per-particle", "max-noise"})
    if (vm.count(k) && !vm[k].defaulted())
      throw InputError(std::string("--print-observations prints the observation file and stops: --") + k +
                       " would be ignored; leave it out (or drop --print-observations to fit)");
}

double cpu_s(int who) {
  rusage ru{};
  ::getrusage(who, &ru);
  return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

}  // namespace

int cmd_fit(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  po::options_description opts(
      "Usage: nvmesim fit OBS --out POSTERIOR.json [options]\n"
      "       nvmesim fit --log LOG --kernel K --hz H --tick T --cpus N --out POSTERIOR.json [options]\n\n"
      "Fits the device and boot stages of ONE machine to its kernel logs (nvmesim.observations/1) by\n"
      "adaptive ABC-SMC with nvmesim as the forward model, and prints the posterior predictive check\n"
      "(docs/fit.md). The result depends on the seed and the settings only, not on --jobs.\n\nOptions");
  opts.add_options()
      ("help,h", "this help")
      ("out,o", po::value<std::string>(), "write the posterior (nvmesim.posterior/1) here (atomically)")
      ("scenario-out", po::value<std::string>(), "write the best-fitting device as a scenario file (runs with nvmesim run)")
      ("seed,s", po::value<uint64_t>()->default_value(1), "seed of every random choice of the fit")
      ("jobs,j", po::value<unsigned>()->default_value(1), "simulator processes at a time (1 to 256)")
      ("particles", po::value<size_t>(), "particles of the device block (20 to 100000; default 500, or the file's fit.particles)")
      ("trials-per-particle", po::value<size_t>(), "simulated trials per particle and host (4 to 4096; default 32)")
      ("max-noise", po::value<double>(), "noise floor of the ABC kernel: the tempering stops where the median particle's likelihood "
       "estimate has a squared coefficient of variation of at most this (0 to 1; 0: down to the timestamp bandwidth; default 0.25)")
      ("log", po::value<std::string>(), "one kernel log instead of OBS (with --kernel/--uname-r, --hz, --tick, --cpus)")
      ("kernel", po::value<std::string>(), "--log: the kernel release, e.g. 5.6")
      ("uname-r", po::value<std::string>(), "--log: `uname -r` of the host")
      ("hz", po::value<int>(), "--log: CONFIG_HZ")
      ("tick", po::value<std::string>(), "--log: auto, nohz_idle or periodic (host.tick)")
      ("cpus", po::value<int>(), "--log: CPUs of the host")
      ("kind", po::value<std::string>()->default_value("boot"),
       "--log: boot or module_reload (reset, `nvme reset`, is a kind of log not fitted yet)")
      ("print-observations", "--log: check the log as fit does, print its observation file and stop (a start for a file of your own)")
      ("quiet,q", "no progress lines");
  const auto vm = parse_command(args, opts, "obs");
  if (vm.count("help")) {
    out << opts << "\nExamples:\n  nvmesim fit scenarios/observations/aws-c5.12xlarge.json --out post.json --scenario-out dev.json --jobs 2\n"
                   "  nvmesim fit --log dmesg.txt --kernel 5.6 --hz 250 --tick nohz_idle --cpus 48 --out post.json\n";
    return kExitOk;
  }
  const size_t nobs = vm.count("obs") ? vm["obs"].as<std::vector<std::string>>().size() : 0;
  if (nobs > 1) throw InputError("fit takes one OBS file");
  if ((nobs == 1) == (vm.count("log") == 1)) throw InputError("fit needs exactly one of OBS or --log LOG");
  check_mode_options(vm);
  Observations obs;
  if (vm.count("log")) {
    const std::string text = one_log_observations(vm);
    obs = parse_observations(text, "--log " + vm["log"].as<std::string>(), "");
    if (vm.count("print-observations")) {
      check_hosts(obs);  // printed only once fit would take it
      out << text;
      return kExitOk;
    }
  } else {
    obs = load_observations(vm["obs"].as<std::vector<std::string>>()[0]);
  }
  if (!vm.count("out")) throw InputError("fit needs --out POSTERIOR.json");
  check_hosts(obs);
  std::vector<std::pair<std::string, std::string>> inputs, outputs{{"--out", vm["out"].as<std::string>()}};
  if (vm.count("log")) inputs.push_back({"--log", vm["log"].as<std::string>()});
  else inputs.push_back({"the observation file", vm["obs"].as<std::vector<std::string>>()[0]});
  for (const auto& f : obs.files) inputs.push_back({"the log", f});
  if (vm.count("scenario-out")) outputs.push_back({"--scenario-out", vm["scenario-out"].as<std::string>()});
  check_distinct_paths(inputs, outputs);
  FitOptions o;
  o.seed = vm["seed"].as<uint64_t>();
  o.jobs = vm["jobs"].as<unsigned>();
  if (o.jobs < 1 || o.jobs > 256) throw InputError("--jobs: must be from 1 to 256, not " + std::to_string(o.jobs));
  if (vm.count("particles")) {
    o.blocks.device_particles = vm["particles"].as<size_t>();
    if (o.blocks.device_particles < 20 || o.blocks.device_particles > 100000) throw InputError("--particles: must be from 20 to 100000");
    obs.fit.particles = 0;
  }
  if (vm.count("trials-per-particle")) {
    o.blocks.device_trials = vm["trials-per-particle"].as<size_t>();
    if (o.blocks.device_trials < 4 || o.blocks.device_trials > 4096) throw InputError("--trials-per-particle: must be from 4 to 4096");
    obs.fit.trials_per_particle = 0;
  }
  if (vm.count("max-noise")) {
    o.max_noise = vm["max-noise"].as<double>();
    if (!(o.max_noise >= 0 && o.max_noise <= 1)) throw InputError("--max-noise: must be from 0 to 1");
  }
  o.exe = "/proc/self/exe";
  o.quiet = vm.count("quiet") > 0;
  // Both outputs are opened (their folders checked) before the work, and renamed into place only
  // after it: a stop or an error leaves neither.
  AtomicFile post(vm["out"].as<std::string>());
  std::unique_ptr<AtomicFile> dev;
  if (vm.count("scenario-out")) dev = std::make_unique<AtomicFile>(vm["scenario-out"].as<std::string>());
  StopSignals stop_signals;  // SIGINT/SIGTERM: the children stop, the temporary folder goes, exit 130/143
  const auto t0 = std::chrono::steady_clock::now();
  const FitResult r = run_fit(obs, o, err);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (stop_requested()) throw Interrupted(stop_signal());
  out << r.ppc_text;
  post.write(r.posterior.dump() + "\n");
  if (dev) dev->write(device_scenario_text(r));
  if (dev) dev->commit();
  post.commit();
  char b[200];
  std::snprintf(b, sizeof b, "nvmesim fit: %llu trials in %llu simulator processes, %.1f s wall, %.1f s CPU (simulator %.1f s)\n",
                static_cast<unsigned long long>(r.trials), static_cast<unsigned long long>(r.processes), wall,
                cpu_s(RUSAGE_SELF) + cpu_s(RUSAGE_CHILDREN), cpu_s(RUSAGE_CHILDREN));
  if (!o.quiet) err << b;
  return kExitOk;
}

}  // namespace nvmesim
