// libFuzzer target: `.nestor.yaml` (analyzers/src/Config.cpp, llvm::yaml).
//
// The input is the file's text. parseConfig must return a Config or an error
// naming the file; for a Config, every rule setting it reports must be
// answerable (enabled / severityOf on each rule it names).
#include "nestor/Config.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  auto config = nestor::parseConfig(text, "/nonexistent/nestor-fuzz/.nestor.yaml");
  if (!config) {
    std::string message = llvm::toString(config.takeError());
    if (message.empty()) {
      std::fprintf(stderr, "fuzz_config: an error without a message\n");
      std::abort();
    }
    return 0;
  }
  for (const auto &[rule, setting] : config->rules) {
    (void)config->enabled(rule);
    (void)config->severityOf(rule, nestor::Severity::Warning);
  }
  return 0;
}
