// tests/planner: the planner of `nestor profile` on the bundled examples.
// Rewrites are being added while this is written, so the tests assert the
// structure of what the registered rewrites produce (every candidate applies,
// is generated, ordered, and ends up in a plan the runner accepts), and the
// specific expectations only for rewrites that are registered.
#include "nestor/MappingAdvisor.h"
#include "nestor/planner/Compose.h"
#include "nestor/planner/Planner.h"
#include "nestor/planner/Runner.h"
#include "nestor/profiler/plan.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#ifndef NESTOR_SOURCE_DIR
#error NESTOR_SOURCE_DIR must be defined
#endif

namespace fs = std::filesystem;
using namespace nestor;
using namespace nestor::planner;

namespace {

const fs::path kSource = NESTOR_SOURCE_DIR;
const fs::path kNeighbourSum = kSource / "examples/graph/neighbour_sum.cu";
const fs::path kTmv = kSource / "examples/profile/tmv/tmv.cu";

std::string readFile(const fs::path &p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

struct Analysed {
  AnalysisOptions opts;
  std::unique_ptr<AnalyzedTU> tu;
};

Analysed analyse(const fs::path &file) {
  Analysed a;
  auto tu = analyzeFile(file.string(), a.opts);
  if (!tu) ADD_FAILURE() << llvm::toString(tu.takeError());
  else a.tu = std::move(*tu);
  return a;
}

ProfileConfig config(const std::string &build = "nvcc -O3 -rdc=true {defines} {flags} -o {exe} {source} -lcudadevrt") {
  ProfileConfig p;
  p.build = build;
  p.run = "{exe} --out out.txt";
  p.outputs = {"out.txt"};
  p.repetitions = 7;
  p.timeoutSeconds = 30;
  return p;
}

struct TempDir {
  fs::path path;
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "nestor-planner-test-XXXXXX").string();
    path = mkdtemp(pattern.data());
  }
  ~TempDir() { fs::remove_all(path); }
};

bool registered(const char *id) { return findRewrite(id) != nullptr; }
// The rewrites these tests are about: a renamed or removed one fails the test
// that needs it (it used to be skipped, or its checks left out, silently).
::testing::AssertionResult rewriteRegistered(const char *id) {
  if (registered(id)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "rewrite '" << id
                                       << "' is not registered (renamed or removed?): update this test with it";
}

/// Structure every candidate list must have, whatever rewrites exist.
void expectWellFormed(const AnalyzedTU &tu, const CandidateList &list) {
  // "Keep the original" has one place in the ranking: first when it is
  // kept, otherwise after exactly the candidates estimated faster than it.
  ASSERT_GE(list.originalRank, 1u);
  ASSERT_LE(list.originalRank, list.candidates.size() + 1);
  if (list.keepOriginal) EXPECT_EQ(list.originalRank, 1u);
  else if (list.originalUs > 0)
    for (const Candidate &c : list.candidates) {
      const bool faster = c.estimateUs >= 0 && c.estimateUs < c.originalUs;
      EXPECT_EQ(faster, c.order + 1 < list.originalRank) << c.id << " (" << c.estimateUs << " us, the original "
                                                         << c.originalUs << " us; original ranked "
                                                         << list.originalRank << ")";
    }
  std::set<std::string> ids;
  const std::regex idPattern("[A-Za-z0-9_.+-]+");
  for (size_t i = 0; i < list.candidates.size(); ++i) {
    const Candidate &c = list.candidates[i];
    SCOPED_TRACE(c.id);
    EXPECT_EQ(c.order, i);
    EXPECT_TRUE(std::regex_match(c.id, idPattern));
    EXPECT_TRUE(ids.insert(c.id).second) << "duplicate id";
    EXPECT_NE(c.id, "baseline");
    ASSERT_FALSE(c.steps.empty());
    for (const CandidateStep &s : c.steps) {
      const Rewrite *r = findRewrite(s.rewrite);
      ASSERT_NE(r, nullptr);
      EXPECT_EQ(r->targetKind(), c.target.kind);
      EXPECT_NE(s.rewrite, "np-pragma") << "annotation-only rewrites are not timed";
    }
    // The first step applies to the target as listed.
    const Rewrite *first = findRewrite(c.steps.front().rewrite);
    EXPECT_TRUE(first->prepare(tu, c.target, c.steps.front().params).applies);
    EXPECT_FALSE(c.title.empty());
    EXPECT_FALSE(c.where.empty());
    EXPECT_NE(c.line, 0u);
    EXPECT_NE(c.rewriteCommand("k.cu").find("--at " + std::to_string(c.line)), std::string::npos);
    if (i > 0) {
      // The cost model's estimated saving first (unestimated last), then the
      // model's rank, parameter distance and family.
      const Candidate &p = list.candidates[i - 1];
      auto saving = [](const Candidate &x) { return x.estimateUs >= 0 ? x.estimateUs - x.originalUs : 1e300; };
      EXPECT_LE(std::make_tuple(saving(p), p.mappingRank, p.distance, p.familyRank),
                std::make_tuple(saving(c), c.mappingRank, c.distance, c.familyRank))
          << "static order broken";
    }
    if (c.mappingRank != UINT_MAX) {
      EXPECT_FALSE(c.mapping.empty());
      EXPECT_GE(c.mappingScore, 0.0);
      EXPECT_LE(c.mappingScore, 1.0);
      EXPECT_GT(c.estimateUs, 0.0) << c.id;
      EXPECT_GT(c.originalUs, 0.0) << c.id;
    }
  }
}

} // namespace

// ---- candidates -------------------------------------------------------------

TEST(Candidates, DynamicParallelismExample) {
  Analysed a = analyse(kNeighbourSum);
  ASSERT_TRUE(a.tu);
  auto list = listCandidates(*a.tu, Config{}, "");
  ASSERT_TRUE(bool(list)) << llvm::toString(list.takeError());
  // ns_parent launches a child grid per thread: the DP rules flag it.
  EXPECT_NE(std::find(list->kernels.begin(), list->kernels.end(), "ns_parent"), list->kernels.end());
  EXPECT_TRUE(list->usesDeviceLaunches);
  expectWellFormed(*a.tu, *list);
  for (const Candidate &c : list->candidates) {
    ASSERT_EQ(c.target.kind, RewriteTarget::Kind::Launch) << c.id;
    EXPECT_EQ(a.tu->model().launches[size_t(c.target.id)].parent, "ns_parent");
  }
  EXPECT_TRUE(rewriteRegistered("threshold"));
  if (registered("threshold")) {
    // Every threshold of the grid that applies, 128 first (distance 0).
    size_t thresholds = 0;
    for (const Candidate &c : list->candidates)
      if (c.family == "threshold") ++thresholds;
    EXPECT_EQ(thresholds, findRewrite("threshold")->variants().size());
    auto t128 = std::find_if(list->candidates.begin(), list->candidates.end(),
                             [](const Candidate &c) { return c.id == "threshold-128"; });
    ASSERT_NE(t128, list->candidates.end());
    EXPECT_EQ(t128->distance, 0u);
    EXPECT_EQ(t128->steps.front().params.at("threshold"), "128");
  }
  EXPECT_TRUE(rewriteRegistered("aggregate"));
  if (registered("aggregate")) {
    // The cost model ranks every chain of the thesis' rewrites and every
    // launch template (each is a mapping of the child level); what heads the
    // list makes no device launch per parent thread: the children's one grid
    // (aggregate per grid) or a template that promotes them.
    const Candidate &top = list->candidates.front();
    EXPECT_NE(top.mappingRank, UINT_MAX) << top.id;
    EXPECT_TRUE((top.steps.back().rewrite == "aggregate" && top.steps.back().params.at("granularity") == "grid") ||
                top.family.find("-launch") != std::string::npos)
        << top.id;
    EXPECT_LT(top.estimateUs, top.originalUs) << top.id;
    EXPECT_FALSE(list->keepOriginal);
    bool unrankedSeen = false;
    for (const Candidate &c : list->candidates) {
      EXPECT_NE(c.mappingRank, UINT_MAX) << c.id << " is not ranked";
      if (c.mappingRank == UINT_MAX) unrankedSeen = true;
      else EXPECT_FALSE(unrankedSeen) << c.id << ": ranked candidates come first";
    }
  }
}

TEST(Candidates, LoopExample) {
  Analysed a = analyse(kTmv);
  ASSERT_TRUE(a.tu);
  auto list = listCandidates(*a.tu, Config{}, "tmv");
  ASSERT_TRUE(bool(list)) << llvm::toString(list.takeError());
  EXPECT_EQ(list->kernels, std::vector<std::string>{"tmv"});
  EXPECT_FALSE(list->usesDeviceLaunches);
  expectWellFormed(*a.tu, *list);
  for (const Candidate &c : list->candidates) EXPECT_EQ(c.target.kind, RewriteTarget::Kind::Loop) << c.id;
  EXPECT_TRUE(list->notes.empty()) << "np-pragma does not apply: the loop has its pragma";
  EXPECT_TRUE(rewriteRegistered("np"));
  if (registered("np")) {
    // The pragma names no num_threads / np_type: 4 slaves, inter-warp is the
    // preferred parameter value (distance 0); the mapping model decides the
    // order, and every CUDA-NP variant is a mapping it ranks.
    auto np = std::find_if(list->candidates.begin(), list->candidates.end(), [](const Candidate &c) {
      return c.family == "np" && c.steps.front().params.at("slaves") == "4" && c.steps.front().params.at("np_type") == "inter";
    });
    ASSERT_NE(np, list->candidates.end());
    EXPECT_EQ(np->distance, 0u);
    EXPECT_EQ(np->mapping, "y-4");
    for (const Candidate &c : list->candidates)
      if (c.family == "np") EXPECT_NE(c.mappingRank, UINT_MAX) << c.id;
    // First: the fastest estimate.
    EXPECT_EQ(list->candidates.front().estimateUs, std::min_element(list->candidates.begin(), list->candidates.end(),
                                                                     [](const Candidate &a, const Candidate &b) {
                                                                       return a.estimateUs < b.estimateUs;
                                                                     })->estimateUs);
  }
}

TEST(Candidates, TheOriginalRanksAfterTheRewritesEstimatedFasterOnly) {
  // Two popcount sums over a dense row of 16 words per thread (one
  // fingerprint compared with a query): the intra-warp variants are
  // estimated faster than the original, the inter-warp ones slower, so
  // "keep the original" ranks between them and above every slower rewrite.
  TempDir dir;
  fs::create_directories(dir.path / "project");
  fs::path file = dir.path / "project" / "fingerprints.cu";
  std::ofstream(file) << R"(#ifndef FP_BLOCK
#define FP_BLOCK 256
#endif
__global__ void fingerprint_overlap(const unsigned *fp, const unsigned *query, float *sim, int rows, int words) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    int both = 0, either = 0;
    for (int k = 0; k < words; ++k) {
      unsigned a = fp[(size_t)r * words + k], q = query[k];
      both += __popc(a & q);
      either += __popc(a | q);
    }
    sim[r] = either > 0 ? float(both) / float(either) : 0.0f;
  }
}
void run(const unsigned *fp, const unsigned *query, float *sim, int rows, int words) {
  fingerprint_overlap<<<(rows + FP_BLOCK - 1) / FP_BLOCK, FP_BLOCK>>>(fp, query, sim, rows, words);
}
)";
  Analysed a = analyse(file);
  ASSERT_TRUE(a.tu);
  auto cfg = parseConfig("mapping:\n  gpu: h100\n  sizes: { rows: 2097152, words: 16 }\n  skew: 0\n", "test.nestor.yaml");
  ASSERT_TRUE(bool(cfg)) << llvm::toString(cfg.takeError());
  auto list = listCandidates(*a.tu, *cfg, "fingerprint_overlap");
  ASSERT_TRUE(bool(list)) << llvm::toString(list.takeError());
  expectWellFormed(*a.tu, *list);
  ASSERT_FALSE(list->keepOriginal);
  EXPECT_GT(list->originalRank, 1u);
  EXPECT_LE(list->originalRank, list->candidates.size()) << "some rewrite is estimated slower than the original";
  for (const Candidate &c : list->candidates)
    if (c.order + 1 >= list->originalRank) EXPECT_GE(c.estimateUs, c.originalUs) << c.id;

  // The plan gives the baseline that rank.
  PlanRequest req;
  req.planDir = (dir.path / "plan").string();
  req.projectDir = (dir.path / "project").string();
  req.runtimeIncludeDir = planner::runtimeIncludeDir();
  req.profile = config("nvcc -O3 -arch=sm_90 {defines} {flags} -o {exe} {source}");
  req.configPath = "test.nestor.yaml";
  req.budget = 1;
  auto out = writePlan(*a.tu, a.opts, *list, req);
  ASSERT_TRUE(bool(out)) << llvm::toString(out.takeError());
  std::ifstream planFile(out->planPath);
  nlohmann::json plan = nlohmann::json::parse(planFile);
  ASSERT_TRUE(plan["variants"][0]["baseline"].get<bool>());
  EXPECT_EQ(plan["variants"][0]["params"]["static_rank"].get<size_t>(), list->originalRank);
  EXPECT_FALSE(plan["variants"][0]["params"]["keep_original"].get<bool>());
}

TEST(Candidates, OneRulePlacesTheOriginalForEveryFrontEnd) {
  // placeOriginal is what rankOffers (--list, hover, analyze) and the
  // planner both use: kept when no estimate beats the original by 25%.
  OriginalPlace none = placeOriginal(100, {}, 3);
  EXPECT_TRUE(none.keep);
  EXPECT_EQ(none.rank, 1u);
  OriginalPlace close = placeOriginal(100, {85, 110}, 2);
  EXPECT_TRUE(close.keep) << "85 us is not 25% faster than 100 us";
  EXPECT_EQ(close.rank, 1u);
  OriginalPlace beaten = placeOriginal(100, {120, 70, 90}, 5);
  EXPECT_FALSE(beaten.keep);
  EXPECT_EQ(beaten.rank, 3u) << "after the two estimated faster, before the slower and the unestimated";
  OriginalPlace unknown = placeOriginal(0, {50}, 3);
  EXPECT_FALSE(unknown.keep);
  EXPECT_EQ(unknown.rank, 4u) << "no estimate of the original: after every choice";
}

TEST(Candidates, AnnotationOnlyRewritesAreNotTimed) {
  ASSERT_TRUE(rewriteRegistered("np-pragma"));
  // The TMV loop without its pragma: np-pragma applies, but inserting a
  // pragma changes no generated code, so it is noted instead of timed.
  TempDir dir;
  std::string text = readFile(kTmv);
  const std::string pragma = "#pragma np parallel for reduction(+:sum)\n";
  ASSERT_NE(text.find(pragma), std::string::npos);
  text.erase(text.find(pragma), pragma.size());
  fs::path bare = dir.path / "tmv.cu";
  std::ofstream(bare) << text;
  Analysed a = analyse(bare);
  ASSERT_TRUE(a.tu);
  auto list = listCandidates(*a.tu, Config{}, "tmv");
  ASSERT_TRUE(bool(list));
  ASSERT_EQ(list->notes.size(), 1u);
  EXPECT_NE(list->notes.front().find("np-pragma is not timed"), std::string::npos);
  expectWellFormed(*a.tu, *list);
}

TEST(Candidates, UnknownKernelNamesTheKernels) {
  Analysed a = analyse(kNeighbourSum);
  ASSERT_TRUE(a.tu);
  auto list = listCandidates(*a.tu, Config{}, "no_such_kernel");
  ASSERT_FALSE(bool(list));
  std::string msg = llvm::toString(list.takeError());
  EXPECT_NE(msg.find("no kernel named 'no_such_kernel'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("ns_parent"), std::string::npos) << msg;
  EXPECT_NE(msg.find("ns_child"), std::string::npos) << msg;
}

// ---- plans -------------------------------------------------------------------

TEST(Plan, BudgetKeepsTheMostPromisingInStaticOrder) {
  Analysed a = analyse(kNeighbourSum);
  ASSERT_TRUE(a.tu);
  auto list = listCandidates(*a.tu, Config{}, "ns_parent");
  ASSERT_TRUE(bool(list));
  TempDir dir;
  PlanRequest req;
  req.planDir = (dir.path / "plan").string();
  req.projectDir = kNeighbourSum.parent_path().string();
  req.runtimeIncludeDir = planner::runtimeIncludeDir();
  req.profile = config();
  req.configPath = "test.nestor.yaml";
  req.budget = 4;
  auto out = writePlan(*a.tu, a.opts, *list, req);
  ASSERT_TRUE(bool(out)) << llvm::toString(out.takeError());
  const size_t expected = std::min<size_t>(4, list->candidates.size() - out->dropped.size());
  EXPECT_LE(out->kept.size(), 4u);
  if (!list->candidates.empty()) EXPECT_GE(out->kept.size() + out->dropped.size(), std::min<size_t>(4, list->candidates.size()));
  (void)expected;
  // Kept = the first candidates of the static order that could be generated.
  size_t last = 0;
  for (size_t i = 0; i < out->kept.size(); ++i) {
    if (i) EXPECT_LT(out->kept[i - 1].order, out->kept[i].order);
    last = out->kept[i].order;
  }
  for (size_t o = 0; o < last; ++o) {
    const std::string &id = list->candidates[o].id;
    bool kept = std::any_of(out->kept.begin(), out->kept.end(), [&](const Candidate &c) { return c.id == id; });
    bool dropped = std::any_of(out->dropped.begin(), out->dropped.end(), [&](const auto &d) { return d.first.id == id; });
    EXPECT_TRUE(kept || dropped) << id << " was skipped although less promising ones were kept";
  }
  EXPECT_EQ(out->kept.size() + out->dropped.size() + out->notTried, list->candidates.size());

  // The runner accepts the plan, and it says what was asked.
  profiler::Plan plan = profiler::load_plan(out->planPath);
  ASSERT_EQ(plan.variants.size(), out->kept.size() + 1);
  EXPECT_TRUE(plan.variants.front().baseline);
  EXPECT_EQ(fs::weakly_canonical(plan.project_dir), fs::weakly_canonical(kNeighbourSum.parent_path()));
  EXPECT_TRUE(plan.serialize_kernels) << "CDP: the parents' records must include their children";
  EXPECT_EQ(plan.stopping.max_samples, 7u);
  EXPECT_EQ(plan.run_timeout_s, 30);
  EXPECT_EQ(plan.check.outputs, std::vector<std::string>{"out.txt"});
  const std::string original = readFile(kNeighbourSum);
  for (const profiler::VariantSpec &v : plan.variants) {
    SCOPED_TRACE(v.id);
    EXPECT_EQ(v.source, "neighbour_sum.cu");
    ASSERT_TRUE(v.files.count("neighbour_sum.cu"));
    std::string text = readFile(v.files.at("neighbour_sum.cu"));
    if (v.baseline) {
      EXPECT_EQ(text, original);
      continue;
    }
    EXPECT_NE(text, original);
    ASSERT_TRUE(v.params.contains("chain"));
    EXPECT_TRUE(v.params["rewrite_command"].get<std::string>().starts_with("nestor rewrite neighbour_sum.cu --at "));
    if (text.find("<nestor/") != std::string::npos) {
      EXPECT_EQ(v.flags, "-I.nestor-runtime");
      ASSERT_TRUE(v.files.count(".nestor-runtime/nestor/dp.cuh"));
      EXPECT_TRUE(fs::exists(v.files.at(".nestor-runtime/nestor/dp.cuh")));
    }
    // Threshold and coarsen write their parameter into the file.
    for (const auto &step : v.params["chain"]) {
      if (step["rewrite"] == "threshold")
        EXPECT_NE(text.find("NESTOR_THRESHOLD " + step["params"]["threshold"].get<std::string>()), std::string::npos);
      if (step["rewrite"] == "coarsen")
        EXPECT_NE(text.find("NESTOR_CFACTOR " + step["params"]["factor"].get<std::string>()), std::string::npos);
    }
  }
  // The user's file was only read.
  EXPECT_EQ(readFile(kNeighbourSum), original);
}

TEST(Plan, EveryLoopCandidateIsGenerated) {
  Analysed a = analyse(kTmv);
  ASSERT_TRUE(a.tu);
  auto list = listCandidates(*a.tu, Config{}, "tmv");
  ASSERT_TRUE(bool(list));
  TempDir dir;
  PlanRequest req;
  req.planDir = (dir.path / "plan").string();
  req.projectDir = kTmv.parent_path().string();
  req.runtimeIncludeDir = planner::runtimeIncludeDir();
  req.profile = config("nvcc -O3 -arch=sm_90 {defines} -o {exe} {source}"); // no {flags}: appended when needed
  req.configPath = "x/.nestor.yaml";
  req.relativeProjectDir = false;
  std::vector<std::string> lines;
  req.progress = [&](const std::string &l) { lines.push_back(l); };
  auto out = writePlan(*a.tu, a.opts, *list, req);
  ASSERT_TRUE(bool(out)) << llvm::toString(out.takeError());
  EXPECT_EQ(out->kept.size() + out->dropped.size(), list->candidates.size());
  EXPECT_EQ(out->notTried, 0u);
  EXPECT_EQ(lines.size(), list->candidates.size());
  for (const auto &[c, why] : out->dropped) ADD_FAILURE() << c.id << " was not generated: " << why;
  profiler::Plan plan = profiler::load_plan(out->planPath);
  EXPECT_FALSE(plan.serialize_kernels);
  EXPECT_EQ(plan.project_dir, fs::weakly_canonical(kTmv.parent_path()));
  bool anyFlags = std::any_of(plan.variants.begin(), plan.variants.end(), [](const auto &v) { return !v.flags.empty(); });
  EXPECT_EQ(plan.build_command.find("{flags}") != std::string::npos, anyFlags);
}

TEST(Plan, MissingProfileConfigurationIsAClearError) {
  auto none = checkProfileConfig(ProfileConfig{}, "", "k.cu");
  ASSERT_TRUE(bool(none));
  std::string msg = llvm::toString(std::move(none));
  EXPECT_NE(msg.find("no .nestor.yaml"), std::string::npos) << msg;
  EXPECT_NE(msg.find("profile:"), std::string::npos) << "shows an example";

  ProfileConfig partial;
  partial.outputs = {"o.txt"};
  auto missing = checkProfileConfig(partial, "/w/.nestor.yaml", "k.cu");
  ASSERT_TRUE(bool(missing));
  msg = llvm::toString(std::move(missing));
  EXPECT_NE(msg.find("/w/.nestor.yaml"), std::string::npos) << msg;
  EXPECT_NE(msg.find("build"), std::string::npos) << msg;
  EXPECT_NE(msg.find("run"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("outputs or check"), std::string::npos) << msg;

  ProfileConfig unchecked = config();
  unchecked.outputs.clear();
  auto check = checkProfileConfig(unchecked, "/w/.nestor.yaml", "k.cu");
  ASSERT_TRUE(bool(check));
  EXPECT_NE(llvm::toString(std::move(check)).find("outputs or check"), std::string::npos);
  unchecked.check = "cmp out.txt {baseline_workdir}/out.txt";
  EXPECT_FALSE(bool(checkProfileConfig(unchecked, "/w/.nestor.yaml", "k.cu")));

  // writePlan refuses too, before writing anything.
  Analysed a = analyse(kTmv);
  ASSERT_TRUE(a.tu);
  auto list = listCandidates(*a.tu, Config{}, "tmv");
  ASSERT_TRUE(bool(list));
  TempDir dir;
  PlanRequest req;
  req.planDir = (dir.path / "plan").string();
  req.projectDir = kTmv.parent_path().string();
  auto out = writePlan(*a.tu, a.opts, *list, req);
  ASSERT_FALSE(bool(out));
  EXPECT_NE(llvm::toString(out.takeError()).find(".nestor.yaml"), std::string::npos);
  EXPECT_FALSE(fs::exists(dir.path / "plan"));
}

TEST(Plan, BadRequestsAreRefused) {
  Analysed a = analyse(kTmv);
  ASSERT_TRUE(a.tu);
  auto list = listCandidates(*a.tu, Config{}, "tmv");
  ASSERT_TRUE(bool(list));
  TempDir dir;
  fs::create_directories(dir.path / "project");
  fs::copy_file(kTmv, dir.path / "project" / "tmv.cu");
  PlanRequest req;
  req.projectDir = (dir.path / "project").string();
  req.runtimeIncludeDir = planner::runtimeIncludeDir();
  req.profile = config();
  req.configPath = "c.yaml";
  auto message = [&](PlanRequest r) {
    auto out = writePlan(*a.tu, a.opts, *list, r);
    return out ? std::string("(accepted)") : llvm::toString(out.takeError());
  };
  // The analysed file lives outside that project.
  req.planDir = (dir.path / "plan").string();
  EXPECT_NE(message(req).find("is not inside the project directory"), std::string::npos);
  // A plan inside the project would be copied into every variant.
  req.projectDir = kTmv.parent_path().string();
  req.planDir = (kTmv.parent_path() / "plan-inside").string();
  EXPECT_NE(message(req).find("inside the project directory"), std::string::npos);
  EXPECT_FALSE(fs::exists(kTmv.parent_path() / "plan-inside"));
  // Outputs the runner cannot compare in one format.
  req.planDir = (dir.path / "plan").string();
  req.profile.outputs = {"a.f32", "b.txt"};
  EXPECT_NE(message(req).find("mix formats"), std::string::npos);
  req.profile.outputs = {"a.f32", "b.f32"};
  req.timingMode = "stopwatch";
  EXPECT_NE(message(req).find("cupti or wall_clock"), std::string::npos);
  req.timingMode = "";
  req.projectDir = (dir.path / "missing").string();
  EXPECT_NE(message(req).find("does not exist"), std::string::npos);
}

TEST(Plan, BuildCommandWithoutFlagsPlaceholder) {
  ASSERT_TRUE(rewriteRegistered("threshold")) << "needs a rewrite that includes a runtime header";
  Analysed a = analyse(kNeighbourSum);
  ASSERT_TRUE(a.tu);
  auto list = listCandidates(*a.tu, Config{}, "ns_parent");
  ASSERT_TRUE(bool(list));
  TempDir dir;
  PlanRequest req;
  req.planDir = (dir.path / "plan").string();
  req.projectDir = kNeighbourSum.parent_path().string();
  req.runtimeIncludeDir = planner::runtimeIncludeDir();
  req.configPath = "c.yaml";
  req.budget = 1;
  req.profile = config("nvcc -O3 -rdc=true {defines} -o {exe} {source} -lcudadevrt");
  auto out = writePlan(*a.tu, a.opts, *list, req);
  ASSERT_TRUE(bool(out)) << llvm::toString(out.takeError());
  ASSERT_EQ(out->plan["variants"].size(), 2u);
  ASSERT_TRUE(out->plan["variants"][1].contains("flags"))
      << "the first variant (" << out->plan["variants"][1].value("id", "") << ") includes no runtime header: choose one that does";
  // A compiler driver: -I can go anywhere, so {flags} is appended.
  EXPECT_EQ(out->plan["build"]["command"], "nvcc -O3 -rdc=true {defines} -o {exe} {source} -lcudadevrt {flags}");
  // Anything else: no guessing where -I would go.
  req.profile = config("make -C build");
  auto refused = writePlan(*a.tu, a.opts, *list, req);
  ASSERT_FALSE(bool(refused));
  EXPECT_NE(llvm::toString(refused.takeError()).find("no {flags} placeholder"), std::string::npos);
}

// ---- composition ---------------------------------------------------------------

TEST(Compose, ChainsShareTheirAnalysedPrefix) {
  ASSERT_TRUE(rewriteRegistered("threshold"));
  ASSERT_TRUE(rewriteRegistered("coarsen"));
  Analysed a = analyse(kNeighbourSum);
  ASSERT_TRUE(a.tu);
  const FileModel &m = a.tu->model();
  auto launch = std::find_if(m.launches.begin(), m.launches.end(), [](const LaunchSite &l) { return l.deviceSide; });
  ASSERT_NE(launch, m.launches.end());
  RewriteTarget target{RewriteTarget::Kind::Launch, launch->id};
  auto locate = [target](const FileModel &, RewriteTarget::Kind k) -> std::optional<RewriteTarget> {
    if (k == target.kind) return target;
    return std::nullopt;
  };
  auto chain = [](const char *factor) {
    return std::vector<ComposeStep>{{findRewrite("threshold"), {{"threshold", "128"}}},
                                    {findRewrite("coarsen"), {{"factor", factor}, {"strategy", "1"}}}};
  };
  ComposeMemo memo;
  auto two = composeRewrites(*a.tu, a.opts, chain("2"), locate, nullptr, &memo);
  ASSERT_TRUE(bool(two)) << llvm::toString(two.takeError());
  auto four = composeRewrites(*a.tu, a.opts, chain("4"), locate, nullptr, &memo);
  ASSERT_TRUE(bool(four)) << llvm::toString(four.takeError());
  EXPECT_EQ(memo.analyses, 1u) << "threshold-128's result is analysed once for both chains";
  auto alone = composeRewrites(*a.tu, a.opts, chain("4"), locate);
  ASSERT_TRUE(bool(alone));
  EXPECT_EQ(alone->text, four->text);
  EXPECT_NE(two->text, four->text);
  EXPECT_NE(four->text.find("NESTOR_THRESHOLD 128"), std::string::npos);
  EXPECT_NE(four->text.find("NESTOR_CFACTOR 4"), std::string::npos);
  ASSERT_EQ(four->resolvedParams.size(), 2u);
  EXPECT_EQ(four->resolvedParams[1].at("factor"), "4");
}

TEST(Compose, ErrorsNameTheStep) {
  Analysed a = analyse(kTmv);
  ASSERT_TRUE(a.tu);
  const Rewrite *launchRewrite = nullptr;
  for (const Rewrite *r : allRewrites())
    if (r->targetKind() == RewriteTarget::Kind::Launch) launchRewrite = r;
  ASSERT_NE(launchRewrite, nullptr) << "no launch rewrite registered";
  // tmv has no device-side launch: no target for the step.
  auto none = [](const FileModel &, RewriteTarget::Kind) -> std::optional<RewriteTarget> { return std::nullopt; };
  auto out = composeRewrites(*a.tu, a.opts, {{launchRewrite, {}}}, none);
  ASSERT_FALSE(bool(out));
  bool matched = false;
  llvm::handleAllErrors(out.takeError(), [&](const ComposeError &e) {
    matched = true;
    EXPECT_EQ(e.kind, ComposeError::Kind::NoTarget);
    EXPECT_EQ(e.step, 0u);
    EXPECT_EQ(e.rewriteId, launchRewrite->id());
  });
  EXPECT_TRUE(matched);
}

// ---- runner glue -----------------------------------------------------------------

TEST(Runner, ProgressFollowsTheRunnersEvents) {
  RunnerProgress p({"baseline", "a", "b"});
  EXPECT_DOUBLE_EQ(p.fraction(), 0);
  EXPECT_FALSE(p.feed("cache: skipped 1 unreadable line(s) in x"));
  EXPECT_FALSE(p.feed("[build] unknown: ok (3 ms)"));
  EXPECT_TRUE(p.feed("[build] baseline: ok (12 ms)"));
  EXPECT_TRUE(p.feed("[build] a: FAILED (exit 1)"));
  EXPECT_DOUBLE_EQ(p.fraction(), 3.0 / 6);
  EXPECT_EQ(p.lastEvent(), "build a: FAILED (exit 1)");
  EXPECT_TRUE(p.feed("[check] baseline 'baseline': reference outputs recorded") == false);
  EXPECT_TRUE(p.feed("[time] baseline: median 1.0 ms, IQR 1-1, 5 samples (settled)"));
  EXPECT_TRUE(p.feed("[cache] b: ok (from .nestor-runner-cache.jsonl)"));
  EXPECT_DOUBLE_EQ(p.fraction(), 1.0);
  EXPECT_EQ(p.finished(), 3u);
}

TEST(Runner, FindRunnerExplainsWhatItTried) {
  std::string why;
  EXPECT_FALSE(findRunner("/nonexistent/nestor-runner", why));
  EXPECT_NE(why.find("/nonexistent/nestor-runner"), std::string::npos);
  why.clear();
  auto found = findRunner("", why); // the build tree's, at least
  ASSERT_TRUE(found) << why;
  EXPECT_TRUE(fs::exists(*found));
}

TEST(Runner, EditorReportHasTheExtensionsShape) {
  profiler::Results r;
  r.timing_mode = "wall_clock";
  r.environment.devices_assumed = true;
  profiler::VariantResult base;
  base.id = "baseline";
  base.baseline = true;
  base.status = profiler::VariantStatus::Ok;
  base.timing = profiler::Timing{};
  base.timing->median = 2;
  base.timing->q1 = 1.9;
  base.timing->q3 = 2.1;
  base.timing->samples = {1.9, 2, 2.1};
  profiler::VariantResult fast = base;
  fast.id = "np-4-inter";
  fast.baseline = false;
  fast.timing->median = 1;
  fast.timing->stop_reason = "eliminated";
  fast.timing->stop_detail = "eliminated after 3 samples: ...";
  fast.params = {{"rewrite_command", "nestor rewrite k.cu --at 7 --apply np --param slaves=4"}};
  profiler::VariantResult broken;
  broken.id = "cte";
  broken.status = profiler::VariantStatus::BuildFailed;
  broken.reason = "build failed";
  r.variants = {base, fast, broken};
  r.recommendation.decision = "variant";
  r.recommendation.variant = "np-4-inter";
  r.recommendation.speedup = 2;
  r.recommendation.reason = "faster";
  nlohmann::json j = editorReport(r, "tmv");
  EXPECT_EQ(j["kernel"], "tmv");
  EXPECT_NE(j["device"].get<std::string>().find("test mode"), std::string::npos);
  ASSERT_EQ(j["variants"].size(), 3u);
  EXPECT_EQ(j["variants"][1]["name"], "np-4-inter");
  EXPECT_EQ(j["variants"][1]["median_ms"], 1.0);
  EXPECT_EQ(j["variants"][1]["iqr_ms"], nlohmann::json({1.9, 2.1}));
  EXPECT_EQ(j["variants"][1]["samples"], 3);
  EXPECT_EQ(j["variants"][1]["baseline"], false);
  EXPECT_EQ(j["variants"][1]["stop_reason"], "eliminated") << "the editor marks what racing stopped";
  EXPECT_EQ(j["variants"][1]["stop_detail"], "eliminated after 3 samples: ...");
  EXPECT_TRUE(j["variants"][2]["median_ms"].is_null());
  EXPECT_EQ(j["variants"][2]["reason"], "build failed");
  EXPECT_EQ(j["recommendation"]["variant"], "np-4-inter");
  EXPECT_EQ(j["apply"], "nestor rewrite k.cu --at 7 --apply np --param slaves=4");
  EXPECT_NE(renderForTerminal(r).find("To apply it"), std::string::npos);
  // Keeping the baseline is shown as the baseline recommended, with the reason.
  r.recommendation = {};
  r.recommendation.reason = "IQRs overlap";
  j = editorReport(r, "tmv");
  EXPECT_EQ(j["recommendation"]["variant"], "baseline");
  EXPECT_EQ(j["recommendation"]["reason"], "IQRs overlap");
  EXPECT_FALSE(j.contains("apply"));
}
