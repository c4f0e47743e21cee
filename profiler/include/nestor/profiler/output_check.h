// Comparison of a variant's outputs with the baseline's.
#pragma once
#include <string>

namespace nestor::profiler {

struct CompareResult {
  bool equal = true;
  std::string difference; // first difference, in words, when !equal
};

// format: "text" | "f32" | "f64" | "bytes" (see CheckSpec). With both
// tolerances 0 every format is an exact comparison. A value matches when
// |a - b| <= abs_tol + rel_tol * |baseline|; NaN matches only NaN.
CompareResult compare_outputs(const std::string& baseline, const std::string& candidate, const std::string& format,
                              double abs_tolerance, double rel_tolerance);

// True when the text contains a CUDA runtime/driver error report.
bool contains_cuda_error(const std::string& text, std::string* matched = nullptr);

} // namespace nestor::profiler
