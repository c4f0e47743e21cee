// libFuzzer target: the model builder on CUDA sources (analyzers/: the Clang
// parse, ModelBuilder and its parts, then the rules, the model's JSON and the
// mapping model on top of the result).
//
// The input is a .cu file's text, parsed from memory (never written to disk)
// with the CLI's default arguments and --cuda-gpu-arch=sm_90, against
// Nestor's built-in CUDA header (what `nestor lint` uses where no toolkit is
// installed): a few kilobytes that parse in well under a millisecond, where
// the toolkit's headers cost tens of milliseconds per input even precompiled.
// One PreambleCache lives across inputs: it keeps the compiler invocation
// (the driver runs once, not per input; it probes the file system for the
// CUDA and GCC installations) and the built-in header, precompiled once
// (AnalysisOptions::precompileImplicitIncludesOnly). The C and C++ library
// headers are stand-ins (tests/fuzz/stub-include).
// NESTOR_FUZZ_CUDA=toolkit parses against the toolkit's headers instead, as
// before (the CUDA toolkit found on the machine; 5 to 6 inputs/s under ASan).
// Typo correction is limited to 1 per input (-fspell-checking-limit=1).
// docs/fuzzing.md has the figures. fuzz_cuda_mutator.cpp mutates at the
// level of tokens and lines; the seeds are the fixtures and examples, and
// the crash corpus of tests/crash/inputs.
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
#include <string>
#include <vector>

namespace {
nestor::PreambleCache *preambles = nullptr;
bool toolkitHeaders = false;
// Typo correction walks every identifier for each unknown name, and mutated
// inputs are full of them: it was the largest single cost (a quarter of the
// time on the examples; at 4 per input still 8%). One correction per input
// keeps its recovery paths covered.
// The C and C++ library headers an input includes come from
// tests/fuzz/stub-include, not the system: libstdc++'s <vector> alone costs
// more to parse than everything else here (its README says why that is fair).
// With NESTOR_FUZZ_CUDA=toolkit the toolkit needs the real ones.
std::vector<std::string> flags = {"-fspell-checking-limit=1"};
const std::vector<std::string> stubLibraryHeaders = {"-nostdinc++", "-nostdlibinc", "-isystem",
                                                     NESTOR_SOURCE_DIR "/tests/fuzz/stub-include"};
}

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  preambles = new nestor::PreambleCache(); // lives as long as the process
  const char *cuda = std::getenv("NESTOR_FUZZ_CUDA");
  toolkitHeaders = cuda && std::string(cuda) == "toolkit";
  if (!toolkitHeaders) flags.insert(flags.end(), stubLibraryHeaders.begin(), stubLibraryHeaders.end());
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  nestor::AnalysisOptions opts;
  opts.contents = std::string(reinterpret_cast<const char *>(data), size);
  opts.flags.userFlags = flags; // the flags after `--`: no compile database lookup
  if (!toolkitHeaders) opts.flags.cudaPath = "none";   // the built-in CUDA header
  // Successive inputs share one path but not their leading lines: precompile
  // only the CUDA header once, and parse each input's #include block with it.
  opts.precompileImplicitIncludesOnly = true;
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
  // The JSON is written (every value serialised) but not kept: a string
  // stream appends each small write to the string (4% of an execution).
  llvm::raw_null_ostream os;
  os << nestor::toJSON(model);
  for (const nestor::Finding &f : findings) os << nestor::toJSON(f, "input.cu");
  // Ranked as a front end shows them: texts for the first three (the
  // hover's) and the original only; the rest are scored and estimated.
  (void)nestor::rankMappings(model, config.mapping, nestor::MappingTexts::firstOf(3));
  return 0;
}
