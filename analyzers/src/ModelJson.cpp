#include "nestor/ModelJson.h"

namespace nestor {

using llvm::json::Array;
using llvm::json::Object;
using llvm::json::Value;

static void addLocation(Object &o, const SourceSpan &s) {
  o["file"] = s.file;
  o["line"] = s.begin.line;
  o["column"] = s.begin.column;
  o["end_line"] = s.end.line;
  o["end_column"] = s.end.column;
}

Value toJSON(const SourceSpan &s) {
  Object o;
  addLocation(o, s);
  return o;
}

static Array strings(const std::vector<std::string> &v) {
  Array a;
  for (const auto &s : v) a.push_back(s);
  return a;
}

static Array uses(const std::vector<ConstructUse> &v) {
  Array a;
  for (const auto &u : v) a.push_back(Object{{"name", u.name}, {"line", u.span.begin.line}, {"column", u.span.begin.column}});
  return a;
}

static Array reductions(const std::vector<Reduction> &v) {
  Array a;
  for (const auto &r : v)
    a.push_back(Object{{"op", spelling(r.op)}, {"var", r.var}, {"line", r.span.begin.line}});
  return a;
}

Value toJSON(const NpPragma &p) {
  Object o;
  addLocation(o, p.span);
  o["text"] = p.text;
  o["valid"] = p.valid();
  o["loop"] = p.loopId;
  if (p.valid()) o["canonical"] = p.canonical();
  auto clauses = [](const std::vector<VarOpClause> &cs) {
    Array a;
    for (const auto &c : cs) a.push_back(Object{{"op", spelling(c.op)}, {"vars", strings(c.vars)}});
    return a;
  };
  o["reductions"] = clauses(p.reductions);
  o["scans"] = clauses(p.scans);
  o["copyin"] = strings(p.copyin);
  o["num_threads"] = p.numThreads ? Value(int64_t(*p.numThreads)) : Value(nullptr);
  o["np_type"] = p.npType == NpType::Inter ? "inter" : p.npType == NpType::Intra ? "intra" : "unspecified";
  o["sm_version"] = p.smVersion ? Value(int64_t(*p.smVersion)) : Value(nullptr);
  Array errs;
  for (const auto &e : p.errors)
    errs.push_back(Object{{"message", e.message}, {"line", e.span.begin.line}, {"column", e.span.begin.column},
                          {"end_column", e.span.end.column}});
  o["errors"] = std::move(errs);
  return o;
}

Value toJSON(const LoopSite &l, const FileModel &m) {
  Object o;
  addLocation(o, l.span);
  o["id"] = l.id;
  o["function"] = l.function;
  o["in_kernel"] = l.inKernel;
  o["kind"] = l.kind;
  o["induction_var"] = l.inductionVar.empty() ? Value(nullptr) : Value(l.inductionVar);
  o["init"] = l.init;
  o["condition"] = l.condition;
  o["step"] = l.step;
  o["lower_bound"] = l.lowerBound;
  o["upper_bound"] = l.upperBound;
  o["trip_count"] = spelling(l.tripCount);
  o["constant_trip_count"] = l.constantTripCount ? Value(*l.constantTripCount) : Value(nullptr);
  o["grid_stride"] = l.gridStride;
  o["depth"] = int64_t(l.depth);
  o["parent_loop"] = l.parentLoop;
  o["reductions"] = reductions(l.reductions);
  o["scans"] = reductions(l.scans);
  Array deps;
  for (const auto &d : l.carriedDependences)
    deps.push_back(Object{{"var", d.var}, {"reason", d.reason}, {"line", d.span.begin.line}});
  o["carried_dependences"] = std::move(deps);
  o["privatized"] = strings(l.privatized);
  o["live_ins"] = strings(l.liveIns);
  o["local_arrays"] = strings(l.localArrays);
  Array acc;
  for (const auto &a : l.accesses)
    acc.push_back(Object{{"array", a.array},
                         {"index", a.index},
                         {"write", a.isWrite},
                         {"depends_on_thread", a.dependsOnThread},
                         {"depends_on_induction", a.dependsOnInduction},
                         {"indirect", a.indirect},
                         {"thread_contiguous", a.threadContiguous},
                         {"induction_contiguous", a.inductionContiguous},
                         {"induction_stride", a.inductionStride},
                         {"same_data_as", a.sameDataAs},
                         {"element_bytes", a.elementBytes},
                         {"memory", a.memorySpace},
                         {"line", a.span.begin.line}});
  o["accesses"] = std::move(acc);
  o["barriers"] = int64_t(l.barriers.size());
  o["atomics"] = int64_t(l.atomics.size());
  o["breaks"] = int64_t(l.breaks.size());
  o["returns"] = int64_t(l.returns.size());
  o["calls"] = strings(l.calls);
  Array coll;
  for (const auto &c : l.collectives) coll.push_back(Object{{"name", c.name}, {"line", c.span.begin.line}});
  o["collectives"] = std::move(coll);
  o["independent"] = l.iterationsIndependent();
  if (auto why = l.concurrencyRefusal())
    o["not_independent_because"] = Object{{"reason", why->reason}, {"line", why->span.begin.line}};
  o["pragma"] = l.pragma >= 0 ? Value(m.pragmas[size_t(l.pragma)].text) : Value(nullptr);
  return o;
}

Value toJSON(const LaunchSite &l) {
  Object o;
  addLocation(o, l.span);
  o["id"] = l.id;
  o["device_side"] = l.deviceSide;
  o["parent"] = l.parent;
  o["child"] = l.child;
  o["grid"] = l.grid;
  o["block"] = l.block;
  o["grid_value"] = l.gridValue ? Value(int64_t(*l.gridValue)) : Value(nullptr);
  o["block_value"] = l.blockValue ? Value(int64_t(*l.blockValue)) : Value(nullptr);
  o["shared_mem"] = l.sharedMem;
  o["stream"] = l.stream;
  o["args"] = strings(l.args);
  o["threads"] = l.threads ? Value(*l.threads) : Value(nullptr);
  o["threads_how"] = l.threadsHow;
  Array loops;
  for (int id : l.enclosingLoops) loops.push_back(id);
  o["enclosing_loops"] = std::move(loops);
  o["in_branch"] = l.inBranch;
  o["every_thread_may_launch"] = l.everyThreadMayLaunch;
  o["serializable"] = l.serializable;
  o["reasons"] = strings(l.reasons);
  o["followed_by_device_sync"] = l.followedByDeviceSync;
  o["child_at_least"] = l.childAtLeast ? Value(*l.childAtLeast) : Value(nullptr);
  o["child_at_most"] = l.childAtMost ? Value(*l.childAtMost) : Value(nullptr);
  return o;
}

Value toJSON(const RecursionShape &r) {
  auto orNull = [](const std::string &s) { return s.empty() ? Value(nullptr) : Value(s); };
  Object o{{"supported", r.supported}, {"self_launch", r.selfLaunch}};
  o["reason"] = orNull(r.reason);
  o["reason_line"] = r.reason.empty() ? Value(nullptr) : Value(int64_t(r.reasonSpan.begin.line));
  o["node_param"] = orNull(r.nodeParam);
  o["offsets"] = orNull(r.offsets);
  o["children"] = orNull(r.children);
  o["slot_var"] = orNull(r.slotVar);
  o["child_var"] = orNull(r.childVar);
  o["mapping"] = orNull(r.mapping);
  o["condition"] = orNull(r.condition);
  o["varying_params"] = strings(r.varyingParams);
  o["depth_param"] = orNull(r.depthParam);
  o["depth_bound"] = orNull(r.depthBound);
  o["post_order_launch"] = r.postOrderLaunch;
  o["post_order_kernel"] = orNull(r.postOrderKernel);
  Array hosts;
  for (int id : r.hostLaunches) hosts.push_back(id);
  o["host_launches"] = std::move(hosts);
  return o;
}

Value toJSON(const Kernel &k) {
  Object o;
  addLocation(o, k.nameSpan);
  o["name"] = k.name;
  Array params;
  for (const auto &p : k.params) params.push_back(Object{{"name", p.name}, {"type", p.type}});
  o["params"] = std::move(params);
  o["launch_bounds"] = k.launchBoundsMaxThreads ? Value(*k.launchBoundsMaxThreads) : Value(nullptr);
  Array shared;
  for (const auto &s : k.shared)
    shared.push_back(Object{{"name", s.name}, {"type", s.type}, {"bytes", int64_t(s.sizeBytes)}, {"extern", s.isExtern}});
  o["shared"] = std::move(shared);
  Array locals;
  for (const auto &a : k.localArrays)
    locals.push_back(Object{{"name", a.name}, {"element_type", a.elementType}, {"elements", int64_t(a.elements)},
                            {"bytes", int64_t(a.sizeBytes)}});
  o["local_arrays"] = std::move(locals);
  o["barriers"] = uses(k.barriers);
  o["warp_intrinsics"] = uses(k.warpIntrinsics);
  o["cooperative_groups"] = uses(k.cooperativeGroups);
  o["atomics"] = uses(k.atomics);
  o["device_syncs"] = uses(k.deviceSyncs);
  o["recursive"] = k.isRecursive;
  o["branches_on_gather"] = k.branchesOnGather;
  if (k.recursion) o["recursion"] = toJSON(*k.recursion);
  Array lb, loops;
  for (int id : k.launchedBy) lb.push_back(id);
  for (int id : k.loops) loops.push_back(id);
  o["launched_by"] = std::move(lb);
  o["loops"] = std::move(loops);
  if (!k.externalLaunches.empty()) {
    Array ext;
    for (const ExternalLaunch &el : k.externalLaunches)
      ext.push_back(Object{{"file", el.file}, {"line", el.site.span.begin.line}, {"grid", el.site.grid},
                           {"block", el.site.block}, {"parent", el.site.parent}});
    o["external_launches"] = std::move(ext);
  }
  return o;
}

Value toJSON(const FileModel &m) {
  Array kernels, loops, launches, pragmas, errors;
  for (const auto &k : m.kernels) kernels.push_back(toJSON(k));
  for (const auto &l : m.loops) loops.push_back(toJSON(l, m));
  for (const auto &l : m.launches) launches.push_back(toJSON(l));
  for (const auto &p : m.pragmas) pragmas.push_back(toJSON(p));
  for (const auto &d : m.parseDiagnostics) {
    Object o;
    addLocation(o, d.span);
    o["severity"] = d.severity;
    o["message"] = d.message;
    errors.push_back(std::move(o));
  }
  return Object{{"file", m.file},
                {"kernels", std::move(kernels)},
                {"loops", std::move(loops)},
                {"launches", std::move(launches)},
                {"pragmas", std::move(pragmas)},
                {"parse_errors", std::move(errors)},
                {"dropped_flags", strings(m.droppedFlags)},
                {"fallback_cuda_headers", m.usedFallbackCudaHeaders},
                {"compilation_side", m.compilationSide}};
}

} // namespace nestor
