// nestor-gpu-probe [-o FILE] [--device N]: measures the figures the static
// mapping model's cost model uses (docs/mapping.md, "Estimated time") on this
// machine's GPU and writes them as JSON, so that a project's estimates use
// its own GPU instead of a preset (`.nestor.yaml` mapping.gpu_params, or the
// default path .nestor/gpu-params.json beside .nestor.yaml).
//
// What it measures, each the median of several timed repetitions (CUDA
// events) after a warm-up:
//   bandwidth_gbs     a copy kernel over 2 x 1 GiB, bytes read + written per second
//   kernel_us         one more kernel in a sequence: dependent launches of an
//                     empty kernel, per launch
//   device_launch_us  one device-side launch: a parent grid whose every
//                     thread launches a one-warp child, minus the same parent
//                     without launches, per launch
//   device_launch_latency_us  what a grid waits for its first device launch:
//                     a 16k-thread parent whose one thread launches a
//                     1024-thread child, minus the same parent with the
//                     launch untaken
//   latency_us        a global load under load: four warps per SM, every
//                     thread chasing its own random pointer chain through 256 MiB
// and reads sms, threads_per_sm, registers_per_sm, shared_per_block and
// clock_ghz from the device's attributes. Links nlohmann/json, never LLVM.
#include <cuda_runtime.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

namespace {

constexpr int kExitOk = 0, kExitError = 1, kExitUsage = 2, kExitNoDevice = 3;

struct CudaFailure {
  std::string what;
};

void check(cudaError_t e, const char *what) {
  if (e != cudaSuccess) throw CudaFailure{std::string(what) + ": " + cudaGetErrorString(e)};
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// Times `body` (which enqueues work on the default stream) with events:
// one warm-up, then `reps` timed runs; the median in microseconds.
template <class F> double timeUs(F body, int reps) {
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  body();
  check(cudaDeviceSynchronize(), "warm-up");
  std::vector<double> us;
  for (int r = 0; r < reps; ++r) {
    check(cudaEventRecord(start), "cudaEventRecord");
    body();
    check(cudaEventRecord(stop), "cudaEventRecord");
    check(cudaEventSynchronize(stop), "timed run");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    us.push_back(ms * 1000.0);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return median(us);
}

__global__ void copyKernel(const float4 *__restrict__ in, float4 *__restrict__ out, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    out[i] = in[i];
}

__global__ void emptyKernel() {}

__global__ void childKernel(int *sink) {
  if (threadIdx.x == 0 && sink) atomicAdd(sink, 1);
}

// Every thread launches one child (launch = 1), or does the same work
// without launching (launch = 0): the difference is the launches' cost.
__global__ void parentKernel(int *sink, int launch) {
  if (launch) childKernel<<<1, 32>>>(sink);
  else if (sink && threadIdx.x == 0) atomicAdd(sink, 0);
}

// One thread of the grid launches a 1024-thread child (launch = 1) or does
// not (launch = 0; the launch code is there either way): the difference is
// the latency a grid that launches at all waits for its child.
__global__ void oneLaunchKernel(int *sink, int launch) {
  if (blockIdx.x == 0 && threadIdx.x == 0 && launch) childKernel<<<1, 1024>>>(sink);
  else if (sink && threadIdx.x == 0) atomicAdd(sink, 0);
}

// A single random-looking cycle through `mask + 1` entries (a full-period
// linear congruential step: c odd, a - 1 a multiple of 4), so no chain
// falls into a short loop and no prefetcher follows it.
__global__ void chainKernel(unsigned *next, unsigned mask) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i <= mask; i += gridDim.x * blockDim.x)
    next[i] = (i * 1664525u + 1013904223u) & mask;
}

__global__ void chaseKernel(const unsigned *__restrict__ next, unsigned mask, unsigned steps, unsigned *out) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned p = (t * 2654435761u) & mask;
  for (unsigned s = 0; s < steps; ++s) p = next[p];
  out[t] = p;
}

struct Figures {
  nlohmann::json params, detail;
};

Figures probe(int device) {
  Figures f;
  check(cudaSetDevice(device), "cudaSetDevice");
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
  auto attr = [&](cudaDeviceAttr a, const char *what) {
    int v = 0;
    check(cudaDeviceGetAttribute(&v, a, device), what);
    return v;
  };
  const int sms = attr(cudaDevAttrMultiProcessorCount, "SM count");
  const int threadsPerSm = attr(cudaDevAttrMaxThreadsPerMultiProcessor, "threads per SM");
  const int registersPerSm = attr(cudaDevAttrMaxRegistersPerMultiprocessor, "registers per SM");
  const int sharedPerBlock = attr(cudaDevAttrMaxSharedMemoryPerBlock, "shared memory per block");
  const int clockKhz = attr(cudaDevAttrClockRate, "clock rate");
  int driver = 0, runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);

  // Copy bandwidth: 1 GiB read and 1 GiB written per pass.
  const size_t bytes = size_t(1) << 30, n4 = bytes / sizeof(float4);
  float4 *src = nullptr, *dst = nullptr;
  check(cudaMalloc(&src, bytes), "cudaMalloc (1 GiB)");
  check(cudaMalloc(&dst, bytes), "cudaMalloc (1 GiB)");
  check(cudaMemset(src, 1, bytes), "cudaMemset");
  const int copyBlocks = sms * (threadsPerSm / 256);
  const double copyUs = timeUs([&] { copyKernel<<<copyBlocks, 256>>>(src, dst, n4); }, 9);
  check(cudaGetLastError(), "copy kernel");
  const double bandwidthGBs = 2.0 * bytes / (copyUs * 1e3);
  check(cudaFree(dst), "cudaFree");
  check(cudaFree(src), "cudaFree");

  // One more kernel: 1000 dependent empty kernels on one stream.
  const int chain = 1000;
  const double chainUs = timeUs([&] { for (int i = 0; i < chain; ++i) emptyKernel<<<1, 32>>>(); }, 7);
  check(cudaGetLastError(), "empty kernels");
  const double kernelUs = chainUs / chain;

  // Device-side launches: P parent threads, each launching a one-warp child.
  int *sink = nullptr;
  check(cudaMalloc(&sink, sizeof(int)), "cudaMalloc");
  check(cudaMemset(sink, 0, sizeof(int)), "cudaMemset");
  nlohmann::json launchDetail = nlohmann::json::array();
  std::vector<double> perLaunch;
  for (int parents : {2048, 8192, 32768}) {
    check(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, parents + 1024), "pending launch limit");
    const int block = 64, grid = parents / block;
    const double with = timeUs([&] { parentKernel<<<grid, block>>>(sink, 1); }, 5);
    check(cudaGetLastError(), "parent kernel with launches");
    const double without = timeUs([&] { parentKernel<<<grid, block>>>(sink, 0); }, 5);
    check(cudaGetLastError(), "parent kernel without launches");
    const double each = std::max(0.0, with - without) / parents;
    perLaunch.push_back(each);
    launchDetail.push_back({{"launches", parents}, {"with_us", with}, {"without_us", without}, {"per_launch_us", each}});
  }
  const double oneWith = timeUs([&] { oneLaunchKernel<<<128, 128>>>(sink, 1); }, 9);
  check(cudaGetLastError(), "parent kernel with one launch");
  const double oneWithout = timeUs([&] { oneLaunchKernel<<<128, 128>>>(sink, 0); }, 9);
  check(cudaGetLastError(), "parent kernel with the launch untaken");
  const double deviceLaunchLatencyUs = std::max(0.0, oneWith - oneWithout);
  check(cudaFree(sink), "cudaFree");
  const double deviceLaunchUs = median(perLaunch);

  // Latency under load: four warps per SM, each thread chasing its own
  // chain through 256 MiB (4x an H100's or H200's L2): every step a DRAM
  // load, some 17,000 of them in flight on a 132-SM GPU, far below the
  // bandwidth (so the time is the loads' latency, not their bytes).
  const unsigned mask = (1u << 26) - 1;
  unsigned *dNext = nullptr, *dOut = nullptr;
  check(cudaMalloc(&dNext, (size_t(mask) + 1) * sizeof(unsigned)), "cudaMalloc (256 MiB)");
  chainKernel<<<sms * 8, 256>>>(dNext, mask);
  check(cudaGetLastError(), "chain kernel");
  const int chaseBlock = 128, chaseThreads = sms * chaseBlock;
  check(cudaMalloc(&dOut, size_t(chaseThreads) * sizeof(unsigned)), "cudaMalloc");
  const unsigned steps = 2048;
  const double chaseUs = timeUs([&] { chaseKernel<<<sms, chaseBlock>>>(dNext, mask, steps, dOut); }, 5);
  check(cudaGetLastError(), "pointer chase");
  const double latencyUs = chaseUs / steps;
  check(cudaFree(dOut), "cudaFree");
  check(cudaFree(dNext), "cudaFree");

  char date[32];
  std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  f.params = {{"name", prop.name},
              {"sms", sms},
              {"threads_per_sm", threadsPerSm},
              {"registers_per_sm", registersPerSm},
              {"shared_per_block", sharedPerBlock},
              {"clock_ghz", clockKhz / 1e6},
              {"bandwidth_gbs", bandwidthGBs},
              {"kernel_us", kernelUs},
              {"device_launch_us", deviceLaunchUs},
              {"device_launch_latency_us", deviceLaunchLatencyUs},
              {"latency_us", latencyUs}};
  f.detail = {{"measured", date},
              {"driver_version", driver},
              {"runtime_version", runtime},
              {"copy", {{"bytes_read_and_written", 2.0 * bytes}, {"us", copyUs}}},
              {"kernel_chain", {{"kernels", chain}, {"us", chainUs}}},
              {"device_launches", launchDetail},
              {"device_launch_latency", {{"threads", 128 * 128}, {"with_us", oneWith}, {"without_us", oneWithout}}},
              {"pointer_chase", {{"threads", chaseThreads}, {"steps", steps}, {"us", chaseUs}}}};
  return f;
}

void usage(std::FILE *to) {
  std::fprintf(to, "usage: nestor-gpu-probe [-o FILE] [--device N]\n"
                   "  measures the GPU figures of the mapping model's cost model and writes them as JSON\n"
                   "  (stdout without -o); .nestor.yaml mapping.gpu_params names the file, or put it at\n"
                   "  .nestor/gpu-params.json beside .nestor.yaml (docs/mapping.md)\n"
                   "exit codes: 0 written, 1 error, 2 bad usage, 3 no CUDA device\n");
}

} // namespace

int main(int argc, char **argv) {
  std::string output;
  int device = 0;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      usage(stdout);
      return kExitOk;
    }
    if ((arg == "-o" || arg == "--device") && i + 1 >= argc) {
      std::fprintf(stderr, "nestor-gpu-probe: %s needs a value\n", arg.c_str());
      return kExitUsage;
    }
    if (arg == "-o") output = argv[++i];
    else if (arg == "--device") {
      char *end = nullptr;
      long d = std::strtol(argv[++i], &end, 10);
      if (*end || d < 0 || d > 1024) {
        std::fprintf(stderr, "nestor-gpu-probe: --device needs a device number, got '%s'\n", argv[i]);
        return kExitUsage;
      }
      device = int(d);
    } else {
      std::fprintf(stderr, "nestor-gpu-probe: unknown argument '%s'\n", arg.c_str());
      usage(stderr);
      return kExitUsage;
    }
  }
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::fprintf(stderr, "nestor-gpu-probe: no CUDA device\n");
    return kExitNoDevice;
  }
  if (device >= count) {
    std::fprintf(stderr, "nestor-gpu-probe: no device %d (%d present)\n", device, count);
    return kExitUsage;
  }
  Figures f;
  try {
    f = probe(device);
  } catch (const CudaFailure &e) {
    std::fprintf(stderr, "nestor-gpu-probe: %s\n", e.what.c_str());
    return kExitError;
  }
  // Figures a cost model cannot use (a failed or meaningless measurement)
  // are an error, never a file.
  for (const char *key : {"bandwidth_gbs", "kernel_us", "device_launch_us", "device_launch_latency_us", "latency_us",
                          "clock_ghz"})
    if (!(f.params[key].get<double>() > 0)) {
      std::fprintf(stderr, "nestor-gpu-probe: measured %s = %g, not a usable figure\n", key,
                   f.params[key].get<double>());
      return kExitError;
    }
  nlohmann::json out = {{"schema", "nestor-gpu-params"}, {"version", 1}};
  out.update(f.params);
  out["probe"] = f.detail;
  if (output.empty()) {
    std::cout << out.dump(2) << "\n";
    return kExitOk;
  }
  std::ofstream file(output);
  file << out.dump(2) << "\n";
  if (!file) {
    std::fprintf(stderr, "nestor-gpu-probe: cannot write %s\n", output.c_str());
    return kExitError;
  }
  return kExitOk;
}
