// libFuzzer target: the model builder on CUDA sources (analyzers/: the Clang
// parse, ModelBuilder and its parts, then the rules, the model's JSON and the
// mapping model on top of the result).
//
// The input is a .cu file's text, parsed from memory with the arguments the
// CLI uses by default: the CUDA toolkit found on the machine (the built-in
// header where there is none), --cuda-gpu-arch=sm_90. A PreambleCache shared
// across inputs keeps the CUDA headers precompiled, as `nestor lsp` does, so
// that an input costs its own parse only. fuzz_cuda_mutator.cpp mutates at
// the level of tokens and lines; the seeds are the fixtures and examples.
#include "nestor/Analysis.h"
#include "nestor/Config.h"
#include "nestor/Lint.h"
#include "nestor/Mapping.h"
#include "nestor/ModelJson.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace {
nestor::PreambleCache *preambles = nullptr;
}

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  preambles = new nestor::PreambleCache(); // lives as long as the process
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  nestor::AnalysisOptions opts;
  opts.contents = std::string(reinterpret_cast<const char *>(data), size);
  opts.flags.userFlags = std::vector<std::string>{}; // no compile database lookup
  auto tu = nestor::analyzeFile("/nonexistent/nestor-fuzz/input.cu", opts, preambles);
  if (!tu) {
    std::string message = llvm::toString(tu.takeError());
    if (message.empty()) {
      std::fprintf(stderr, "fuzz_model: an analysis error without a message\n");
      std::abort();
    }
    return 0;
  }
  const nestor::FileModel &model = (*tu)->model();
  nestor::Config config;
  std::vector<nestor::Finding> findings = nestor::runRules(**tu, config);
  std::string json;
  llvm::raw_string_ostream os(json);
  os << nestor::toJSON(model);
  for (const nestor::Finding &f : findings) os << nestor::toJSON(f, "input.cu");
  (void)nestor::rankMappings(model, config.mapping);
  return 0;
}
