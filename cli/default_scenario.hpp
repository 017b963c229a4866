#pragma once
namespace nvmesim {
/// Display name of the built-in default scenario (the shipped scenarios/aws-c5.12xlarge.json).
extern const char* const kDefaultScenarioName;
/// Its text, embedded at build time.
extern const char* const kDefaultScenarioText;
}  // namespace nvmesim
