# The entry points a fresh machine needs (README.md):
#   make demo   installs what is missing, builds, lints the bundled examples
#   make test   installs what is missing, builds everything, runs every test
#   make vsix   packages the VS Code extension: $(BUILD)/nestor.vsix
# Everything else is plain CMake: see README.md.
BUILD ?= build
JOBS ?= 2
CMAKE_FLAGS ?=
NESTOR = $(BUILD)/cli/nestor

.PHONY: demo test test-asan build bootstrap e2e-deps configure clean vsix

bootstrap:
	@scripts/bootstrap

e2e-deps:
	@scripts/install-e2e-deps

# The VS Code extension as a .vsix (code --install-extension $(BUILD)/nestor.vsix);
# Node and the npm packages come through scripts/package-vsix (npm registry only).
vsix:
	@scripts/package-vsix --out $(BUILD)/nestor.vsix

$(BUILD)/build.ninja:
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS)

configure: bootstrap $(BUILD)/build.ninja

build: configure
	cmake --build $(BUILD) -j $(JOBS)

demo: bootstrap configure
	cmake --build $(BUILD) -j $(JOBS) --target nestor
	$(NESTOR) lint --fail-on never examples/graph examples/loops
	@echo
	@echo "Model of one example (nestor analyze):"
	$(NESTOR) analyze examples/loops/tmv.cu examples/graph/neighbour_sum.cu
	@echo
	@echo "A rewrite (nestor rewrite --diff):"
	$(NESTOR) rewrite examples/loops/tmv.cu --at 16 --apply np-pragma --diff

# One result for the whole suite: the sanitizer/fuzz suite runs even when the
# main build or suite failed, and `make test` fails when either did.
TEST_MAIN ?= $(MAKE) --no-print-directory build && cd $(BUILD) && ctest --output-on-failure -j $(JOBS) --timeout 1200
TEST_ASAN ?= $(MAKE) --no-print-directory test-asan
test: bootstrap e2e-deps
	@main=0; asan=0; \
	( $(TEST_MAIN) ) || main=$$?; \
	( $(TEST_ASAN) ) || asan=$$?; \
	echo; \
	if [ $$main -eq 0 ]; then echo "make test: main suite passed"; else echo "make test: main suite FAILED (exit $$main)"; fi; \
	if [ $$asan -eq 0 ]; then echo "make test: sanitizer/fuzz suite passed"; else echo "make test: sanitizer/fuzz suite FAILED (exit $$asan)"; fi; \
	test $$main -eq 0 && test $$asan -eq 0

# The unit, CLI and LSP tests again under ASan+UBSan, and each fuzz target
# for a fixed number of runs over its corpus (CMakePresets.json `asan`,
# build-asan/, clang-22; docs/fuzzing.md).
test-asan: bootstrap
	cmake --preset asan
	cmake --build --preset asan -j $(JOBS)
	ctest --preset asan -j $(JOBS)

clean:
	rm -rf $(BUILD) build-asan
