# Thin wrapper over CMake. `make demo` and `make test` are all a new user needs.
BUILD_DIR ?= build
BUILD_TYPE ?= Release
JOBS ?= $(shell nproc)

.PHONY: all build deps configure demo test bench fuzz clean
FUZZ_DIR ?= build-fuzz
FUZZ_S ?= 60

all: build

deps:
	@bash tools/bootstrap.sh

$(BUILD_DIR)/build.ninja: | deps
	@cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE)

configure: deps $(BUILD_DIR)/build.ninja

build: configure
	@cmake --build $(BUILD_DIR) -j $(JOBS)

demo: build
	@./$(BUILD_DIR)/normsim run

test: build
	@ctest --test-dir $(BUILD_DIR) --output-on-failure -j $(JOBS)

bench: build
	@./$(BUILD_DIR)/bench_functional
	@bash tools/bench/bench_asic.sh

# The parsers' fuzz targets under clang's libFuzzer with ASan and UBSan, FUZZ_S seconds each.
fuzz:
	@bash tools/bootstrap.sh fuzz
	@cmake -S . -B $(FUZZ_DIR) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNORMSIM_LIBFUZZER=ON \
	  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ "-DCMAKE_CXX_FLAGS=-fsanitize=fuzzer-no-link,address,undefined" >/dev/null
	@cmake --build $(FUZZ_DIR) -j $(JOBS) -t fuzz_npy_header fuzz_config_text
	@for t in fuzz_npy_header fuzz_config_text; do mkdir -p $(FUZZ_DIR)/corpus/$$t; \
	  $(FUZZ_DIR)/tests/$$t -max_total_time=$(FUZZ_S) -print_final_stats=1 $(FUZZ_DIR)/corpus/$$t || exit 1; done

clean:
	rm -rf $(BUILD_DIR)
