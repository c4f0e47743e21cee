// CUDA-NP planner (NpPlanner.h): the parallel loop itself, strided over the
// master and its slaves or as a sub-warp for_each_index, with its reductions,
// scans and live-out values (cuda-np.md 3.2, 3.5, 3.6).
#include "NpPlanner.h"

using namespace clang;

namespace nestor::loops {

bool NpPlanner::parallelLoop(const ForStmt *fs, const LoopSite &ls, bool &masterWrote) {
  std::string why;
  auto parts = forParts(fs, ctx_, why);
  if (!parts) return fail(why, ls.headerSpan);
  const unsigned S = cfg_.slaves;
  const std::string Ss = std::to_string(S);
  const std::string in = indentOf(fs);
  const VarDecl *iv = parts->iv;
  const std::string ivName = iv->getNameAsString();

  // The loop variable must not be live after the loop.
  if (!parts->ivDeclared) {
    bool usedAfter = false;
    forEachNode(body_, [&](const Stmt *s) {
      if (auto *dr = dyn_cast<DeclRefExpr>(s); dr && dr->getDecl() == iv && beginOf(dr) >= endOf(fs)) {
        // a later loop that re-initialises it is fine
        usedAfter = true;
      }
    });
    if (usedAfter) {
      bool reinit = true;
      forEachNode(body_, [&](const Stmt *s) {
        auto *dr = dyn_cast<DeclRefExpr>(s);
        if (!dr || dr->getDecl() != iv || beginOf(dr) < endOf(fs)) return;
        bool ok = false;
        for (auto &[other, ol] : parallel_) {
          if (other == fs) continue;
          std::string w;
          auto op = forParts(other, ctx_, w);
          if (op && op->iv == iv && beginOf(dr) >= beginOf(other) && beginOf(dr) < endOf(other)) ok = true;
        }
        if (!ok) reinit = false;
      });
      if (!reinit)
        return fail("the loop variable '" + ivName + "' is used after the loop; its final value differs per slave",
                    ls.headerSpan);
    }
  }

  // Reductions and scans: the pragma's clauses, else the inferred ones.
  std::vector<VarOpClause> reds, scans;
  if (ls.pragma >= 0) {
    reds = m_.pragmas[size_t(ls.pragma)].reductions;
    scans = m_.pragmas[size_t(ls.pragma)].scans;
  } else {
    NpPragma p = inferredPragma(ls);
    reds = p.reductions;
    scans = p.scans;
  }
  // The clause names a variable the loop refers to (several scopes may
  // declare the same name).
  const StatementEffects fx = effects(fs);
  auto findLocal = [&](const std::string &n) -> const VarDecl * {
    for (const auto *set : {&fx.writes, &fx.reads})
      for (const VarDecl *vd : *set)
        if (vd->getNameAsString() == n && masterOnly_.count(vd)) return vd;
    return nullptr;
  };
  struct Red { const VarDecl *vd; ReductionOp op; };
  std::vector<Red> redVars, scanVars;
  for (auto &c : reds)
    for (auto &v : c.vars) {
      const VarDecl *vd = findLocal(v);
      if (!vd) return fail("reduction variable '" + v + "' is not a scalar local declared before the loop, outside the parallel loops", ls.headerSpan);
      if (!vd->getType()->isArithmeticType()) return fail("reduction variable '" + v + "' is not arithmetic", ls.headerSpan);
      redVars.push_back({vd, c.op});
    }
  for (auto &c : scans)
    for (auto &v : c.vars) {
      const VarDecl *vd = findLocal(v);
      if (!vd) return fail("scan variable '" + v + "' is not a scalar local declared before the loop, outside the parallel loops", ls.headerSpan);
      scanVars.push_back({vd, c.op});
    }
  if (scanVars.size() > 1) return fail("more than one scan variable in one loop", ls.headerSpan);
  if (!scanVars.empty() && cfg_.form != LoopForm::Strided) return fail("scan in a sub-warp loop", ls.headerSpan);

  std::set<std::string> privatized(ls.privatized.begin(), ls.privatized.end());
  std::vector<const VarDecl *> privVars;
  for (const VarDecl *vd : fx.writes) {
    if (vd == iv || fx.declared.count(vd)) continue;
    bool isRed = false;
    for (auto &r : redVars) isRed |= r.vd == vd;
    for (auto &r : scanVars) isRed |= r.vd == vd;
    if (isRed) continue;
    if (arrays_.count(vd)) continue;
    if (privatized.count(vd->getNameAsString()) && masterOnly_.count(vd)) {
      if (!vd->getType()->isArithmeticType())
        return fail("privatized variable '" + vd->getNameAsString() + "' is not arithmetic", ls.headerSpan);
      privVars.push_back(vd);
      continue;
    }
    return fail("the loop writes '" + vd->getNameAsString() +
                "', which is neither a reduction, a scan, nor written first by every iteration", ls.headerSpan);
  }

  // Before the loop: make what the master wrote visible, broadcast live-ins.
  std::string before, after;
  std::string head = "// " + cfg_.label + ": iterations spread over the master and its slaves";
  if (ls.pragma >= 0) {
    const NpPragma &p = m_.pragmas[size_t(ls.pragma)];
    replace(p.span.begin.offset, p.span.end.offset, "// (was: #pragma " + p.text + ")");
  } else {
    head += " (inferred: " + inferredPragma(ls).canonical() + ")";
  }
  before += head + "\n" + in;
  const bool syncBefore = masterWrote;
  if (masterWrote) {
    before += G() + "::sync(); // the slaves read what the masters wrote\n" + in;
    masterWrote = false;
  }
  std::vector<const VarDecl *> bcast;
  for (const VarDecl *vd : fx.reads) {
    if (fx.declared.count(vd) || vd == iv) continue;
    auto it = masterOnly_.find(vd);
    if (it == masterOnly_.end() || !it->second) continue;
    bool isRed = false;
    for (auto &r : redVars) isRed |= r.vd == vd;
    for (auto &p : privVars) isRed |= p == vd;
    if (isRed) continue;
    bcast.push_back(vd);
  }
  std::sort(bcast.begin(), bcast.end(), [&](auto *a, auto *b) { return a->getName() < b->getName(); });
  for (const VarDecl *vd : bcast) {
    if (vd->getType().isConstQualified())
      return fail("const '" + vd->getNameAsString() + "' is computed by the master only and cannot be broadcast", ls.headerSpan);
    before += vd->getNameAsString() + " = " + G() + "::read_from_master(" + vd->getNameAsString() + "); // live-in (3.1)\n" + in;
    masterOnly_[vd] = false;
  }
  before += "{\n" + in;
  for (auto &r : redVars) {
    std::string n = r.vd->getNameAsString(), ty = typeText(r.vd->getType(), ctx_);
    before += "  const " + ty + " nestor_" + n + "_in = " + n + ";\n" + in;
    before += "  " + n + " = " + opFunctor(r.op) + "::identity<" + ty + ">(); // this thread's partial\n" + in;
    after += "\n" + in + "  " + n + " = " + opFunctor(r.op) + "{}(nestor_" + n + "_in, " + G() + "::reduce<" +
             opFunctor(r.op) + ">(" + n + ")); // reduction(" + spelling(r.op) + ":" + n + ") (3.2)";
  }
  if (!privVars.empty()) before += "  const long long nestor_none = -0x7fffffffffffffffLL - 1;\n" + in;
  if (!privVars.empty()) before += "  long long nestor_last_iter = nestor_none; // the last iteration this thread ran\n" + in;
  for (const VarDecl *vd : privVars) {
    std::string n = vd->getNameAsString(), ty = typeText(vd->getType(), ctx_);
    after += "\n" + in + "  { // '" + n + "' keeps the value of the last iteration (3.2): only its owner adds it";
    after += "\n" + in + "    const long long nestor_last = " + G() + "::reduce<nestor::op::max>(nestor_last_iter);";
    after += "\n" + in + "    const " + ty + " nestor_value = " + G() + "::reduce<nestor::op::add>(nestor_last_iter == nestor_last ? " + n +
             " : " + ty + "(0));";
    after += "\n" + in + "    if (nestor_last != nestor_none) " + n + " = nestor_value;";
    after += "\n" + in + "  }";
  }
  after += "\n" + in + "}";
  if (fx.memWrite) {
    after += "\n" + in + G() + "::sync(); // the masters read what the slaves wrote";
  }
  const std::string active = activePrefix();

  if (cfg_.form == LoopForm::SubwarpForEach) {
    SourceSpan where;
    auto mr = matchMapReduce(tu_, ls, why, where);
    if (!mr) return fail(why, where);
    // The tile's lanes hold the same (broadcast) values, so the lambda may capture them.
    const std::string b = editedExpr(mr->beginExpr), e = editedExpr(mr->endExpr);
    // The mapped value (a conditional update's `((c) ? (x) : (T)0)`) with the thread-id renames applied.
    const std::string mapped = mr->mappedText([&](unsigned from, unsigned to) { return editedText(from, to); });
    // Predicated-off threads pass an empty range without evaluating the bounds.
    const std::string range = preds_.empty() || (!readsMemory(mr->beginExpr) && !readsMemory(mr->endExpr))
                                  ? b + ", " + (preds_.empty() ? e : "(" + predicate() + ") ? " + e + " : " + b)
                                             : "(" + predicate() + ") ? (" + b + ") : 0, (" + predicate() + ") ? (" + e + ") : 0";
    std::string call = mr->acc + " = nestor::subwarp::for_each_index<" + Ss + ">(" + range + ", [=](" + mr->ivType +
                       " " + mr->iv + ") { return " + mapped + "; }, " + opFunctor(mr->op) + "{}, " +
                       mr->acc + ");";
    // for_each_index reduces over the tile itself.
    before = head + "\n" + in;
    if (syncBefore) before += G() + "::sync(); // the slaves read what the masters wrote\n" + in;
    for (const VarDecl *vd : bcast)
      before += vd->getNameAsString() + " = " + G() + "::read_from_master(" + vd->getNameAsString() + "); // live-in\n" + in;
    replaceAbsorbing(beginOf(fs), endOf(fs), before + call);
    return true;
  }

  if (!scanVars.empty()) {
    // Padded rounds so that every member steps the scanner together (runtime-loops.md).
    if (parts->step != 1) return fail("a scan loop must have step 1", ls.headerSpan);
    if (!parts->ivDeclared) return fail("a scan loop must declare its variable in the header", ls.headerSpan);
    auto *cs = dyn_cast<CompoundStmt>(fs->getBody());
    std::vector<const Stmt *> stmts;
    if (cs) stmts.assign(cs->body_begin(), cs->body_end());
    else stmts.push_back(fs->getBody());
    const VarDecl *acc = scanVars[0].vd;
    size_t k = 0;
    std::optional<std::pair<ReductionOp, const Expr *>> upd;
    for (; k < stmts.size(); ++k)
      if ((upd = matchUpdate(stmts[k], acc))) break;
    if (!upd) return fail("no `" + acc->getNameAsString() + " OP= x` update at the top level of the loop body", ls.bodySpan);
    if (upd->first != scanVars[0].op) return fail("the scan update's operator differs from the clause", ls.bodySpan);
    std::string ty = typeText(acc->getType(), ctx_), ivTy = typeText(iv->getType(), ctx_);
    std::string op = opFunctor(upd->first);
    std::string n = acc->getNameAsString();
    std::string lower = editedExpr(parts->lower), upper = editedExpr(parts->upper);
    std::string out = before;
    out += "  " + G() + "::scanner<" + op + ", " + ty + "> nestor_scan(" + n + "); // scan(" + spelling(upd->first) +
           ":" + n + ") in iteration order (3.2)\n" + in;
    if (preds_.empty() || (!readsMemory(parts->lower) && !readsMemory(parts->upper)))
      out += "  const long long nestor_lo = (long long)(" + lower + "), nestor_hi = (long long)(" + upper + ")" +
             (parts->inclusive ? " + 1" : "") + ";\n" + in;
    else // predicated-off threads do not evaluate the bounds
      out += "  const long long nestor_lo = " + predicate() + " ? (long long)(" + lower + ") : 0LL, nestor_hi = " +
             predicate() + " ? (long long)(" + upper + ")" + (parts->inclusive ? " + 1" : "") + " : 0LL;\n" + in;
    out += "  const long long nestor_rounds = " + G() + "::loop_rounds(" + (preds_.empty() ? "" : notPredicate() + " ? 0LL : ") +
           "(nestor_hi > nestor_lo ? nestor_hi - nestor_lo : 0LL));\n" + in;
    out += "  for (long long nestor_round = 0; nestor_round < nestor_rounds; ++nestor_round) {\n" + in;
    out += "    " + ivTy + " " + ivName + " = (" + ivTy + ")(nestor_lo + nestor_round * " + Ss + " + " + G() + "::slave_id());\n" + in;
    out += "    const bool nestor_valid = " + active + "(long long)" + ivName + " < nestor_hi;\n" + in;
    // Leading declarations compute the scanned value; the statements between
    // them and the update (exclusive order: `out[i] = acc; acc += x;`) see
    // the value before this iteration's update, those after it the value after.
    size_t d = 0;
    while (d < k && isa<DeclStmt>(stmts[d])) ++d;
    // A declaration of several variables (`float x = a[j], y = x * s;`) is
    // written as one declaration per declarator, in order: each initialiser
    // still sees the ones before it.
    for (size_t j = 0; j < d; ++j)
      for (const Decl *dd : cast<DeclStmt>(stmts[j])->decls()) {
        const VarDecl *vd = dyn_cast<VarDecl>(dd);
        if (!vd || !vd->getInit() || zeroOf(vd->getType(), ctx_).empty())
          return fail("only scalar declarations may precede the scan update in the loop body", spanOf(stmts[j], ctx_));
        if (effects(vd->getInit()).reads.count(acc))
          return fail("'" + vd->getNameAsString() + "' reads the scan variable before its update: not a scan",
                      spanOf(stmts[j], ctx_));
        std::string unwrappable;
        const Expr *init = wrappableInit(vd, unwrappable);
        if (!init) return fail(unwrappable, spanOf(stmts[j], ctx_));
        out += "    " + typeText(vd->getType(), ctx_) + " " + vd->getNameAsString() + " = nestor_valid ? (" +
               editedExpr(init) + ") : " + zeroOf(vd->getType(), ctx_) + ";\n" + in;
      }
    const StatementEffects fv = effects(upd->second);
    if (fv.reads.count(acc)) return fail("the scanned value reads the scan variable", spanOf(upd->second, ctx_));
    // The scanned values are computed before the exclusive-order statements
    // run: they must not read what those statements write.
    for (size_t j = d; j < k; ++j) {
      const SourceSpan at = spanOf(stmts[j], ctx_);
      if (isa<DeclStmt>(stmts[j]))
        return fail("a declaration between the use of the scan variable and its update; move it before the use", at);
      StatementEffects fe = effects(stmts[j]);
      if (fe.writes.count(acc)) return fail("the loop writes the scan variable outside its update", at);
      if (fe.ret || fe.jump || fe.barrier || fe.warp || fe.launch || fe.lambda)
        return fail("a statement before the scan update jumps, returns or synchronises", at);
      for (const VarDecl *w : fe.writes)
        if (fv.reads.count(w))
          return fail("the scanned value reads '" + w->getNameAsString() + "', which the statement before the update writes", at);
      if ((fe.memWrite || fe.impureCall) && (fv.memRead || fv.impureCall) && !disjointMemory(upd->second, stmts[j]))
        return fail("the scanned value reads memory that the statement before the update may write; read it into a "
                    "local first (`T v = ...; out[i] = acc; acc += v;`) or mark the pointers __restrict__", at);
    }
    for (size_t j = k + 1; j < stmts.size(); ++j)
      if (effects(stmts[j]).writes.count(acc))
        return fail("the loop writes the scan variable outside its update", spanOf(stmts[j], ctx_));
    const std::string value = "nestor_valid ? (" + ty + ")(" + editedExpr(upd->second) + ") : " + op + "::identity<" + ty + ">()";
    if (d == k) {
      out += "    " + n + " = nestor_scan.step(" + value + ").inclusive;\n" + in;
    } else {
      out += "    const auto nestor_step = nestor_scan.step(" + value + ");\n" + in;
      out += "    if (nestor_valid) {\n" + in + "      " + n + " = nestor_step.exclusive; // before this iteration's update\n";
      for (size_t j = d; j < k; ++j) out += in + "      " + editedText(stmts[j]) + "\n";
      out += in + "    }\n" + in + "    " + n + " = nestor_step.inclusive;\n" + in;
    }
    if (k + 1 < stmts.size()) {
      out += "    if (nestor_valid) {\n";
      for (size_t j = k + 1; j < stmts.size(); ++j) out += in + "      " + editedText(stmts[j]) + "\n";
      out += in + "    }\n" + in;
    }
    out += "  }\n" + in + "  " + n + " = nestor_scan.total();";
    out += after;
    replaceAbsorbing(beginOf(fs), endOf(fs), out);
    return true;
  }

  // Strided distribution: the bounds stay as written, so runtime trip counts hold.
  insert(beginOf(fs), before);
  SourceSpan initSpan = spanOf(parts->initExpr, ctx_);
  std::string stepTxt = parts->step == 1 ? "" : " * " + std::to_string(parts->step);
  // Inactive threads (predicated) must not evaluate the bounds: they may
  // index past the end of an array (e.g. rowPtr[row] for row >= n).
  const std::string ivZero = "(" + typeText(iv->getType(), ctx_) + ")0";
  const bool guardInit = !preds_.empty() && readsMemory(parts->initExpr);
  insert(initSpan.begin.offset, guardInit ? "(" + predicate() + " ? (" : "(");
  insert(initSpan.end.offset, (guardInit ? ") : " + ivZero + ") + " : ") + ") + G() + "::slave_id()" + stepTxt);
  SourceSpan condSpan = spanOf(fs->getCond(), ctx_);
  if (!preds_.empty()) {
    insert(condSpan.begin.offset, active + "(");
    insert(condSpan.end.offset, ")");
  }
  SourceSpan incSpan = spanOf(fs->getInc(), ctx_);
  replace(incSpan.begin.offset, incSpan.end.offset,
          ivName + " += " + G() + "::slave_size" + (parts->step == 1 ? "" : " * " + std::to_string(parts->step)));
  if (!privVars.empty()) {
    if (auto *cs = dyn_cast<CompoundStmt>(fs->getBody()))
      insert(spanOf(cs->getLBracLoc(), ctx_).begin.offset + 1, " nestor_last_iter = (long long)" + ivName + ";");
    else {
      insert(beginOf(fs->getBody()), "{ nestor_last_iter = (long long)" + ivName + "; ");
      insert(endOf(fs->getBody()), " }");
    }
  }
  insert(endOf(fs), after);
  return true;
}

} // namespace nestor::loops
