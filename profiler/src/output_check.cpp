#include "nestor/profiler/output_check.h"

#include <cmath>
#include <cstring>
#include <regex>
#include <vector>

namespace nestor::profiler {
namespace {

bool values_match(double baseline, double candidate, double abs_tol, double rel_tol) {
  if (std::isnan(baseline) || std::isnan(candidate)) return std::isnan(baseline) && std::isnan(candidate);
  if (baseline == candidate) return true; // also equal infinities
  return std::fabs(baseline - candidate) <= abs_tol + rel_tol * std::fabs(baseline);
}

std::vector<std::string> tokens(const std::string& text) {
  std::vector<std::string> out;
  std::string current;
  for (char c : text) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',' || c == ';') {
      if (!current.empty()) out.push_back(std::move(current));
      current.clear();
    } else {
      current += c;
    }
  }
  if (!current.empty()) out.push_back(current);
  return out;
}

bool parse_number(const std::string& token, double& value) {
  const char* begin = token.c_str();
  char* end = nullptr;
  value = std::strtod(begin, &end);
  return end != begin && *end == '\0';
}

template <typename T>
CompareResult compare_binary(const std::string& a, const std::string& b, double abs_tol, double rel_tol, const char* type) {
  if (a.size() % sizeof(T) || b.size() % sizeof(T))
    return {false, std::string("size is not a multiple of sizeof(") + type + ")"};
  if (a.size() != b.size())
    return {false, "length differs: " + std::to_string(b.size() / sizeof(T)) + " vs baseline " +
                       std::to_string(a.size() / sizeof(T)) + " " + type + " values"};
  for (size_t i = 0; i < a.size() / sizeof(T); ++i) {
    T x, y;
    std::memcpy(&x, a.data() + i * sizeof(T), sizeof(T));
    std::memcpy(&y, b.data() + i * sizeof(T), sizeof(T));
    if (!values_match(x, y, abs_tol, rel_tol))
      return {false, std::string(type) + " value " + std::to_string(i) + " is " + std::to_string(y) + ", baseline " +
                         std::to_string(x)};
  }
  return {};
}

} // namespace

CompareResult compare_outputs(const std::string& baseline, const std::string& candidate, const std::string& format,
                              double abs_tol, double rel_tol) {
  bool exact = abs_tol == 0 && rel_tol == 0;
  if (format == "bytes" || (exact && format != "text")) {
    if (baseline == candidate) return {};
    size_t i = 0;
    while (i < baseline.size() && i < candidate.size() && baseline[i] == candidate[i]) ++i;
    return {false, "bytes differ from offset " + std::to_string(i) + " (sizes " + std::to_string(candidate.size()) +
                       " vs baseline " + std::to_string(baseline.size()) + ")"};
  }
  if (format == "f32") return compare_binary<float>(baseline, candidate, abs_tol, rel_tol, "f32");
  if (format == "f64") return compare_binary<double>(baseline, candidate, abs_tol, rel_tol, "f64");
  if (format != "text") return {false, "unknown output format '" + format + "'"};

  std::vector<std::string> a = tokens(baseline), b = tokens(candidate);
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    if (a[i] == b[i]) continue;
    double x, y;
    if (parse_number(a[i], x) && parse_number(b[i], y)) {
      if (values_match(x, y, abs_tol, rel_tol)) continue;
      return {false, "value " + std::to_string(i) + " is " + b[i] + ", baseline " + a[i] +
                         (exact ? " (exact comparison)" : " (beyond the tolerance)")};
    }
    return {false, "token " + std::to_string(i) + " is '" + b[i] + "', baseline '" + a[i] + "'"};
  }
  if (a.size() != b.size())
    return {false, "output has " + std::to_string(b.size()) + " tokens, baseline " + std::to_string(a.size())};
  return {};
}

bool contains_cuda_error(const std::string& text, std::string* matched) {
  // Messages of cudaGetErrorName/String and of the usual check macros.
  static const std::regex pattern(
      R"((CUDA error|CUDA Error|cuda error|cudaError[A-Z]\w+|CUDA_ERROR_\w+|an illegal memory access|unspecified launch failure|device-side assert triggered|misaligned address|too many resources requested for launch))");
  std::smatch m;
  if (!std::regex_search(text, m, pattern)) return false;
  if (matched) {
    size_t begin = text.rfind('\n', m.position(0));
    begin = begin == std::string::npos ? 0 : begin + 1;
    size_t end = text.find('\n', m.position(0));
    *matched = text.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
  }
  return true;
}

} // namespace nestor::profiler
