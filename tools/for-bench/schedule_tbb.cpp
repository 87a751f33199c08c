// TBB baseline: tbb::parallel_for over a blocked_range with the (default)
// auto_partitioner, run inside a task_arena of P slots so that it uses
// exactly the benchmark's thread count. Same per-item kernels as bal_for.
#include <cstdio>
#include <memory>
#include <new>

#include <tbb/blocked_range.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>
#include <tbb/task_arena.h>

#include "schedules.h"

namespace {
std::unique_ptr<tbb::global_control> control;
std::unique_ptr<tbb::task_arena> arena;
}  // namespace

extern "C" int tbb_setup(int threads) {
  try {
    // The global limit defaults to the CPU count; raise it for P > CPUs.
    control.reset(new tbb::global_control(tbb::global_control::max_allowed_parallelism,
                                          static_cast<size_t>(threads)));
    arena.reset(new tbb::task_arena(threads));
    arena->initialize();
  } catch (const std::exception &e) {
    std::fprintf(stderr, "ballast-for-bench: TBB setup failed: %s\n", e.what());
    return -1;
  }
  return 0;
}

extern "C" void tbb_run(const bench_job *job) {
  arena->execute([job] {
    tbb::parallel_for(
        tbb::blocked_range<int64_t>(0, job->n),
        [job](const tbb::blocked_range<int64_t> &r) {
          int t = tbb::this_task_arena::current_thread_index();
          bench_run_range(job, r.begin(), r.end(), &job->acc[t]);
        },
        tbb::auto_partitioner());
  });
}

extern "C" void tbb_teardown(void) {
  arena.reset();
  control.reset();
}
