# Thin wrapper over CMake for the two quick-start commands and CI.
#   make demo   install deps, build, run the main demo (DLB_Bench, 16 MPI ranks)
#   make demo-for  the bal_for benchmark against OpenMP and TBB
#   make check  install deps, build, run the whole test suite
#   make build  configure and build only (installs nothing; `make deps` does)
# Variables: BUILD_DIR, CMAKE_ARGS (e.g. CMAKE_ARGS=-DBALLAST_WERROR=ON), JOBS.
BUILD_DIR ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_ARGS ?=

.PHONY: all deps build check demo demo-for install clean

all: build

deps:
	@./scripts/install-deps

# The build itself, shared by `build` (which installs no packages) and the
# two quick-start targets (which do: deps first, then this, in order even
# under make -j).
define configure_and_build
	cmake -S . -B $(BUILD_DIR) $(CMAKE_ARGS)
	cmake --build $(BUILD_DIR) -j $(JOBS)
endef

build:
	$(configure_and_build)

check: deps
	$(configure_and_build)
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)

# The showcase: DLB_Bench on 16 local MPI ranks (sleep-emulated work) under
# every registered victim policy side by side, with a work-distribution plot
# and a Chrome/Perfetto timeline of the last one (~30 s).
demo: deps
	$(configure_and_build)
	$(BUILD_DIR)/tools/ballast dlb-bench --ranks 16 --policy all --distribution gaussian \
	  --work-mode sleep --work-per-rank 2 --tasks-per-rank 200 \
	  --plot $(BUILD_DIR)/dlb-bench-distribution.png --trace $(BUILD_DIR)/dlb-bench-trace.json

# bal_for against OpenMP and TBB schedules (~2 min).
demo-for: build
	$(BUILD_DIR)/tools/ballast for-bench

install: build
	cmake --install $(BUILD_DIR) $(if $(PREFIX),--prefix $(PREFIX),)

clean:
	rm -rf $(BUILD_DIR)
