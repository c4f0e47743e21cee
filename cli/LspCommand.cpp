// `nestor lsp`: the language server on stdin/stdout (server/, docs/lsp.md).
#include "Commands.h"

#include "llvm/Support/raw_ostream.h"

#if __has_include("nestor/LspServer.h")
#include "nestor/LspServer.h"
#define NESTOR_HAVE_LSP 1
#endif

#include <cstdio>

namespace nestor::cli {
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
