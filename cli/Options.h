// Command-line options shared by the subcommand files (llvm::cl).
#pragma once
#include "llvm/Support/CommandLine.h"

namespace nestor::cli {
extern llvm::cl::SubCommand AnalyzeCmd, LintCmd, RewriteCmd, LspCmd, ProfileCmd;
extern llvm::cl::list<std::string> Inputs;
extern llvm::cl::opt<std::string> BuildPath;
extern llvm::cl::opt<std::string> GpuArch;
// rewrite
extern llvm::cl::opt<std::string> RewriteAt, RewriteApply, RewriteOutput;
extern llvm::cl::list<std::string> RewriteParams;
extern llvm::cl::opt<bool> RewriteInPlace, RewriteDiff, RewriteList;
// profile
extern llvm::cl::opt<std::string> ProfileKernel, ProfileReport, ProfilePlanOnly, ProfileResults, ProfileRunner;
extern llvm::cl::opt<unsigned> ProfileBudget;
extern llvm::cl::opt<bool> ProfileFresh;
} // namespace nestor::cli
