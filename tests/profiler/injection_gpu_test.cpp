// GPU test: libnestor_cupti.so injected into an unmodified program with host
// and device (CDP) launches (examples/profile/cdp_tree).
//   args: PROGRAM LIBRARY OUTDIR
#include <nestor/gpu_test.cuh>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

using nlohmann::json;
namespace fs = std::filesystem;

static int failures = 0;
#define EXPECT(cond, ...)                                  \
  do {                                                     \
    if (!(cond)) {                                         \
      std::printf("FAILED: %s: ", #cond);                  \
      std::printf(__VA_ARGS__);                            \
      std::printf("\n");                                   \
      ++failures;                                          \
    }                                                      \
  } while (0)

static std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Runs the program with the injection library; returns its JSON output.
static json run_injected(const std::string& program, const std::string& library, const fs::path& out,
                         const std::string& extra_env, const std::string& args, std::string* stdout_text) {
  fs::remove(out);
  std::string command = "CUDA_INJECTION64_PATH='" + library + "' NESTOR_CUPTI_OUT='" + out.string() + "' " + extra_env +
                        " '" + program + "' " + args + " > '" + out.string() + ".stdout' 2>&1";
  int status = std::system(command.c_str());
  *stdout_text = slurp(out.string() + ".stdout");
  std::printf("$ %s\n%s", command.c_str(), stdout_text->c_str());
  EXPECT(status == 0, "program exited with status %d", status);
  if (!fs::exists(out)) {
    EXPECT(false, "no JSON written to %s", out.c_str());
    return json::object();
  }
  return json::parse(slurp(out));
}

static const json* find_kernel(const json& doc, const std::string& name) {
  for (auto& k : doc["kernels"])
    if (k["name"].get<std::string>().find(name) != std::string::npos) return &k;
  return nullptr;
}

static double parent_ms_printed(const std::string& text) {
  auto pos = text.find("parent_with_children_ms=");
  return pos == std::string::npos ? -1 : std::atof(text.c_str() + pos + 24);
}

int main(int argc, char** argv) {
  nestor::test::require_gpu_or_skip();
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s PROGRAM LIBRARY OUTDIR\n", argv[0]);
    return 2;
  }
  std::string program = argv[1], library = argv[2];
  fs::path outdir = argv[3];
  fs::create_directories(outdir);
  std::string text;

  // 1. Default: CONCURRENT_KERNEL records.
  json concurrent = run_injected(program, library, outdir / "concurrent.json", "", "", &text);
  EXPECT(concurrent.value("tool", "") == "nestor_cupti", "tool field");
  EXPECT(concurrent.value("activity_kind", "") == "CONCURRENT_KERNEL", "kind %s", concurrent.value("activity_kind", "?").c_str());
  const json* scale = find_kernel(concurrent, "scale_kernel");
  const json* parent = find_kernel(concurrent, "parent_kernel");
  EXPECT(scale != nullptr, "host-launched scale_kernel recorded");
  EXPECT(parent != nullptr, "host-launched parent_kernel recorded");
  if (scale) {
    EXPECT((*scale)["grid"] == json({4, 1, 1}), "grid %s", (*scale)["grid"].dump().c_str());
    EXPECT((*scale)["block"] == json({128, 1, 1}), "block %s", (*scale)["block"].dump().c_str());
    EXPECT((*scale)["registers_per_thread"].get<int>() > 0, "registers");
    EXPECT((*scale)["end_ns"].get<uint64_t>() > (*scale)["start_ns"].get<uint64_t>(), "start < end");
    EXPECT((*scale)["mangled_name"].get<std::string>().rfind("_Z", 0) == 0, "mangled name kept");
    EXPECT((*scale)["device_launched"] == false, "host launch");
  }
  if (parent) {
    EXPECT((*parent)["grid"] == json({2, 1, 1}), "grid %s", (*parent)["grid"].dump().c_str());
    EXPECT((*parent)["block"] == json({32, 1, 1}), "block");
  }
  size_t child_records = 0;
  for (auto& k : concurrent["kernels"]) child_records += k["name"].get<std::string>().find("child_kernel") != std::string::npos;
  double real_parent_ms = parent_ms_printed(text);
  double concurrent_parent_ms = parent ? (*parent)["duration_ns"].get<double>() / 1e6 : -1;
  std::printf("CONCURRENT_KERNEL: parent record %.4f ms, event-timed parent with children %.4f ms, child records %zu\n",
              concurrent_parent_ms, real_parent_ms, child_records);

  // 2. NESTOR_CUPTI_SERIALIZE=1: KERNEL records, the parent includes its children.
  json serial = run_injected(program, library, outdir / "serialized.json", "NESTOR_CUPTI_SERIALIZE=1", "", &text);
  EXPECT(serial.value("activity_kind", "") == "KERNEL", "kind %s", serial.value("activity_kind", "?").c_str());
  const json* serial_parent = find_kernel(serial, "parent_kernel");
  EXPECT(serial_parent != nullptr, "parent recorded in serialised mode");
  EXPECT(find_kernel(serial, "scale_kernel") != nullptr, "scale recorded in serialised mode");
  if (serial_parent) {
    double serial_ms = (*serial_parent)["duration_ns"].get<double>() / 1e6;
    double real_ms = parent_ms_printed(text);
    std::printf("KERNEL (serialised): parent record %.4f ms, event-timed parent with children %.4f ms\n", serial_ms, real_ms);
    EXPECT(real_ms > 0, "program printed its event timing");
    EXPECT(serial_ms >= 0.5 * real_ms, "serialised parent record (%.4f ms) must cover its children (%.4f ms)", serial_ms, real_ms);
  }

  // 3. Range-profiler metrics run (separate from timing; no CDP launch).
  json metrics = run_injected(program, library, outdir / "metrics.json",
                              "NESTOR_CUPTI_METRICS=gpu__time_duration.sum,smsp__average_thread_inst_executed_per_inst_executed.ratio,"
                              "sm__warps_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed",
                              "--no-cdp", &text);
  std::printf("metrics: %s\nmetrics_error: %s\n", metrics["metrics"].dump(2).c_str(), metrics["metrics_error"].dump().c_str());
  EXPECT(metrics.value("mode", "") == "metrics", "metrics mode");
  EXPECT(metrics["metrics_error"].is_null(), "range profiler error: %s", metrics["metrics_error"].dump().c_str());
  if (metrics["metrics"].is_object()) {
    EXPECT(metrics["metrics"]["ranges"].size() >= 1, "at least one range (kernel)");
    double duration = metrics["metrics"]["aggregate"].value("gpu__time_duration.sum", 0.0);
    EXPECT(duration > 0, "gpu__time_duration.sum %f", duration);
    EXPECT(metrics["metrics"]["aggregate"].contains("warp_execution_efficiency"), "derived warp efficiency");
  } else {
    EXPECT(false, "no metrics object");
  }

  std::printf(failures ? "injection test: %d failure(s)\n" : "injection test: all checks passed\n", failures);
  return failures ? 1 : 0;
}
