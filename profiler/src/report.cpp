#include "nestor/profiler/report.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <thread>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace nestor::profiler {

namespace {

std::string fixed(double value, int digits = 3) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", digits, value);
  return buffer;
}

// Table cells come from plan ids and program output; escape them.
std::string markdown_cell(std::string text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += "\\|";
    else if (c == '\n' || c == '\r') out += ' ';
    else out += c;
  }
  return out;
}

std::string timed_what(const Results& results) {
  for (auto& v : results.variants) {
    if (!v.timing) continue;
    if (v.timing->source == "kernel_sum")
      return "sum of kernel durations recorded by CUPTI (" + v.timing->activity_kind.value_or("?") +
             (v.timing->activity_kind == std::optional<std::string>("KERNEL")
                  ? " records, serialised: device-launched children are inside their parent's time)"
                  : " records: device-launched (CDP) children are NOT included)");
    return "wall-clock time of the whole program run";
  }
  return "nothing (no variant was timed)";
}

} // namespace

std::string render_markdown(const Results& results) {
  std::ostringstream md;
  md << "# Nestor profile\n\n";
  if (results.environment.devices_assumed)
    md << "> **Test mode:** device detection was skipped (NESTOR_RUNNER_ASSUME_DEVICES); these are not GPU measurements.\n\n";
  md << "GPU: ";
  if (results.environment.gpus.empty()) md << "none";
  for (size_t i = 0; i < results.environment.gpus.size(); ++i)
    md << (i ? ", " : "") << results.environment.gpus[i].index << ": " << markdown_cell(results.environment.gpus[i].name);
  md << "  \nTimed: " << timed_what(results) << "\n\n";

  const VariantResult* baseline = nullptr;
  for (auto& v : results.variants)
    if (v.baseline && v.timing) baseline = &v;

  md << "| Variant | Status | Median (ms) | IQR (ms) | Samples | Speedup | Note |\n";
  md << "|---|---|---:|---:|---:|---:|---|\n";
  for (auto& v : results.variants) {
    md << "| " << markdown_cell(v.id) << (v.baseline ? " (baseline)" : "") << " | " << to_string(v.status) << " | ";
    if (v.timing) {
      md << fixed(v.timing->median, 4) << " | " << fixed(v.timing->q1, 4) << "–" << fixed(v.timing->q3, 4) << " | "
         << v.timing->samples.size() << " | ";
      if (baseline && v.timing->median > 0) md << fixed(baseline->timing->median / v.timing->median, 2) << "x";
      else md << "–";
    } else {
      md << "– | – | 0 | –";
    }
    std::string note = v.status == VariantStatus::Ok ? v.description : v.reason;
    if (v.timing && !v.timing->stop_detail.empty()) note += (note.empty() ? "" : "; ") + v.timing->stop_detail;
    if (v.from_cache) note += note.empty() ? "cached" : " (cached)";
    md << " | " << markdown_cell(note) << " |\n";
  }
  const Recommendation& rec = results.recommendation;
  md << "\n**Recommendation:** ";
  if (rec.decision == "variant" && rec.variant) md << "apply `" << markdown_cell(*rec.variant) << "`";
  else md << "keep the baseline";
  md << ". " << rec.reason << ".\n\n";
  md << "_Criterion:_ " << rec.criterion << ".\n";
  return md.str();
}

void write_report(const Results& results, const std::string& path) {
  auto ends_with = [&](const char* suffix) {
    std::string s(suffix);
    return path.size() >= s.size() && path.compare(path.size() - s.size(), s.size(), s) == 0;
  };
  std::string text;
  if (ends_with(".json")) text = to_json(results).dump(2) + "\n";
  else if (ends_with(".md")) text = render_markdown(results);
  else if (ends_with(".svg")) text = render_svg(results);
  else throw std::runtime_error("report path '" + path + "' must end in .json, .md or .svg");
  write_text_atomic(path, text);
}

void write_text_atomic(const std::string& path, const std::string& text) {
  std::string temporary = path + ".tmp-" + std::to_string(::getpid());
  {
    std::ofstream out(temporary, std::ios::binary);
    if (!out) throw std::runtime_error("cannot write '" + path + "'");
    out << text;
    if (!out.flush()) {
      std::remove(temporary.c_str());
      throw std::runtime_error("error while writing '" + path + "'");
    }
  }
  // Test seam: a process killed here, between the complete temporary file
  // and the rename, must leave the previous file as it was (the runner's
  // kill test, KilledBetweenWriteAndRenameKeepsThePreviousResults).
  if (const char* pause = std::getenv("NESTOR_TEST_PAUSE_BEFORE_RENAME_MS")) {
    std::fprintf(stderr, "nestor-runner: paused before renaming %s\n", temporary.c_str());
    std::fflush(stderr);
    std::this_thread::sleep_for(std::chrono::milliseconds(std::atoi(pause)));
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    std::remove(temporary.c_str());
    throw std::runtime_error("cannot write '" + path + "' (rename failed)");
  }
}

} // namespace nestor::profiler
