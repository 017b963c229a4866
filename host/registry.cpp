#include "host/registry.hpp"

#include <stdexcept>

#include "host/driver.hpp"

namespace nvmesim {

std::unique_ptr<HostDriver> make_driver(const std::string& name, nvme_host& host) {
#define NVMESIM_MAKE_IF(NAME, ID, WORKLOADS, LOG, RELEASES) \
  if (name == NAME) return make_##ID(host);
  NVMESIM_HOST_DRIVERS(NVMESIM_MAKE_IF)
#undef NVMESIM_MAKE_IF
  throw std::invalid_argument(unknown_driver_text(name));
}

}  // namespace nvmesim
