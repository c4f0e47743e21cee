// nestor-runner PLAN.json -o RESULTS.json: builds, checks and times every
// variant of a plan, then writes the results and the recommendation.
#include "nestor/profiler/process.h"
#include "nestor/profiler/report.h"
#include "nestor/profiler/runner.h"
#include "nestor/profiler/slurm.h"

#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <optional>
#include <unistd.h>

namespace {

constexpr int kExitOk = 0, kExitError = 1, kExitUsage = 2, kExitNoDevice = 3, kExitInterrupted = 130;

// Ctrl-C / scancel: the running programs' process groups are killed, the
// variants measured so far are written (and are in the cache already).
void on_interrupt(int) { nestor::profiler::request_interrupt(); }

// Ctrl-C and SIGTERM (Slurm's scancel, a timeout) stop the run cleanly: what
// was measured is written, nothing is lost.
void install_interrupt_handlers() {
  struct sigaction action {};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

void usage(std::FILE* to) {
  std::fprintf(to,
               "usage: nestor-runner PLAN.json -o RESULTS.json [options]\n"
               "       nestor-runner --render RESULTS.json --report FILE...   (reports from existing results)\n"
               "  -o, --output FILE     results JSON (required)\n"
               "  --report FILE         also write a report; .json, .md or .svg (repeatable)\n"
               "  --cache FILE          results cache (JSON lines); default <plan dir>/.nestor-runner-cache.jsonl\n"
               "  --fresh               measure everything again instead of reusing cached results\n"
               "  --cupti-lib FILE      libnestor_cupti.so (default: next to nestor-runner, or $NESTOR_CUPTI_LIB)\n"
               "  --jobs N              parallel builds (default: CPU cores)\n"
               "  --keep-scratch        keep the scratch copies and logs\n"
               "  --racing on|off       stop timing variants that can no longer win (default on)\n"
               "  --executor local|slurm  local: this machine's GPUs (default); slurm: one sbatch job array,\n"
               "                        one GPU per task; the plan directory must be on a file system the nodes share\n"
               "  --gpus N              slurm: array tasks, one GPU each (default 1)\n"
               "  --partition P, --time T, --account A   slurm: passed to sbatch\n"
               "  --timeout SECONDS     slurm: cancel the job (scancel) after this long\n"
               "  --quiet               no progress lines, no table on stdout\n"
               "exit codes: 0 results written, 1 error, 2 bad usage or plan, 3 no CUDA device,\n"
               "            130 interrupted (SIGINT/SIGTERM): results so far written, a rerun resumes from the cache\n");
}

} // namespace

int main(int argc, char** argv) {
  using namespace nestor::profiler;
  std::string plan_path, output_path, render_path;
  std::vector<std::string> reports;
  RunnerOptions options;
  SlurmOptions slurm;
  std::string executor = "local", worker_state, worker_token;
  std::optional<unsigned> worker_task;
  bool quiet = false;
  auto positive = [](const std::string& text, const char* name, double max) -> double {
    char* end = nullptr;
    double v = std::strtod(text.c_str(), &end);
    if (text.empty() || *end || !(v > 0) || v > max) {
      std::fprintf(stderr, "nestor-runner: %s needs a positive number up to %g, got '%s'\n", name, max, text.c_str());
      std::exit(kExitUsage);
    }
    return v;
  };
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](const char* name) -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "nestor-runner: %s needs a value\n", name);
        std::exit(kExitUsage);
      }
      return argv[++i];
    };
    if (arg == "-h" || arg == "--help") {
      usage(stdout);
      return kExitOk;
    } else if (arg == "-o" || arg == "--output") output_path = value("-o");
    else if (arg == "--render") render_path = value("--render");
    else if (arg == "--report") reports.push_back(value("--report"));
    else if (arg == "--cache") options.cache_path = value("--cache");
    else if (arg == "--fresh") {
      options.fresh = true;
      slurm.worker_args.push_back("--fresh");
    }
    else if (arg == "--cupti-lib") {
      options.cupti_library = std::filesystem::absolute(value("--cupti-lib"));
      slurm.worker_args.insert(slurm.worker_args.end(), {"--cupti-lib", options.cupti_library->string()});
    }
    else if (arg == "--jobs") {
      std::string n = value("--jobs");
      char* end = nullptr;
      long jobs = std::strtol(n.c_str(), &end, 10);
      if (*end || jobs < 1 || jobs > 1024) {
        std::fprintf(stderr, "nestor-runner: --jobs needs a positive integer, got '%s'\n", n.c_str());
        return kExitUsage;
      }
      options.build_jobs = static_cast<unsigned>(jobs);
    } else if (arg == "--racing") {
      std::string mode = value("--racing");
      if (mode != "on" && mode != "off") {
        std::fprintf(stderr, "nestor-runner: --racing takes on or off, got '%s'\n", mode.c_str());
        return kExitUsage;
      }
      options.race.enabled = mode == "on";
      slurm.worker_args.insert(slurm.worker_args.end(), {"--racing", mode});
    } else if (arg == "--executor") {
      executor = value("--executor");
      if (executor != "local" && executor != "slurm") {
        std::fprintf(stderr, "nestor-runner: --executor takes local or slurm, got '%s'\n", executor.c_str());
        return kExitUsage;
      }
    } else if (arg == "--gpus") {
      double n = positive(value("--gpus"), "--gpus", 4096);
      if (n != static_cast<unsigned>(n)) return std::fprintf(stderr, "nestor-runner: --gpus needs a whole number\n"), kExitUsage;
      slurm.gpus = static_cast<unsigned>(n);
    } else if (arg == "--partition") slurm.partition = value("--partition");
    else if (arg == "--time") slurm.time = value("--time");
    else if (arg == "--account") slurm.account = value("--account");
    else if (arg == "--timeout") slurm.timeout_s = positive(value("--timeout"), "--timeout", 1e7);
    else if (arg == "--worker") plan_path = value("--worker"), executor = "worker";
    else if (arg == "--state") worker_state = value("--state");
    else if (arg == "--token") worker_token = value("--token");
    else if (arg == "--task") {
      double n = std::strtod(value("--task").c_str(), nullptr);
      worker_task = static_cast<unsigned>(n < 0 ? 0 : n);
    } else if (arg == "--keep-scratch") options.keep_scratch = true;
    else if (arg == "--quiet") quiet = true;
    else if (!arg.empty() && arg[0] == '-') {
      std::fprintf(stderr, "nestor-runner: unknown option '%s'\n", arg.c_str());
      usage(stderr);
      return kExitUsage;
    } else if (plan_path.empty()) plan_path = arg;
    else {
      std::fprintf(stderr, "nestor-runner: more than one plan given ('%s' and '%s')\n", plan_path.c_str(), arg.c_str());
      return kExitUsage;
    }
  }
  if (!render_path.empty()) {
    if (!plan_path.empty() || reports.empty()) {
      std::fprintf(stderr, "nestor-runner: --render RESULTS.json takes --report FILE and no plan\n");
      return kExitUsage;
    }
    try {
      std::ifstream in(render_path);
      if (!in) throw std::runtime_error("cannot read results '" + render_path + "'");
      Results results = results_from_json(nlohmann::json::parse(in));
      for (auto& r : reports) write_report(results, r);
      return kExitOk;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "nestor-runner: %s: %s\n", render_path.c_str(), e.what());
      return kExitUsage;
    }
  }
  if (executor == "worker") {
    // One task of a Slurm job array (see slurm.h); progress goes to its log.
    if (worker_state.empty() || !worker_task || worker_token.empty()) {
      std::fprintf(stderr, "nestor-runner: --worker PLAN needs --state DIR --task N --token T\n");
      return kExitUsage;
    }
    options.progress = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };
    install_interrupt_handlers();
    try {
      return run_slurm_worker(load_plan(plan_path), worker_state, *worker_task, worker_token, options);
    } catch (const NoDeviceError& e) {
      std::fprintf(stderr, "nestor-runner --worker: %s\n", e.what());
      return kExitNoDevice;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "nestor-runner --worker: %s\n", e.what());
      return kExitError;
    }
  }
  if (plan_path.empty() || output_path.empty()) {
    usage(stderr);
    return kExitUsage;
  }
  for (auto& r : reports)
    if (!(r.ends_with(".json") || r.ends_with(".md") || r.ends_with(".svg"))) {
      std::fprintf(stderr, "nestor-runner: report '%s' must end in .json, .md or .svg\n", r.c_str());
      return kExitUsage;
    }
  if (!quiet) options.progress = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };

  install_interrupt_handlers();

  try {
    Plan plan = load_plan(plan_path);
    Results results = executor == "slurm" ? run_plan_on_slurm(plan, options, slurm) : run_plan(plan, options);
    write_text_atomic(output_path, to_json(results).dump(2) + "\n"); // -o is always JSON, whatever its extension
    for (auto& r : reports) write_report(results, r);
    if (!quiet) std::cout << render_markdown(results);
    if (interrupt_requested()) {
      std::fprintf(stderr, "nestor-runner: interrupted; the results measured so far are in '%s' and the cache, a rerun resumes from them\n",
                   output_path.c_str());
      return kExitInterrupted;
    }
    return kExitOk;
  } catch (const NoDeviceError& e) {
    std::fprintf(stderr, "nestor-runner: %s\nNothing was built or run. Run on a machine with a CUDA GPU, or check CUDA_VISIBLE_DEVICES.\n",
                 e.what());
    return kExitNoDevice;
  } catch (const PlanError& e) {
    std::fprintf(stderr, "nestor-runner: bad plan: %s\n", e.what());
    return kExitUsage;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "nestor-runner: %s\n", e.what());
    return kExitError;
  }
}
