// libnestor_cupti.so: loaded into the user's unmodified program through
// CUDA_INJECTION64_PATH (the driver calls InitializeInjection at cuInit).
//
// Timing runs: the CUPTI Activity API records every kernel and the records are
// written as JSON at exit to $NESTOR_CUPTI_OUT (default nestor-cupti.json).
// CONCURRENT_KERNEL records of a dynamic-parallelism parent do not cover its
// children (measured on H100, CUDA 13.0: 0.29 ms of a real 3.2 ms) and
// CDP_KERNEL is not supported, so NESTOR_CUPTI_SERIALIZE=1 switches to
// CUPTI_ACTIVITY_KIND_KERNEL, whose serialised records include the children.
// The kind used is written into the JSON.
//
// Metrics runs ($NESTOR_CUPTI_METRICS=m1,m2,...): the range profiler collects
// the metrics per kernel (auto range, kernel replay) instead; these runs are
// separate from timing runs because replay changes the timings.
#include "nestor/profiler/metrics_config.h"

#include <cuda.h>
#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cxxabi.h>
#include <fstream>
#include <mutex>
#include <string>
#include <unistd.h>
#include <vector>

namespace {
using nlohmann::json;
using namespace nestor::profiler;

constexpr size_t kActivityBufferSize = 8 * 1024 * 1024;
constexpr size_t kMaxRanges = 2048;

struct KernelRecord {
  std::string mangled;
  uint32_t device, context, stream, correlation;
  int32_t grid[3], block[3];
  uint16_t registers;
  int32_t static_shared, dynamic_shared;
  uint64_t start, end;
  uint8_t device_launched;
  uint64_t graph_node;
};

struct RangeProfilerState {
  CUcontext context = nullptr;
  CUpti_RangeProfiler_Object* object = nullptr;
  MetricsConfigImage config;
  std::vector<uint8_t> counter_data;
  bool stopped = false;
};

struct State {
  std::mutex mutex;
  std::string out_path = "nestor-cupti.json";
  bool serialize = false;
  const char* activity_kind = "CONCURRENT_KERNEL";
  std::vector<KernelRecord> kernels;
  uint64_t dropped = 0;
  std::vector<std::string> errors;
  std::vector<std::string> metrics;            // requested; empty for timing runs
  std::vector<RangeProfilerState> profilers;   // one per context
  json metric_results = nullptr;
  std::string metrics_error;
  bool written = false;
  CUpti_SubscriberHandle subscriber = nullptr;
};

State& state() {
  static State* s = new State; // never destroyed: used from atexit and driver callbacks
  return *s;
}

std::string cupti_error(CUptiResult r) {
  const char* text = nullptr;
  cuptiGetResultString(r, &text);
  return text ? text : ("CUPTI error " + std::to_string(r));
}

#define NESTOR_CUPTI_TRY(call, what)                                                   \
  do {                                                                                 \
    CUptiResult nestor_r_ = (call);                                                    \
    if (nestor_r_ != CUPTI_SUCCESS) throw std::runtime_error(std::string(what) + ": " + cupti_error(nestor_r_)); \
  } while (0)

std::string demangle(const std::string& name) {
  int status = 0;
  char* text = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
  if (status != 0 || !text) return name;
  std::string out(text);
  std::free(text);
  return out;
}

// ---- Activity API -------------------------------------------------------

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(aligned_alloc(8, kActivityBufferSize));
  *size = *buffer ? kActivityBufferSize : 0;
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext context, uint32_t stream, uint8_t* buffer, size_t, size_t valid_size) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid_size, &record) == CUPTI_SUCCESS) {
    if (record->kind != CUPTI_ACTIVITY_KIND_KERNEL && record->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) continue;
    auto* k = reinterpret_cast<CUpti_ActivityKernel10*>(record);
    s.kernels.push_back({k->name ? k->name : "?", k->deviceId, k->contextId, k->streamId, k->correlationId,
                         {k->gridX, k->gridY, k->gridZ}, {k->blockX, k->blockY, k->blockZ}, k->registersPerThread,
                         k->staticSharedMemory, k->dynamicSharedMemory, k->start, k->end, k->isDeviceLaunched,
                         k->graphNodeId});
  }
  size_t dropped = 0;
  if (cuptiActivityGetNumDroppedRecords(context, stream, &dropped) == CUPTI_SUCCESS) s.dropped += dropped;
  free(buffer);
}

// ---- Range profiler (metrics runs) -------------------------------------

std::vector<uint8_t> counter_availability(CUcontext context) {
  CUpti_Profiler_GetCounterAvailability_Params params{CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE};
  params.ctx = context;
  std::vector<uint8_t> image;
  if (cuptiProfilerGetCounterAvailability(&params) != CUPTI_SUCCESS) return image;
  image.resize(params.counterAvailabilityImageSize);
  params.pCounterAvailabilityImage = image.data();
  if (cuptiProfilerGetCounterAvailability(&params) != CUPTI_SUCCESS) image.clear();
  return image;
}

void start_range_profiler(CUcontext context) {
  State& s = state();
  RangeProfilerState rp;
  rp.context = context;
  CUdevice device = 0;
  cuCtxPushCurrent(context);
  cuCtxGetDevice(&device);
  cuCtxPopCurrent(nullptr);

  CUpti_Profiler_Initialize_Params init{CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
  NESTOR_CUPTI_TRY(cuptiProfilerInitialize(&init), "cuptiProfilerInitialize");
  CUpti_Device_GetChipName_Params chip{CUpti_Device_GetChipName_Params_STRUCT_SIZE};
  chip.deviceIndex = static_cast<size_t>(device);
  NESTOR_CUPTI_TRY(cuptiDeviceGetChipName(&chip), "cuptiDeviceGetChipName");
  rp.config = build_metrics_config(chip.pChipName, s.metrics, counter_availability(context));

  CUpti_RangeProfiler_Enable_Params enable{CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
  enable.ctx = context;
  NESTOR_CUPTI_TRY(cuptiRangeProfilerEnable(&enable), "cuptiRangeProfilerEnable");
  rp.object = enable.pRangeProfilerObject;

  std::vector<const char*> names;
  for (auto& m : s.metrics) names.push_back(m.c_str());
  CUpti_RangeProfiler_GetCounterDataSize_Params size{CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
  size.pRangeProfilerObject = rp.object;
  size.pMetricNames = names.data();
  size.numMetrics = names.size();
  size.maxNumOfRanges = kMaxRanges;
  size.maxNumRangeTreeNodes = kMaxRanges;
  NESTOR_CUPTI_TRY(cuptiRangeProfilerGetCounterDataSize(&size), "cuptiRangeProfilerGetCounterDataSize");
  rp.counter_data.resize(size.counterDataSize);
  CUpti_RangeProfiler_CounterDataImage_Initialize_Params image{CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
  image.pRangeProfilerObject = rp.object;
  image.counterDataSize = rp.counter_data.size();
  image.pCounterData = rp.counter_data.data();
  NESTOR_CUPTI_TRY(cuptiRangeProfilerCounterDataImageInitialize(&image), "cuptiRangeProfilerCounterDataImageInitialize");

  CUpti_RangeProfiler_SetConfig_Params config{CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE};
  config.pRangeProfilerObject = rp.object;
  config.configSize = rp.config.image.size();
  config.pConfig = rp.config.image.data();
  config.counterDataImageSize = rp.counter_data.size();
  config.pCounterDataImage = rp.counter_data.data();
  config.range = CUPTI_AutoRange;       // one range per kernel launch
  config.replayMode = CUPTI_KernelReplay; // CUPTI replays each kernel for every pass itself
  config.maxRangesPerPass = kMaxRanges;
  config.numNestingLevels = 1;
  config.minNestingLevel = 1;
  config.passIndex = 0;
  config.targetNestingLevel = 0;
  NESTOR_CUPTI_TRY(cuptiRangeProfilerSetConfig(&config), "cuptiRangeProfilerSetConfig");
  CUpti_RangeProfiler_Start_Params start{CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
  start.pRangeProfilerObject = rp.object;
  NESTOR_CUPTI_TRY(cuptiRangeProfilerStart(&start), "cuptiRangeProfilerStart");
  s.profilers.push_back(std::move(rp));
}

// Stops one context's profiler and evaluates every range (kernel) it recorded.
void finish_range_profiler(RangeProfilerState& rp) {
  State& s = state();
  if (rp.stopped) return;
  rp.stopped = true;
  CUpti_RangeProfiler_Stop_Params stop{CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
  stop.pRangeProfilerObject = rp.object;
  NESTOR_CUPTI_TRY(cuptiRangeProfilerStop(&stop), "cuptiRangeProfilerStop");
  CUpti_RangeProfiler_DecodeData_Params decode{CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
  decode.pRangeProfilerObject = rp.object;
  NESTOR_CUPTI_TRY(cuptiRangeProfilerDecodeData(&decode), "cuptiRangeProfilerDecodeData");
  CUpti_RangeProfiler_GetCounterDataInfo_Params info{CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE};
  info.pCounterDataImage = rp.counter_data.data();
  info.counterDataImageSize = rp.counter_data.size();
  NESTOR_CUPTI_TRY(cuptiRangeProfilerGetCounterDataInfo(&info), "cuptiRangeProfilerGetCounterDataInfo");

  CUpti_Profiler_Host_Initialize_Params host_init{CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
  host_init.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
  host_init.pChipName = rp.config.chip.c_str();
  NESTOR_CUPTI_TRY(cuptiProfilerHostInitialize(&host_init), "cuptiProfilerHostInitialize");
  std::vector<const char*> names;
  for (auto& m : s.metrics) names.push_back(m.c_str());

  json& out = s.metric_results;
  if (out.is_null()) out = {{"chip", rp.config.chip}, {"passes", rp.config.passes}, {"ranges", json::array()}};
  out["ranges_dropped"] = out.value("ranges_dropped", 0) + decode.numOfRangeDropped;
  std::string failure;
  for (size_t range = 0; range < info.numTotalRanges; ++range) {
    CUpti_RangeProfiler_CounterData_GetRangeInfo_Params range_info{CUpti_RangeProfiler_CounterData_GetRangeInfo_Params_STRUCT_SIZE};
    range_info.pCounterDataImage = rp.counter_data.data();
    range_info.counterDataImageSize = rp.counter_data.size();
    range_info.rangeIndex = range;
    range_info.rangeDelimiter = "/";
    std::string name = cuptiRangeProfilerCounterDataGetRangeInfo(&range_info) == CUPTI_SUCCESS && range_info.rangeName
                           ? range_info.rangeName : std::to_string(range);
    std::vector<double> values(names.size());
    CUpti_Profiler_Host_EvaluateToGpuValues_Params eval{CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
    eval.pHostObject = host_init.pHostObject;
    eval.pCounterDataImage = rp.counter_data.data();
    eval.counterDataImageSize = rp.counter_data.size();
    eval.rangeIndex = range;
    eval.ppMetricNames = names.data();
    eval.numMetrics = names.size();
    eval.pMetricValues = values.data();
    if (CUptiResult r = cuptiProfilerHostEvaluateToGpuValues(&eval); r != CUPTI_SUCCESS) {
      failure = "cuptiProfilerHostEvaluateToGpuValues: " + cupti_error(r);
      break;
    }
    json metric_values = json::object();
    for (size_t i = 0; i < names.size(); ++i) metric_values[names[i]] = values[i];
    out["ranges"].push_back({{"name", demangle(name)}, {"values", metric_values}});
  }
  CUpti_Profiler_Host_Deinitialize_Params host_deinit{CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE};
  host_deinit.pHostObject = host_init.pHostObject;
  cuptiProfilerHostDeinitialize(&host_deinit);
  CUpti_RangeProfiler_Disable_Params disable{CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
  disable.pRangeProfilerObject = rp.object;
  cuptiRangeProfilerDisable(&disable);
  if (!failure.empty()) throw std::runtime_error(failure);
}

// Totals over all kernels: gpu__time_duration.sum adds up; the other metrics
// are averaged weighted by each kernel's duration when it was collected.
void aggregate_metrics() {
  State& s = state();
  json& out = s.metric_results;
  if (!out.is_object()) return;
  const std::string duration = "gpu__time_duration.sum";
  json totals = json::object();
  for (auto& metric : s.metrics) {
    double sum = 0, weight = 0;
    for (auto& range : out["ranges"]) {
      double value = range["values"].value(metric, 0.0);
      double w = range["values"].contains(duration) ? range["values"][duration].get<double>() : 1.0;
      if (metric == duration || metric.ends_with(".sum")) sum += value, weight = 1;
      else sum += value * w, weight += w;
    }
    totals[metric] = weight > 0 ? (metric.ends_with(".sum") ? sum : sum / weight) : 0.0;
  }
  const std::string ratio = "smsp__average_thread_inst_executed_per_inst_executed.ratio";
  if (totals.contains(ratio)) totals["warp_execution_efficiency"] = totals[ratio].get<double>() / 32.0;
  out["aggregate"] = totals;
}

// ---- Callbacks and exit ------------------------------------------------

void CUPTIAPI on_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId id, const void* data) {
  if (domain != CUPTI_CB_DOMAIN_RESOURCE) return;
  auto* resource = static_cast<const CUpti_ResourceData*>(data);
  State& s = state();
  if (id == CUPTI_CBID_RESOURCE_CONTEXT_CREATED && !s.metrics.empty()) {
    std::lock_guard lock(s.mutex);
    try {
      start_range_profiler(resource->context);
    } catch (const std::exception& e) {
      s.metrics_error = e.what();
    }
  } else if (id == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) {
    // cudaDeviceReset and context teardown: collect before the context is gone.
    cuptiActivityFlushAll(1);
    std::lock_guard lock(s.mutex);
    for (auto& rp : s.profilers)
      if (rp.context == resource->context) try {
          finish_range_profiler(rp);
        } catch (const std::exception& e) {
          s.metrics_error = e.what();
        }
  }
}

void write_output() {
  State& s = state();
  cuptiActivityFlushAll(1);
  std::lock_guard lock(s.mutex);
  if (s.written) return;
  s.written = true;
  for (auto& rp : s.profilers) try {
      finish_range_profiler(rp);
    } catch (const std::exception& e) {
      s.metrics_error = e.what();
    }
  aggregate_metrics();
  json kernels = json::array();
  for (auto& k : s.kernels)
    kernels.push_back({{"name", demangle(k.mangled)}, {"mangled_name", k.mangled}, {"device", k.device},
                       {"context", k.context}, {"stream", k.stream}, {"correlation_id", k.correlation},
                       {"grid", {k.grid[0], k.grid[1], k.grid[2]}}, {"block", {k.block[0], k.block[1], k.block[2]}},
                       {"registers_per_thread", k.registers}, {"static_shared_bytes", k.static_shared},
                       {"dynamic_shared_bytes", k.dynamic_shared}, {"start_ns", k.start}, {"end_ns", k.end},
                       {"duration_ns", k.end > k.start ? k.end - k.start : 0}, {"device_launched", k.device_launched != 0},
                       {"graph_node_id", k.graph_node}});
  json doc = {
      {"tool", "nestor_cupti"},
      {"format_version", 1},
      {"pid", getpid()},
      {"mode", s.metrics.empty() ? "timing" : "metrics"},
      {"activity_kind", s.metrics.empty() ? s.activity_kind : "NONE"},
      {"activity_kind_note", s.serialize ? "KERNEL records are serialised; a CDP parent's time includes its children"
                                         : "CONCURRENT_KERNEL records; device-launched (CDP) children are not included"},
      {"kernels", kernels},
      {"dropped_records", s.dropped},
      {"errors", s.errors},
      {"metrics_requested", s.metrics},
      {"metrics", s.metric_results},
      {"metrics_error", s.metrics_error.empty() ? json(nullptr) : json(s.metrics_error)},
  };
  std::ofstream out(s.out_path);
  if (!out) {
    std::fprintf(stderr, "nestor_cupti: cannot write %s\n", s.out_path.c_str());
    return;
  }
  out << doc.dump(2) << '\n';
}

} // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  State& s = state();
  if (const char* out = std::getenv("NESTOR_CUPTI_OUT"); out && *out) s.out_path = out;
  if (const char* ser = std::getenv("NESTOR_CUPTI_SERIALIZE"); ser && std::strcmp(ser, "1") == 0) s.serialize = true;
  if (const char* metrics = std::getenv("NESTOR_CUPTI_METRICS"); metrics && *metrics) s.metrics = split_metric_list(metrics);

  if (CUptiResult r = cuptiSubscribe(&s.subscriber, on_callback, nullptr); r != CUPTI_SUCCESS) {
    s.errors.push_back("cuptiSubscribe: " + cupti_error(r));
  } else {
    cuptiEnableCallback(1, s.subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_CREATED);
    cuptiEnableCallback(1, s.subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING);
  }
  if (s.metrics.empty()) {
    // Timing runs only: kernel replay in metrics runs would distort the records.
    s.activity_kind = s.serialize ? "KERNEL" : "CONCURRENT_KERNEL";
    CUptiResult r = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
    if (r == CUPTI_SUCCESS)
      r = cuptiActivityEnable(s.serialize ? CUPTI_ACTIVITY_KIND_KERNEL : CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    if (r != CUPTI_SUCCESS) s.errors.push_back("enabling kernel activity records: " + cupti_error(r));
  }
  // Registered during cuInit, i.e. after the CUDA runtime's own exit handler,
  // so it runs first, while the context still exists.
  std::atexit(write_output);
  return 1;
}
