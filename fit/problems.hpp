#pragma once
// The blocks of the fit (docs/fit.md, "blocks"): the posterior factorises by observed line pairs,
// so each block of parameters has its own likelihood. The device block runs nvmesim (ForwardModel);
// init_to_probe and the boot stages after the queues line are one or two lognormal stages each,
// sampled here directly. Pure C++.
#include <array>
#include <map>
#include <string>
#include <vector>

#include "fit/forward.hpp"
#include "fit/observations.hpp"
#include "fit/smc.hpp"

namespace nvmesim {

/// Parameter values by name (ParamSpec::name; durations in seconds) and flags (0/1).
using ParamValues = std::map<std::string, double>;

/// The bandwidth of an observed interval y (seconds): max(5 us, 1 % of y).
double fit_bandwidth_s(double y_s);

/// Theta from the values of every block (missing names keep Theta's defaults).
Theta theta_of(const ParamValues& v);
/// The values of particle i of a population of `block`.
void values_of(const BlockSpec& block, const Population& p, size_t i, ParamValues& out);

/// One block: its spec and its likelihood.
struct FitBlock {
  BlockSpec spec;
  Evaluate evaluate;
  size_t particles = 0;
};

/// What the fit needs to build the blocks.
struct BlockSettings {
  size_t device_particles = 500, device_trials = 32;
  size_t cheap_particles = 1000, cheap_trials = 256;
  size_t group = 25;   ///< particles per simulator seed (independent trial randomness between groups)
};

/// True when every run has both the driver-init and the pci function line: init_to_probe is then
/// a block of its own, apart from the device.
bool splits_init_to_probe(const Observations& obs);

/// The blocks for `obs`: the device block (always), init_to_probe (when split), and each boot
/// stage block whose lines are observed. `fm` must outlive the blocks. Throws InputError for boot
/// lines out of the chain's order (e.g. a root mount line without the partition line).
std::vector<FitBlock> make_blocks(const Observations& obs, ForwardModel& fm, const BlockSettings& s);

/// The specs make_blocks builds for runs whose present lines are `runs` (LogRun::has each), in
/// make_blocks' order: what a posterior of such runs must hold (nvmesim predict checks it).
std::vector<BlockSpec> block_specs(const std::vector<std::array<bool, kBootLines>>& runs);

/// The boot chain after the queues line: per stage medians and sigmas (seconds), as fitted.
struct BootStages {
  bool present = false;
  double ns_med = 0, ns_sig = 0, rest_med = 0, rest_sig = 0, mnt_med = 0, mnt_sig = 0;
  double vfs_med = 0, vfs_sig = 0, ini_med = 0, ini_sig = 0;
  /// The `Run /sbin/init` time from driver init (seconds) of a trial whose queues line is at
  /// queues_s, with the five stage normals z[0..4].
  double run_init_s(double queues_s, const double z[5]) const;
};
/// The boot stages of parameter values (present when all five stages are in `v`).
BootStages boot_stages_of(const ParamValues& v);

}  // namespace nvmesim
