// Stands in for a user's GPU program in the runner tests (no GPU needed).
//
//   fake_gpu_program build SRC EXE   "compiles" SRC: fails when SRC says
//                                    behaviour=build_error, else writes EXE, a
//                                    script that runs `fake_gpu_program run SRC`.
//   fake_gpu_program run SRC OUT     behaves as SRC says, writes OUT.
//
// SRC is a key=value file: behaviour (ok, wrong, crash, hang, exit_nonzero,
// cuda_error, missing_output, build_error), sleep_ms (run time), value_offset
// (added to every output value, to test tolerances), build_sleep_ms (build
// time). With NESTOR_FAKE_RUN_LOG set, every run appends its variant's id
// (the name of its scratch directory) to that file, so tests see the order.
//
// Run time without the machine's speed: under the runner's test seam
// NESTOR_RUNNER_REPORTED_MS=FILE the program does not sleep but writes its
// run time (sleep_ms plus the fixed jitter below) to FILE, and the runner
// takes that as the sample.
//
// Explicit synchronisation, so that tests assert an order of events instead
// of hoping a sleep was long enough (each waits until the event happened;
// the runner's build/run timeout ends a wait that never ends):
//   build_wait_for=PATH   the build waits until PATH exists
//   run_wait_for=PATH     every run waits until PATH exists
//   touch_on_run=PATH     every run creates PATH (after any wait)
//   rendezvous=DIR:N      every run creates DIR/<CUDA_VISIBLE_DEVICES> and waits
//                         until N such files exist (runs on N devices met)
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

static std::map<std::string, std::string> read_config(const char* path) {
  std::map<std::string, std::string> config;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    auto eq = line.find('=');
    if (eq != std::string::npos) config[line.substr(0, eq)] = line.substr(eq + 1);
  }
  return config;
}

static void sleep_ms(double ms) { std::this_thread::sleep_for(std::chrono::microseconds(static_cast<long>(ms * 1000))); }

// Polls for an event another process makes happen; ends only when it happened
// (or when the runner kills the program at its timeout).
static void wait_until(const std::function<bool()>& happened) {
  while (!happened()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
}

static void wait_for_path(const std::string& path) {
  wait_until([&] { return std::filesystem::exists(path); });
}

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s build SRC EXE | run SRC OUT\n", argv[0]);
    return 64;
  }
  std::string mode = argv[1];
  auto config = read_config(argv[2]);
  std::string behaviour = config.count("behaviour") ? config["behaviour"] : "ok";

  if (mode == "build") {
    if (config.count("build_sleep_ms")) sleep_ms(std::atof(config["build_sleep_ms"].c_str()));
    if (config.count("build_wait_for")) wait_for_path(config["build_wait_for"]);
    if (behaviour == "build_error") {
      std::fprintf(stderr, "%s:1:1: error: fake compile error requested by the test\n", argv[2]);
      return 1;
    }
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) return 70;
    self[n] = '\0';
    std::ofstream exe(argv[3]);
    exe << "#!/bin/sh\nexec '" << self << "' run '" << argv[2] << "' \"$@\"\n";
    exe.close();
    chmod(argv[3], 0755);
    return 0;
  }
  if (mode != "run") return 64;

  // Deterministic "noise": the n-th run of this work dir sleeps sleep_ms plus
  // the n-th offset of a fixed cycle, so equal variants get equal distributions.
  static const double jitter[] = {-3, 2, 0, 3, -2, 1, -1, 0};
  int run_index = 0;
  {
    std::ifstream in(".fake-run-count");
    in >> run_index;
    std::ofstream out(".fake-run-count");
    out << run_index + 1;
  }
  if (const char* log = std::getenv("NESTOR_FAKE_RUN_LOG")) {
    char cwd[4096];
    if (getcwd(cwd, sizeof cwd)) {
      std::string dir(cwd);
      dir = dir.substr(0, dir.rfind('/')); // <scratch>/<id>/project -> <scratch>/<id>
      std::ofstream(log, std::ios::app) << dir.substr(dir.rfind('/') + 1) << '\n';
    }
  }
  if (config.count("run_wait_for")) wait_for_path(config["run_wait_for"]);
  if (config.count("rendezvous")) {
    std::string spec = config["rendezvous"];
    std::filesystem::path dir = spec.substr(0, spec.rfind(':'));
    size_t n = std::stoul(spec.substr(spec.rfind(':') + 1));
    const char* device = std::getenv("CUDA_VISIBLE_DEVICES");
    std::filesystem::create_directories(dir);
    std::ofstream(dir / (device && *device ? device : "none")).close();
    wait_until([&] {
      size_t met = 0;
      for ([[maybe_unused]] auto& entry : std::filesystem::directory_iterator(dir)) ++met;
      return met >= n;
    });
  }
  if (config.count("touch_on_run")) std::ofstream(config["touch_on_run"]).close();
  double sleep = config.count("sleep_ms") ? std::atof(config["sleep_ms"].c_str()) : 10;
  double run_ms = sleep + (sleep > 5 ? jitter[run_index % 8] : 0);
  if (const char* reported = std::getenv("NESTOR_RUNNER_REPORTED_MS"); reported && *reported)
    std::ofstream(reported) << run_ms << '\n';
  else
    sleep_ms(run_ms);

  if (behaviour == "crash") std::abort();
  if (behaviour == "exit_nonzero") {
    std::fprintf(stderr, "fake program: failing on purpose\n");
    return 2;
  }
  if (behaviour == "hang") {
    pid_t child = fork();
    if (child == 0) {
      for (;;) pause();
    }
    std::ofstream("child.pid") << child;
    for (;;) pause();
  }
  if (behaviour == "missing_output") return 0;

  double offset = config.count("value_offset") ? std::atof(config["value_offset"].c_str()) : 0;
  if (behaviour == "wrong") offset += 1;
  std::ofstream out(argv[3]);
  for (int i = 0; i < 10; ++i) out << (i * 0.5 + offset) << (i % 5 == 4 ? '\n' : ' ');
  std::printf("fake program: wrote %s\n", argv[3]);
  if (behaviour == "cuda_error") std::fprintf(stderr, "main.cu:42: CUDA error cudaErrorIllegalAddress: an illegal memory access was encountered\n");
  return 0;
}
