#pragma once
// Everything the scenario says about one NVMe controller (DESIGN section 7, `controllers[]`),
// in typed form. Pure C++.
#include <cstdint>
#include <string>

#include "models/distribution.hpp"
#include "models/nvme_regs.hpp"

namespace nvmesim {

/// The state firmware leaves the controller in when the OS driver takes over.
enum class Handoff {
  disabled,  ///< CC.EN=0, CSTS.RDY=0 (after a module unload, or firmware that disables it)
  enabled,   ///< CC.EN=1, CSTS.RDY=1 (UEFI / SeaBIOS booted from it)
};

/// Per-opcode processing latency: SQE fetched to CQE ready to post.
struct AdminLatencies {
  Distribution identify = Distribution::fixed(0);
  Distribution set_features = Distribution::fixed(0);
  Distribution create_queue = Distribution::fixed(0);  ///< Create I/O CQ and Create I/O SQ
};

/// Device faults (DESIGN section 7 `faults`). Only never_ready is modelled so far.
struct ControllerFaults {
  bool never_ready = false;  ///< CC.EN 0->1 never sets CSTS.RDY
};

/// One controller's configuration. Latencies in picoseconds; field ranges are checked by the
/// scenario loader.
struct ControllerParams {
  std::string label;                       ///< the scenario's `name` for this entry
  std::string pci_id = "1d0f:8061";        ///< vendor:device
  std::string pci_address = "0000:00:04.0";///< printed in `pci function ...`
  int64_t clock_period_ps = 2000;          ///< controller clock (500 MHz)
  uint32_t read_cycles = 16;               ///< cycles from a register read's arrival to its completion
  uint32_t write_cycles = 4;               ///< cycles from a register write's arrival to its effect
  regs::Cap cap{};                         ///< CAP as the device reports it
  regs::Vs vs{};                           ///< VS
  regs::Crto crto{};                       ///< CRTO (NVMe 2.0)
  Handoff handoff = Handoff::disabled;
  Distribution enable_latency = Distribution::fixed(0);   ///< CC.EN 0->1 to CSTS.RDY=1
  Distribution disable_latency = Distribution::fixed(0);  ///< CC.EN 1->0 to CSTS.RDY=0
  Distribution shutdown_latency = Distribution::fixed(0); ///< CC.SHN write to SHST=complete
  AdminLatencies admin;
  uint32_t io_queues = 2;                  ///< I/O queue pairs the device grants (Set Features)
  std::string model = "nvmesim controller";///< Identify Controller MN
  int64_t rtd3e_us = 0;                    ///< Identify Controller RTD3E, microseconds
  ControllerFaults faults;
};

/// The PCIe link between the root port and one controller.
struct LinkParams {
  int generation = 3;                      ///< 1..5 (2.5, 5, 8, 16, 32 GT/s per lane)
  int width = 4;                           ///< lanes: 1, 2, 4, 8, 16
  Distribution one_way = Distribution::fixed(450'000);  ///< per-direction latency of a TLP
};

}  // namespace nvmesim
