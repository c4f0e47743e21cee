// libFuzzer target: nestor-runner's readers of plan.json and results.json
// (profiler/src/plan.cpp, results.cpp; nlohmann/json, no LLVM).
//
// The input is the file's text. The readers' contract is that bad input ends
// in their own error (PlanError / ResultsFormatError, naming the field), so
// any other exception escaping them is a finding: libFuzzer reports it as a
// crash. A results document that was read is written and read again, and
// must come back the same.
#include "nestor/profiler/plan.h"
#include "nestor/profiler/results.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

using nlohmann::json;
namespace prof = nestor::profiler;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  json j;
  try {
    j = json::parse(data, data + size);
  } catch (const json::exception &) {
    // parse_error, or out_of_range for 1E999: load_plan reports both as "not
    // valid JSON", the results readers as "not JSON".
    return 0;
  }
  try {
    prof::Plan plan = prof::parse_plan(j, "/nonexistent/nestor-fuzz/plan.json");
    (void)plan.baseline();
  } catch (const prof::PlanError &) {
  }
  try {
    prof::Results r = prof::results_from_json(j);
    json again = prof::to_json(r);
    prof::Results r2 = prof::results_from_json(again);
    if (prof::to_json(r2) != again) {
      std::fprintf(stderr, "fuzz_plan_results: results.json does not round-trip:\n%s\n", again.dump(1).c_str());
      std::abort();
    }
  } catch (const prof::ResultsFormatError &) {
  }
  // The runner's cache holds one variant record per line.
  try {
    prof::VariantResult v = prof::variant_from_json(j);
    (void)prof::to_json(v);
  } catch (const prof::ResultsFormatError &) {
  }
  return 0;
}
