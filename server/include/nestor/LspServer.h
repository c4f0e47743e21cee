// `nestor lsp`: the Nestor language server (LSP 3.17 over stdio).
//
// Transport and base protocol come from LLVM's llvm/Support/LSP; the pieces
// it lacks are in server/src/ProtocolExtras.h. Each open document has one
// worker thread that analyses its newest version (superseded edits are
// dropped, a running analysis is cancelled when a newer version arrives) and
// answers requests on that analysis; the precompiled preamble (the CUDA
// headers) is shared across edits through nestor::PreambleCache.
// Protocol details and the VS Code contract: docs/lsp.md.
#pragma once

#include "nestor/CompileFlags.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdio>

namespace nestor::lsp {

struct ServerOptions {
  /// Flags before the client's initializationOptions override them.
  FlagOptions flags;
};

/// Serves LSP on `in`/`out` until the `exit` notification or the end of the
/// input. Returns the exit code the LSP specification asks for: 0 when
/// `shutdown` came first, 1 otherwise.
int runServer(std::FILE *in, llvm::raw_ostream &out, const ServerOptions &opts = {});

} // namespace nestor::lsp
