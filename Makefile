# Thin wrapper over CMake/CTest. `make demo` and `make test` work on a fresh Debian machine.
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all deps build demo test sanitize bench fuzz install package format-check clean advisor-model

all: build

deps:
	@./scripts/install-deps.sh

build: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

# The demo builds only what it runs, in a tree of its own configured without
# CUDA (an empty CMAKE_CUDA_COMPILER; the main tree keeps its GPU engines):
# the ompdag CLI (with the libraries it links and the libclang front end it
# loads for `extract`) and the OMPT probe; no tests, benchmarks or fuzzers.
# Its files go to $(DEMO_BUILD)/demo.
DEMO_BUILD ?= build-demo
DEMO_TARGETS = ompdag ompdag_probe ompdag_frontend_module
demo: deps
	@cmake -S . -B $(DEMO_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CUDA_COMPILER= \
	  $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(DEMO_BUILD) -j $(JOBS) --target $(DEMO_TARGETS)
	@./scripts/demo.sh $(DEMO_BUILD)

test: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# The same tests under AddressSanitizer and UBSan, in their own build tree.
sanitize: deps
	@cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DOMPDAG_SANITIZE=ON $(CMAKE_FLAGS) >/dev/null
	@cmake --build build-asan -j $(JOBS)
	@cd build-asan && ctest --output-on-failure -j $(JOBS)

# Benchmarks print ratios against a named baseline; never part of the tests.
# GAPBS_BFS=PATH (a GAP benchmark suite bfs binary) adds BFS ratios against gapbs.
bench: build
	@./scripts/bench.sh $(BUILD) $(GAPBS_BFS)

# Retrains the task-granularity advisor on this machine (docs/advise.md);
# writes advisor/advisor-model.json, the model kept in the repository.
advisor-model: build
	@./scripts/advisor-model.sh $(BUILD)

# libFuzzer on the parsers, FUZZ_SECONDS each (needs clang): every fuzz_* target.
FUZZ_SECONDS ?= 60
fuzz: deps
	@./scripts/fuzz.sh $(FUZZ_SECONDS) build-fuzz

# Installs into PREFIX (default /usr/local) and builds the Debian package.
PREFIX ?= /usr/local
install: build
	@cmake --install $(BUILD) --prefix $(PREFIX)

package: build
	@cd $(BUILD) && cpack -G DEB

# Formatting of the sources not listed in .clang-format-pending.
format-check:
	@./scripts/check-format.sh

clean:
	rm -rf $(BUILD) $(DEMO_BUILD) build-asan build-fuzz
