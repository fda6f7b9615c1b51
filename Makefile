# Thin wrapper over CMake. `make demo` and `make test` are all a new user needs.
BUILD_DIR ?= build
BUILD_TYPE ?= Release
JOBS ?= $(shell nproc)

.PHONY: all build deps configure demo test bench clean

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

clean:
	rm -rf $(BUILD_DIR)
