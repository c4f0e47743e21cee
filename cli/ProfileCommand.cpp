#include "Commands.h"
#include "Options.h"
#include "llvm/Support/raw_ostream.h"
namespace nestor::cli {
llvm::cl::opt<std::string> ProfileKernel("kernel", llvm::cl::desc("Kernel to profile"), llvm::cl::sub(ProfileCmd));
llvm::cl::opt<std::string> ProfileReport("report", llvm::cl::desc("Report file (.json, .md or .svg)"), llvm::cl::sub(ProfileCmd));
llvm::cl::opt<std::string> ProfilePlanOnly("plan", llvm::cl::desc("Write the plan here for a runner elsewhere, and stop"), llvm::cl::sub(ProfileCmd));
llvm::cl::opt<std::string> ProfileResults("results", llvm::cl::desc("Read a runner's results instead of running"), llvm::cl::sub(ProfileCmd));
llvm::cl::opt<std::string> ProfileRunner("runner", llvm::cl::desc("Path of nestor-runner"), llvm::cl::sub(ProfileCmd));
llvm::cl::opt<unsigned> ProfileBudget("budget", llvm::cl::desc("Keep the N most promising variants"), llvm::cl::init(0), llvm::cl::sub(ProfileCmd));
llvm::cl::opt<bool> ProfileFresh("fresh", llvm::cl::desc("Ignore cached results"), llvm::cl::sub(ProfileCmd));
int runProfile(const std::optional<std::vector<std::string>> &) {
  llvm::errs() << "nestor profile: the profiler planner is not built into this binary yet\n";
  return 2;
}
} // namespace nestor::cli
