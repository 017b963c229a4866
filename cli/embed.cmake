# Turns a text file into a C++ string constant (the built-in default scenario).
file(READ "${IN}" content)
string(LENGTH "${content}" n)
set(out "// Generated from ${IN}; do not edit.\n#include \"cli/default_scenario.hpp\"\nnamespace nvmesim {\n")
string(APPEND out "const char* const kDefaultScenarioName = \"aws-c5.12xlarge.json (built in)\";\n")
string(APPEND out "const char* const kDefaultScenarioText = R\"nvmesim_embed(${content})nvmesim_embed\";\n}\n")
file(WRITE "${OUT}" "${out}")
