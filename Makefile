# Thin wrapper over CMake. `make demo` and `make test` are all a new user needs.
BUILD_DIR ?= build
BUILD_TYPE ?= Release
JOBS ?= $(shell nproc)

.PHONY: all build deps configure demo test test-slow install bench fuzz sanitize sanitize-ci clean
FUZZ_DIR ?= build-fuzz
FUZZ_S ?= 60
SAN_DIR ?= build-sanitize
# SystemC runs processes on QuickThreads stacks that ASan is not told about
# (docs/RELIABILITY.md, "Sanitizers"): no fake stacks for use-after-return, and
# LeakSanitizer does not scan thread stacks (their recorded bounds are wrong).
SAN_ENV = ASAN_OPTIONS=detect_leaks=1:detect_stack_use_after_return=0:allocator_may_return_null=1:strict_string_checks=1 \
  LSAN_OPTIONS=use_stacks=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
FUZZ_TARGETS = fuzz_npy_header fuzz_config_text fuzz_arch_yaml fuzz_gpu_yaml fuzz_overrides fuzz_golden_index fuzz_sweep_journal fuzz_regress_baseline fuzz_calibrate_records fuzz_ncu_profile

all: build

deps:
	@bash tools/bootstrap.sh

$(BUILD_DIR)/build.ninja: | deps
	@cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE)

configure: deps $(BUILD_DIR)/build.ninja

build: configure
	@cmake --build $(BUILD_DIR) -j $(JOBS)

# Only what the demo runs, quietly (tools/demo.sh).
demo: deps
	@bash tools/demo.sh $(BUILD_DIR) $(BUILD_TYPE) $(JOBS)

# Every test but the slow ones (under 5 minutes on 2 cores), each run's
# temporary files under one folder of its own, removed after.
test: build
	@bash tools/run_tests.sh $(BUILD_DIR) $(JOBS) -LE slow

# The slow ones (label slow: the exhaustive searches, synthesis, the
# calibration from records); .ci/run runs them after `make test`.
test-slow: build
	@bash tools/run_tests.sh $(BUILD_DIR) $(JOBS) -L slow

# make install PREFIX=DIR (default /usr/local): bin/normsim, its shipped
# configs, docs, the man page, bash completion and the Python package.
PREFIX ?= /usr/local
install: build
	@cmake --install $(BUILD_DIR) --prefix $(PREFIX)

bench: build
	@./$(BUILD_DIR)/bench_functional
	@bash tools/bench/bench_asic.sh

# The whole CTest suite built with AddressSanitizer and UBSan (docs/RELIABILITY.md).
sanitize: deps
	@cmake -S . -B $(SAN_DIR) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNORMSIM_SANITIZE=ON -DNORMSIM_UNITY_BUILD=OFF >/dev/null
	@cmake --build $(SAN_DIR) -j $(JOBS)
	@$(SAN_ENV) ctest --test-dir $(SAN_DIR) --output-on-failure -j $(JOBS)

# CI's share of it: the tests labelled ci_sanitize (numbers, configs, parsers;
# no SystemC or Verilator build), under ASan and UBSan.
sanitize-ci: deps
	@cmake -S . -B $(SAN_DIR) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNORMSIM_SANITIZE=ON -DNORMSIM_UNITY_BUILD=OFF >/dev/null
	@cmake --build $(SAN_DIR) -j $(JOBS) -t ci_sanitize
	@$(SAN_ENV) ctest --test-dir $(SAN_DIR) --output-on-failure -j $(JOBS) -L ci_sanitize

# The parsers' fuzz targets under clang's libFuzzer with ASan and UBSan, FUZZ_S
# seconds each: the committed corpus, the shipped files as seeds, the schema's
# keys as the dictionary (tools/fuzz/run_fuzz.sh).
fuzz:
	@bash tools/bootstrap.sh fuzz
	@cmake -S . -B $(FUZZ_DIR) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNORMSIM_LIBFUZZER=ON \
	  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ "-DCMAKE_CXX_FLAGS=-fsanitize=fuzzer-no-link,address,undefined" >/dev/null
	@cmake --build $(FUZZ_DIR) -j $(JOBS) -t config_keys $(FUZZ_TARGETS) $(addsuffix _driver,$(FUZZ_TARGETS))
	@bash tools/fuzz/run_fuzz.sh $(FUZZ_DIR) $(FUZZ_S) $(FUZZ_TARGETS)

clean:
	rm -rf $(BUILD_DIR)
