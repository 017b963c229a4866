#pragma once
// Counter-based random numbers (DESIGN section 6). A draw is a pure function of
// (scenario seed, trial index, stream name, draw index): no generator state is shared between
// purposes, so the device draws of trial k are the same under every host variant, however many
// polls each variant makes (common random numbers).
#include <cstdint>
#include <string_view>

namespace nvmesim {

/// SplitMix64 finaliser (Steele, Lea, Flood 2014): a bijective 64-bit mixer.
constexpr uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/// FNV-1a 64-bit hash of a stream name.
constexpr uint64_t fnv1a64(std::string_view s) {
  uint64_t h = 0xCBF29CE484222325ull;
  for (char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001B3ull;
  }
  return h;
}

/// One named stream of uniforms for one trial. Cheap to copy; holds only its key and counter.
class Stream {
 public:
  Stream() = default;
  /// Stream `name` (e.g. "nvme0/enable_latency") of trial `trial` under scenario seed `seed`.
  Stream(uint64_t seed, uint64_t trial, std::string_view name) : Stream(seed, trial, fnv1a64(name)) {}
  /// The same, with the name already hashed by fnv1a64 (hot paths hash names once).
  Stream(uint64_t seed, uint64_t trial, uint64_t name_hash);

  /// The uniform of draw `index`, in the open interval (0, 1), 53 bits of resolution.
  double uniform_at(uint64_t index) const {
    const uint64_t h = splitmix64(key_ ^ splitmix64(index));
    return (static_cast<double>(h >> 11) + 0.5) * 0x1.0p-53;
  }
  /// The next uniform of this stream (draw indices 0, 1, 2, ...).
  double next_uniform() { return uniform_at(next_++); }
  /// Number of draws taken so far.
  uint64_t draws() const { return next_; }
  uint64_t key() const { return key_; }

 private:
  uint64_t key_ = 0;
  uint64_t next_ = 0;
};

}  // namespace nvmesim
