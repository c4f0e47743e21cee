#include "nestor/profiler/devices.h"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <sstream>
#include <unistd.h>

namespace nestor::profiler {
namespace {

std::optional<std::string> capture(const std::string& command) {
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return std::nullopt;
  std::string out;
  std::array<char, 256> buffer;
  while (fgets(buffer.data(), buffer.size(), pipe)) out += buffer.data();
  if (pclose(pipe) != 0) return std::nullopt;
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

bool have_nvidia_smi() {
  static const bool present = std::system("command -v nvidia-smi >/dev/null 2>&1") == 0;
  return present;
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> out;
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, separator)) {
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

// The few driver API entry points needed, looked up in libcuda.so.1.
struct Driver {
  using InitFn = int (*)(unsigned);
  using CountFn = int (*)(int*);
  using GetFn = int (*)(int*, int);
  using NameFn = int (*)(char*, int, int);
  using VersionFn = int (*)(int*);
  void* handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  ~Driver() {
    if (handle) dlclose(handle);
  }
  template <typename F> F symbol(const char* name) { return handle ? reinterpret_cast<F>(dlsym(handle, name)) : nullptr; }
};

} // namespace

std::vector<std::string> keep_one_model(DeviceInventory& inv) {
  std::vector<std::string> skipped;
  if (inv.gpus.empty()) return skipped;
  const std::string model = inv.gpus[0].name;
  DeviceInventory kept = inv;
  kept.gpus.clear();
  kept.visible_ids.clear();
  for (size_t i = 0; i < inv.gpus.size(); ++i) {
    if (inv.gpus[i].name == model) {
      kept.gpus.push_back(inv.gpus[i]);
      kept.visible_ids.push_back(inv.visible_ids[i]);
    } else {
      skipped.push_back("GPU " + std::to_string(inv.gpus[i].index) + " (" + inv.gpus[i].name + ") is not used: its timings " +
                        "would not compare with GPU " + std::to_string(inv.gpus[0].index) + " (" + model +
                        "); set CUDA_VISIBLE_DEVICES to choose the model");
    }
  }
  inv = std::move(kept);
  return skipped;
}

DeviceInventory detect_devices() {
  DeviceInventory inv;
  if (const char* assume = std::getenv("NESTOR_RUNNER_ASSUME_DEVICES"); assume && *assume) {
    char* end = nullptr;
    long n = std::strtol(assume, &end, 10);
    if (*end == '\0' && n > 0 && n <= 64) {
      inv.assumed = true;
      for (int i = 0; i < n; ++i) {
        inv.gpus.push_back({i, "assumed device (test seam)"}); // one model, as keep_one_model expects
        inv.visible_ids.push_back(std::to_string(i));
      }
      return inv;
    }
    inv.why_none = "NESTOR_RUNNER_ASSUME_DEVICES='" + std::string(assume) + "' is not a device count in 1..64";
    return inv;
  }

  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
  if (visible && split(visible, ',').empty()) {
    inv.why_none = "CUDA_VISIBLE_DEVICES is set but empty, so no CUDA device is visible";
    return inv;
  }

  Driver driver;
  if (!driver.handle) {
    inv.why_none = "no CUDA driver (libcuda.so.1 cannot be loaded)";
    return inv;
  }
  auto cu_init = driver.symbol<Driver::InitFn>("cuInit");
  auto cu_count = driver.symbol<Driver::CountFn>("cuDeviceGetCount");
  auto cu_get = driver.symbol<Driver::GetFn>("cuDeviceGet");
  auto cu_name = driver.symbol<Driver::NameFn>("cuDeviceGetName");
  auto cu_version = driver.symbol<Driver::VersionFn>("cuDriverGetVersion");
  int count = 0;
  if (!cu_init || !cu_count || int(cu_init(0)) != 0 || cu_count(&count) != 0 || count == 0) {
    inv.why_none = "the CUDA driver reports no usable device";
    return inv;
  }
  if (int version = 0; cu_version && cu_version(&version) == 0) inv.cuda_driver_api_version = version;
  // Ordinals inside this process follow CUDA_VISIBLE_DEVICES; each worker
  // gets the matching entry of that list (or the plain ordinal when unset).
  std::vector<std::string> ids = visible ? split(visible, ',') : std::vector<std::string>{};
  for (int i = 0; i < count; ++i) {
    char name[256] = "unknown GPU";
    int device = 0;
    if (cu_get && cu_name && cu_get(&device, i) == 0) cu_name(name, sizeof name, device);
    inv.gpus.push_back({i, name});
    inv.visible_ids.push_back(i < static_cast<int>(ids.size()) ? ids[i] : std::to_string(i));
  }
  if (have_nvidia_smi())
    if (auto v = capture("nvidia-smi --query-gpu=driver_version --format=csv,noheader -i " + inv.visible_ids[0] + " 2>/dev/null"))
      inv.driver_version = *v;
  return inv;
}

std::optional<double> query_sm_clock_mhz(const std::string& visible_id) {
  if (!have_nvidia_smi()) return std::nullopt;
  auto out = capture("nvidia-smi --query-gpu=clocks.sm --format=csv,noheader,nounits -i " + visible_id + " 2>/dev/null");
  if (!out) return std::nullopt;
  char* end = nullptr;
  double mhz = std::strtod(out->c_str(), &end);
  if (end == out->c_str()) return std::nullopt;
  return mhz;
}

} // namespace nestor::profiler
