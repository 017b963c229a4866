#include <cctype>
#include <ostream>

#include "cli/cli.hpp"
#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "core/atomic_file.hpp"
#include "core/json_reader.hpp"
#include "core/json_text.hpp"
#include "core/signals.hpp"
#include "fit/forward.hpp"
#include "fit/predict.hpp"
#include "scenario/scenario.hpp"

namespace po = boost::program_options;

namespace nvmesim {

using oj = nlohmann::ordered_json;

namespace {

// Checks a what-if host by loading the scenario it makes; names the what-if on error.
void check_whatif(const WhatIf& w, const std::string& link, const std::string& origin) {
  SimJob j{Theta{}, &w.host};
  const std::vector<SimJob> jobs{j};
  try {
    (void)load_scenario_text(chunk_scenario(jobs, 0, 1, 1, 1, link).dump(), "what-if");
  } catch (const InputError& e) {
    throw InputError(origin + ": what-if \"" + w.name + "\": " + (e.has_pointer() ? e.pointer() + ": " : "") + e.message());
  }
}

// The host key of --set /host/KEY=VALUE; throws InputError for any other form.
std::string set_key(const std::string& s) {
  const size_t eq = s.find('=');
  if (s.rfind("/host/", 0) != 0 || eq == std::string::npos || eq <= 6)
    throw InputError("--set " + s + ": must be /host/KEY=VALUE (a what-if changes the host; the device is the posterior's)");
  return s.substr(6, eq - 6);
}

// Each host key is given once per what-if: --set twice for one key, or --set of a key that
// --kernel, --hz or --tick already gives, would leave one of them silently unused. Exit 2.
void check_set_conflicts(const po::variables_map& vm) {
  if (!vm.count("set")) return;
  std::vector<std::pair<std::string, std::string>> given;  // key, the option that gave it
  if (vm.count("kernel")) given.push_back({"kernel", "--kernel"});
  if (vm.count("hz")) given.push_back({"hz", "--hz " + std::to_string(vm["hz"].as<int>())});
  if (vm.count("tick")) given.push_back({"tick", "--tick " + vm["tick"].as<std::string>()});
  for (const auto& s : vm["set"].as<std::vector<std::string>>()) {
    const std::string key = set_key(s);
    for (const auto& [k, by] : given)
      if (k == key)
        throw InputError("--set " + s + ": /host/" + key + " is already given by " + by +
                         "; give each host key once per what-if");
    given.push_back({key, "--set " + s});
  }
}

// --set /host/KEY=VALUE on a what-if host (JSON, or a string when it is not JSON).
void apply_set(WhatIf& w, const std::string& s) {
  const std::string key = set_key(s), val = s.substr(s.find('=') + 1);
  if (key == "init_to_probe")
    throw InputError("--set " + s + ": /host/init_to_probe cannot be set by a what-if (init_to_probe is fitted)");
  if (key.find('/') != std::string::npos)
    throw InputError("--set " + s + ": --set takes a key of host itself (/host/KEY=VALUE), not /host/" + key +
                     "; give a key inside one of host's objects in a --whatif FILE, e.g. {\"whatifs\": [{\"name\": "
                     "\"poll 1ms\", \"host\": {\"overrides\": {\"poll\": \"usleep_range(1000, 2000)\"}}}]}");
  oj v;
  try {
    v = oj::parse(val);
  } catch (const oj::exception&) {
    v = val;
  }
  w.host.host[key] = v;
  w.given.emplace_back(key, "--set " + s);
  w.name += " " + key + "=" + val;  // as the user wrote it: 5.10 is not 5.1, 1e3 not 1000.0
}

// predict times Linux's probe (driver init to the queues line, the fit's forward model), and every
// what-if starts from the observed host, whose kernel, hz, tick, highres and wakeup_latency are
// Linux keys: a what-if for another driver would run with keys that driver does not have. Refused.
void check_driver(const WhatIf& w, const std::string& origin) {
  const auto it = w.host.host.find("driver");
  if (it == w.host.host.end() || *it == "linux") return;
  std::string at = origin;
  for (const auto& [key, where] : w.given)
    if (key == "driver") at = where;
  throw InputError(at + ": what-if \"" + w.name + "\": host.driver " + it->dump() +
                   " is not predicted: predict runs the Linux driver only (the fit's forward model is Linux's "
                   "probe, driver init to the queues line, and every what-if inherits the observed host's Linux "
                   "keys kernel, hz, tick, highres and wakeup_latency); leave host.driver out or give \"linux\"");
}

// A what-if's name tells it apart in the table, the JSON and the plot: not empty, and not the name
// of an observed host (the reference row is "NAME (observed)"; a what-if "NAME" beside it would
// read as that host's own result).
std::string name_problem(const std::string& name, const PosteriorModel& p) {
  if (name.empty()) return "a what-if needs a name that is not empty";
  for (const SimHost& h : p.hosts)
    if (h.name == name)
      return "\"" + name + "\" is the name of an observed host; give the what-if a name of its own";
  return "";
}

std::vector<WhatIf> whatifs_of(const po::variables_map& vm, const PosteriorModel& p) {
  size_t ref = 0;
  if (vm.count("baseline")) {
    const std::string b = vm["baseline"].as<std::string>();
    std::string known;
    ref = p.hosts.size();
    for (size_t h = 0; h < p.hosts.size(); ++h) {
      if (p.hosts[h].name == b) ref = h;
      known += (h ? ", " : "") + p.hosts[h].name;
    }
    if (ref == p.hosts.size()) throw InputError("--baseline: \"" + b + "\" is not an observed host (known: " + known + ")");
  }
  check_set_conflicts(vm);
  std::vector<WhatIf> ws{{p.hosts[ref].name + " (observed)", p.hosts[ref], {}}};
  // What-ifs are told apart by name in the table, the JSON and the plot: a name given twice is
  // exit 2 naming where each came from.
  std::vector<std::string> origins{"the reference host"};
  auto add = [&](const WhatIf& w, const std::string& origin) {
    for (size_t i = 0; i < ws.size(); ++i)
      if (ws[i].name == w.name)
        throw InputError(origin + ": what-if \"" + w.name + "\" is named like " + (i ? "the one of " : "") + origins[i] +
                         "; give each what-if a name of its own (each --kernel once, and distinct names in --whatif)");
    // A what-if whose host is the reference's own predicts a delta of 0 by construction (the same
    // trial randomness on the same host): "+0.000 ms" over nothing, not a prediction.
    if (w.host.host == ws[0].host.host)
      throw InputError(origin + ": what-if \"" + w.name + "\" has the reference host's own settings (" + ws[0].name +
                       "): its delta would be 0 by construction; change a host key, or use --baseline to compare "
                       "observed hosts");
    ws.push_back(w);
    origins.push_back(origin);
  };
  std::vector<std::string> kernels;
  if (vm.count("kernel")) kernels = vm["kernel"].as<std::vector<std::string>>();
  const bool mods = vm.count("hz") || vm.count("tick") || vm.count("set");
  if (kernels.empty() && mods) kernels.push_back(p.hosts[ref].host["kernel"].get<std::string>());
  for (const auto& k : kernels) {
    WhatIf w{k, p.hosts[ref], {}};
    w.host.host["kernel"] = k;
    if (vm.count("kernel")) w.given.emplace_back("kernel", "--kernel " + k);
    if (vm.count("hz")) {
      w.host.host["hz"] = vm["hz"].as<int>(), w.name += " HZ=" + std::to_string(vm["hz"].as<int>());
      w.given.emplace_back("hz", "--hz " + std::to_string(vm["hz"].as<int>()));
    }
    if (vm.count("tick")) {
      w.host.host["tick"] = vm["tick"].as<std::string>(), w.name += " " + vm["tick"].as<std::string>();
      w.given.emplace_back("tick", "--tick " + vm["tick"].as<std::string>());
    }
    if (vm.count("set"))
      for (const auto& s : vm["set"].as<std::vector<std::string>>()) apply_set(w, s);
    w.host.name = w.name;
    if (const std::string bad = name_problem(w.name, p); !bad.empty())
      throw InputError("--kernel " + k + ": " + bad + " (a --kernel what-if is named by its release and options: "
                       "name it in a --whatif FILE instead)");
    check_driver(w, "--kernel " + k);
    check_whatif(w, p.link, "--kernel " + k);
    add(w, "--kernel " + k);
  }
  if (vm.count("whatif")) {
    const std::string f = vm["whatif"].as<std::string>();
    const oj doc = parse_json_text(read_text_file(f), f);
    const JsonNode root(doc, f, "");
    root.require_object({"whatifs"});
    if (!root.has("whatifs")) root.fail("needs \"whatifs\": [{\"name\": ..., \"host\": {...}}]");
    for (size_t i = 0; i < root.at("whatifs").array().size(); ++i) {
      const JsonNode n = root.at("whatifs").at(i);
      n.require_object({"name", "host"});
      if (!n.has("name") || !n.has("host")) n.fail("needs \"name\" and \"host\" (the fields that differ from the reference host)");
      WhatIf w{n.at("name").str(), p.hosts[ref], {}};
      if (const std::string bad = name_problem(w.name, p); !bad.empty()) n.at("name").fail(bad);
      if (!n.at("host").json().is_object()) n.at("host").fail("must be an object: the host keys that differ from the reference host");
      for (const auto& [k, v] : n.at("host").json().items()) {
        if (k == "init_to_probe") n.at("host").at(k).fail("cannot be set by a what-if (init_to_probe is fitted)");
        w.host.host[k] = v;
        w.given.emplace_back(k, f + ": " + n.at("host").at(k).ptr());
      }
      w.host.name = w.name;
      check_driver(w, f + ": " + n.ptr());
      check_whatif(w, p.link, f + ": " + n.ptr());
      add(w, f + ": " + n.ptr() + "/name");
    }
  }
  if (ws.size() == 1) throw InputError("predict needs a what-if: --kernel K (with --hz, --tick, --set), or --whatif FILE");
  return ws;
}

// Does `text` name host key `key` (as host.KEY or /host/KEY, not as the start of a longer key)?
bool names_key(const std::string& text, const std::string& key) {
  for (const std::string& form : {"host." + key, "/host/" + key})
    for (size_t at = text.find(form); at != std::string::npos; at = text.find(form, at + 1)) {
      const size_t end = at + form.size();
      if (end == text.size() || !(std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_')) return true;
    }
  return false;
}

// A simulator child stopped on an input error (a safety limit such as host.max_events_per_trial,
// reached by a what-if's host): exit 2 naming the what-ifs that give the key it names, and where.
InputError refused_error(const SimulatorRefused& e, const std::vector<WhatIf>& ws) {
  std::string who;
  for (size_t i = 1; i < ws.size(); ++i)
    for (const auto& [key, origin] : ws[i].given)
      if (names_key(e.detail, key)) who += (who.empty() ? "" : "; ") + origin + " (what-if \"" + ws[i].name + "\")";
  if (who.empty()) return InputError("predict: the simulator stopped on a host of this prediction: " + e.detail);
  return InputError("predict: " + who + ": the simulator stopped: " + e.detail);
}

}  // namespace

int cmd_predict(const std::vector<std::string>& args, std::ostream& out, std::ostream& /*err*/) {
  po::options_description opts(
      "Usage: nvmesim predict POSTERIOR.json --kernel K [--hz H] [--tick T] [--set /host/KEY=V ...] [options]\n\n"
      "Predicts the probe time (driver init to the queues line) and, when the logs had the boot lines,\n"
      "the time to `Run /sbin/init`, under what-if hosts: M posterior draws x T trials each, all\n"
      "hosts of a draw with the same trial randomness, and the paired delta against the reference\n"
      "(the first observed host, or --baseline). p50_ci90 is the 90% credible interval of the median.\n\nOptions");
  opts.add_options()
      ("help,h", "this help")
      ("kernel", po::value<std::vector<std::string>>(), "a what-if kernel release (repeatable: one what-if each)")
      ("hz", po::value<int>(), "CONFIG_HZ of the --kernel what-ifs")
      ("tick", po::value<std::string>(), "tick of the --kernel what-ifs: auto, nohz_idle or periodic (host.tick)")
      ("set", po::value<std::vector<std::string>>(), "/host/KEY=VALUE on the --kernel what-ifs (repeatable)")
      ("whatif", po::value<std::string>(), "a file {\"whatifs\": [{\"name\": ..., \"host\": {...}}]}")
      ("baseline", po::value<std::string>(), "the reference: an observed host's name")
      ("draws", po::value<size_t>()->default_value(200), "posterior draws (10 to 100000)")
      ("trials", po::value<size_t>()->default_value(200), "trials per draw and host (1 to 100000)")
      ("seed,s", po::value<uint64_t>()->default_value(1), "seed of the draws and trials")
      ("jobs,j", po::value<unsigned>()->default_value(1), "simulator processes at a time (1 to 256)")
      ("out,o", po::value<std::string>(), "write the prediction (nvmesim.prediction/1) here (atomically)");
  const auto vm = parse_command(args, opts, "posterior");
  if (vm.count("help")) {
    out << opts << "\nExample:\n  nvmesim predict post.json --kernel 5.7 --kernel 6.6 --out pred.json\n";
    return kExitOk;
  }
  if (!vm.count("posterior") || vm["posterior"].as<std::vector<std::string>>().size() != 1)
    throw InputError("predict needs one POSTERIOR.json (written by nvmesim fit --out)");
  const std::string posterior_path = vm["posterior"].as<std::vector<std::string>>()[0];
  if (vm.count("out")) {
    std::vector<std::pair<std::string, std::string>> inputs{{"the posterior", posterior_path}};
    if (vm.count("whatif")) inputs.emplace_back("--whatif", vm["whatif"].as<std::string>());
    check_distinct_paths(inputs, {{"--out", vm["out"].as<std::string>()}});
  }
  const PosteriorModel p = load_posterior(posterior_path);
  const auto ws = whatifs_of(vm, p);
  PredictOptions o;
  o.draws = vm["draws"].as<size_t>();
  o.trials = vm["trials"].as<size_t>();
  if (o.draws < 10 || o.draws > 100000) throw InputError("--draws: must be from 10 to 100000");
  if (o.trials < 1 || o.trials > 100000) throw InputError("--trials: must be from 1 to 100000");
  o.seed = vm["seed"].as<uint64_t>();
  o.jobs = vm["jobs"].as<unsigned>();
  if (o.jobs < 1 || o.jobs > 256) throw InputError("--jobs: must be from 1 to 256");
  o.exe = "/proc/self/exe";
  std::unique_ptr<AtomicFile> f;
  if (vm.count("out")) f = std::make_unique<AtomicFile>(vm["out"].as<std::string>());
  std::string table;
  StopSignals stop_signals;  // SIGINT/SIGTERM: the children stop, the temporary folder goes, exit 130/143
  oj doc;
  try {
    doc = run_predict(p, ws, o, table);
  } catch (const SimulatorRefused& e) {
    throw refused_error(e, ws);
  }
  if (stop_requested()) throw Interrupted(stop_signal());
  out << table;
  if (f) {
    f->write(doc.dump(2) + "\n");
    f->commit();
  }
  return kExitOk;
}

}  // namespace nvmesim
