// Finding the GPUs a plan can run on, without linking the CUDA runtime: the
// driver library is opened at run time, so nestor-runner starts (and says
// clearly that there is no device) on machines without a driver.
#pragma once
#include "nestor/profiler/results.h"

#include <optional>
#include <string>
#include <vector>

namespace nestor::profiler {

struct DeviceInventory {
  std::vector<GpuInfo> gpus;      // index = ordinal to put in CUDA_VISIBLE_DEVICES for that worker
  std::vector<std::string> visible_ids; // the CUDA_VISIBLE_DEVICES entry for each gpu
  std::optional<std::string> driver_version;
  std::optional<int> cuda_driver_api_version;
  bool assumed = false;
  std::string why_none; // filled when gpus is empty
};

// Honours CUDA_VISIBLE_DEVICES (set but empty means no device). The test seam
// NESTOR_RUNNER_ASSUME_DEVICES=N skips detection and pretends N devices
// exist; results are then marked devices_assumed and the runner refuses CUPTI
// timing, so it can only exercise runner logic, never produce GPU figures.
DeviceInventory detect_devices();

// Timings of different GPU models are not comparable, and the runner compares
// every variant with a baseline that may have run on another worker's device:
// keeps only the devices of GPU 0's model and returns a line naming each one
// left out (empty when all are alike).
std::vector<std::string> keep_one_model(DeviceInventory& inv);

// `nvidia-smi --query-gpu=clocks.sm` for one device; nullopt when nvidia-smi
// is absent or prints no number. Never changes clocks.
std::optional<double> query_sm_clock_mhz(const std::string& visible_id);

} // namespace nestor::profiler
