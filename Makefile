# Thin wrapper over CMake for the two quick-start commands and CI.
#   make demo   install deps, build, run the main demo
#   make check  install deps, build, run the whole test suite
# Variables: BUILD_DIR, CMAKE_ARGS (e.g. CMAKE_ARGS=-DBALLAST_WERROR=ON), JOBS.
BUILD_DIR ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_ARGS ?=

.PHONY: all deps build check demo install clean

all: build

deps:
	@./scripts/install-deps

build: deps
	cmake -S . -B $(BUILD_DIR) $(CMAKE_ARGS)
	cmake --build $(BUILD_DIR) -j $(JOBS)

check: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)

demo: build
	$(BUILD_DIR)/tools/ballast for-bench

install: build
	cmake --install $(BUILD_DIR) $(if $(PREFIX),--prefix $(PREFIX),)

clean:
	rm -rf $(BUILD_DIR)
