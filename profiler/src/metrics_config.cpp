#include "nestor/profiler/metrics_config.h"

#include <cupti.h>
#include <cupti_profiler_host.h>

#include <algorithm>
#include <memory>
#include <sstream>

namespace nestor::profiler {
namespace {

std::string cupti_error_text(CUptiResult result) {
  const char* text = nullptr;
  if (cuptiGetResultString(result, &text) != CUPTI_SUCCESS || text == nullptr) return "CUPTI error " + std::to_string(result);
  return text;
}

// Owns a CUPTI host object so every early error path deinitialises it.
struct HostObject {
  CUpti_Profiler_Host_Object* object = nullptr;
  HostObject(const std::string& chip, const std::vector<uint8_t>& availability) {
    CUpti_Profiler_Host_Initialize_Params params{CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
    params.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    params.pChipName = chip.c_str();
    params.pCounterAvailabilityImage = availability.empty() ? nullptr : availability.data();
    CUptiResult result = cuptiProfilerHostInitialize(&params);
    if (result != CUPTI_SUCCESS || params.pHostObject == nullptr)
      throw MetricsConfigError("CUPTI cannot build range-profiler configurations for chip '" + chip +
                               "': " + cupti_error_text(result));
    object = params.pHostObject;
  }
  ~HostObject() {
    CUpti_Profiler_Host_Deinitialize_Params params{CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE};
    params.pHostObject = object;
    cuptiProfilerHostDeinitialize(&params);
  }
  HostObject(const HostObject&) = delete;
  HostObject& operator=(const HostObject&) = delete;
};

// CUPTI reports only "invalid metric" for a whole list; probing each metric
// alone lets the error name the one that is wrong.
bool metric_known(HostObject& host, const std::string& metric) {
  CUpti_Profiler_Host_GetMetricProperties_Params params{CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE};
  params.pHostObject = host.object;
  params.pMetricName = metric.c_str();
  return cuptiProfilerHostGetMetricProperties(&params) == CUPTI_SUCCESS;
}

} // namespace

const std::vector<std::string>& default_metrics() {
  static const std::vector<std::string> metrics = {
      "gpu__time_duration.sum",
      "smsp__average_thread_inst_executed_per_inst_executed.ratio",
      "sm__warps_active.avg.pct_of_peak_sustained_active",
      "dram__throughput.avg.pct_of_peak_sustained_elapsed",
  };
  return metrics;
}

std::vector<std::string> split_metric_list(const std::string& list) {
  std::vector<std::string> out;
  std::stringstream stream(list);
  std::string item;
  while (std::getline(stream, item, ',')) {
    item.erase(0, item.find_first_not_of(" \t\n"));
    item.erase(item.find_last_not_of(" \t\n") + 1);
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

std::vector<std::string> supported_chips() {
  CUpti_Profiler_Host_GetSupportedChips_Params params{CUpti_Profiler_Host_GetSupportedChips_Params_STRUCT_SIZE};
  std::vector<std::string> chips;
  if (cuptiProfilerHostGetSupportedChips(&params) != CUPTI_SUCCESS) return chips;
  for (size_t i = 0; i < params.numChips; ++i) chips.emplace_back(params.ppChipNames[i]);
  return chips;
}

MetricsConfigImage build_metrics_config(const std::string& chip, const std::vector<std::string>& metrics,
                                        const std::vector<uint8_t>& counter_availability) {
  if (chip.empty()) throw MetricsConfigError("no chip name given for the range-profiler configuration");
  if (metrics.empty()) throw MetricsConfigError("no metrics requested for the range-profiler configuration");
  HostObject host(chip, counter_availability);

  for (const std::string& metric : metrics)
    if (!metric_known(host, metric))
      throw MetricsConfigError("unknown metric '" + metric + "' for chip " + chip +
                               " (see the CUPTI metric list, e.g. `ncu --query-metrics --chip " + chip + "`)");

  std::vector<const char*> names;
  for (const std::string& metric : metrics) names.push_back(metric.c_str());
  CUpti_Profiler_Host_ConfigAddMetrics_Params add{CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
  add.pHostObject = host.object;
  add.ppMetricNames = names.data();
  add.numMetrics = names.size();
  if (CUptiResult result = cuptiProfilerHostConfigAddMetrics(&add); result != CUPTI_SUCCESS)
    throw MetricsConfigError("CUPTI rejected the metric list for chip " + chip + ": " + cupti_error_text(result));

  CUpti_Profiler_Host_GetConfigImageSize_Params size{CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
  size.pHostObject = host.object;
  if (CUptiResult result = cuptiProfilerHostGetConfigImageSize(&size); result != CUPTI_SUCCESS)
    throw MetricsConfigError("CUPTI could not size the config image: " + cupti_error_text(result));

  MetricsConfigImage config;
  config.chip = chip;
  config.metrics = metrics;
  config.image.resize(size.configImageSize);
  CUpti_Profiler_Host_GetConfigImage_Params get{CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
  get.pHostObject = host.object;
  get.configImageSize = config.image.size();
  get.pConfigImage = config.image.data();
  if (CUptiResult result = cuptiProfilerHostGetConfigImage(&get); result != CUPTI_SUCCESS)
    throw MetricsConfigError("CUPTI could not write the config image: " + cupti_error_text(result));

  CUpti_Profiler_Host_GetNumOfPasses_Params passes{CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE};
  passes.configImageSize = config.image.size();
  passes.pConfigImage = config.image.data();
  if (cuptiProfilerHostGetNumOfPasses(&passes) == CUPTI_SUCCESS) config.passes = passes.numOfPasses;
  return config;
}

} // namespace nestor::profiler
