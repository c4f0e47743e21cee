#include "Commands.h"
#include "llvm/Support/raw_ostream.h"
namespace nestor::cli {
int runLsp() {
  llvm::errs() << "nestor lsp: the language server is not built into this binary yet\n";
  return 2;
}
} // namespace nestor::cli
