// `nestor`: the command-line front end.
//
//   nestor analyze FILE... [--json] [-p DIR] [-- FLAGS]
//   nestor lint PATH... [-p DIR] [-j N] [--format text|json|sarif] [--fail-on LEVEL] [-- FLAGS]
//   nestor rewrite FILE --at LINE[:COL] --apply NAME[,NAME] [--param k=v]... [-i|-o OUT|--diff]
//   nestor lsp
//   nestor profile FILE [--kernel NAME] [--budget N] [--report OUT]
//   nestor --runtime-dir | --version
//
// Like clang-tidy, arguments after `--` are the compile flags used when no
// compile_commands.json applies. Exit codes: 0 clean, 1 findings at or above
// --fail-on (lint) or a refused rewrite, 2 usage error or unreadable input,
// 3 no CUDA device (profile), 4 internal error: an analysis crashed and was
// recovered from (lint, analyze; every other file is still reported).
#include "Commands.h"

#include "nestor/CrashRecovery.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

using namespace llvm;

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  // A crash inside one file's analysis (lint, analyze, the language server)
  // is reported for that file instead of ending the process.
  nestor::enableCrashRecovery();
  // Split at `--`: what follows are compile flags, not options.
  std::vector<const char *> args;
  std::optional<std::vector<std::string>> compileFlags;
  for (int i = 0; i < argc; ++i) {
    if (std::strcmp(argv[i], "--") == 0 && i > 0) {
      compileFlags.emplace(argv + i + 1, argv + argc);
      break;
    }
    args.push_back(argv[i]);
  }
  return nestor::cli::run(int(args.size()), args.data(), compileFlags);
}
