#include "core/rng.hpp"

namespace nvmesim {

Stream::Stream(uint64_t seed, uint64_t trial, uint64_t name_hash)
    : key_(splitmix64(splitmix64(splitmix64(seed ^ 0x6E766D6573696D31ull) ^ trial) ^ name_hash)) {}

}  // namespace nvmesim
