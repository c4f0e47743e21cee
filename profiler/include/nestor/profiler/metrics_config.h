// Range-profiler metric configuration (CUPTI host API, cupti_profiler_host.h).
//
// The config image that tells the range profiler which counters to collect can
// be built for a named chip without any GPU present, so this part is
// unit-testable on CPU-only machines. Collection itself lives in the injection
// library (injection.cpp), which loads the image built here.
#pragma once
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace nestor::profiler {

// Metrics of issue 6, collected together in one replay pass on Hopper.
// Warp execution efficiency is derived as
// smsp__average_thread_inst_executed_per_inst_executed.ratio / 32.
const std::vector<std::string>& default_metrics();

class MetricsConfigError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

struct MetricsConfigImage {
  std::string chip;
  std::vector<std::string> metrics;
  std::vector<uint8_t> image;
  size_t passes = 0; // replay passes the range profiler needs for these metrics
};

// Builds the config image for `metrics` on `chip` (e.g. "GH100"). Throws
// MetricsConfigError naming the offending metric when one is unknown for the
// chip, and naming the chip when CUPTI does not support it.
// `counter_availability` may be empty (host-only build) or the image queried
// from a live context (then CUPTI leaves out unavailable counters).
MetricsConfigImage build_metrics_config(const std::string& chip,
                                        const std::vector<std::string>& metrics,
                                        const std::vector<uint8_t>& counter_availability = {});

// Chips the installed CUPTI host library can build config images for.
std::vector<std::string> supported_chips();

// Splits "a,b, c" into metric names; empty entries are dropped.
std::vector<std::string> split_metric_list(const std::string& list);

} // namespace nestor::profiler
