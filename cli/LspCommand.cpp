// `nestor lsp`: the language server on stdin/stdout (server/, docs/lsp.md).
#include "Commands.h"
#include "Options.h"

#include "llvm/Support/raw_ostream.h"

#if __has_include("nestor/LspServer.h")
#include "nestor/LspServer.h"
#define NESTOR_HAVE_LSP 1
#endif

#include <cstdio>

namespace nestor::cli {
// vscode-languageclient appends these to the server's arguments (stdio is
// the only transport; the client's process id is not needed).
static llvm::cl::opt<bool> LspStdio("stdio", llvm::cl::desc("Speak LSP on stdin/stdout (the default)"),
                                    llvm::cl::sub(LspCmd));
static llvm::cl::opt<std::string> LspClientProcessId("clientProcessId", llvm::cl::desc("Ignored"),
                                                     llvm::cl::sub(LspCmd), llvm::cl::Hidden);

int runLsp() {
#ifdef NESTOR_HAVE_LSP
  nestor::lsp::ServerOptions opts;
  int rc = nestor::lsp::runServer(stdin, llvm::outs(), opts);
  // A client that closed the pipe is not an error worth aborting over.
  llvm::outs().flush();
  llvm::outs().clear_error();
  return rc;
#else
  llvm::errs() << "nestor lsp: this binary was built without the language server (server/)\n";
  return 2;
#endif
}
} // namespace nestor::cli
