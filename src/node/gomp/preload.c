/* libballast-gomp.so: unmodified OpenMP programs built with GCC follow
 * their node registry mask, lending included (docs/node.md, "Lending").
 *
 * libgomp has no OMPT, but GCC compiles every construct that opens a
 * parallel region into a call of an exported libgomp entry: `parallel`
 * into GOMP_parallel, `parallel for` with a dynamic, guided or runtime
 * schedule into GOMP_parallel_loop_* (a static one into GOMP_parallel),
 * `parallel sections` into GOMP_parallel_sections. Loaded with LD_PRELOAD,
 * this library defines them: at each region it polls the registry
 * (attaching on the first region, to BALLAST_NODE_REGISTRY, with its
 * defaults) and, when the program left the team size to the runtime
 * (num_threads 0), asks for one thread per CPU of the current mask, then
 * calls libgomp's own entry. A team's size is fixed for its region, so
 * CPUs lent during a region are used from the next.
 *
 * What it does not reach (docs/node.md lists it): a num_threads clause
 * (left alone), a statically linked libgomp, Clang's libomp, the
 * GOMP_parallel_start/end pair of programs built by GCC before 4.9;
 * threads are not bound within the mask. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ballast/error.h>
#include <ballast/node.h>

typedef void (*gomp_parallel_fn)(void (*fn)(void *), void *data, unsigned num_threads,
                                 unsigned flags);
typedef void (*gomp_loop_fn)(void (*fn)(void *), void *data, unsigned num_threads, long start,
                             long end, long incr, long chunk_size, unsigned flags);
typedef void (*gomp_loop_runtime_fn)(void (*fn)(void *), void *data, unsigned num_threads,
                                     long start, long end, long incr, unsigned flags);
typedef void (*gomp_sections_fn)(void (*fn)(void *), void *data, unsigned num_threads,
                                 unsigned count, unsigned flags);

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static bal_node_proc *g_proc;            /* NULL: not attached, follow nothing */
static pthread_mutex_t g_poll = PTHREAD_MUTEX_INITIALIZER; /* one poll at a time (node.h) */

/* libgomp's own entry `name` (the next definition after ours), copied into
 * *out, or NULL when this libgomp has none (older ones lack the newest
 * entries): POSIX guarantees a function's address survives the round trip
 * through void *, ISO C does not, hence the copy rather than a cast. */
static void resolve(const char *name, void *out, size_t size) {
  void *sym = dlsym(RTLD_NEXT, name);
  memcpy(out, &sym, size);
}

/* A program calls an entry only if it linked against a libgomp that has
 * it, so a miss means libgomp is not the next library defining it. */
static void missing(const char *name) {
  fprintf(stderr, "libballast-gomp: libgomp's %s not found (is the program an OpenMP program "
                  "built with GCC?)\n", name);
  abort();
}

/* Every entry, resolved once by init (X-macro lists, below). */
#define BAL_GOMP_LOOPS(X)                                                                     \
  X(GOMP_parallel_loop_static)                                                                \
  X(GOMP_parallel_loop_dynamic)                                                               \
  X(GOMP_parallel_loop_guided)                                                                \
  X(GOMP_parallel_loop_nonmonotonic_dynamic)                                                  \
  X(GOMP_parallel_loop_nonmonotonic_guided)
#define BAL_GOMP_LOOPS_RUNTIME(X)                                                             \
  X(GOMP_parallel_loop_runtime)                                                               \
  X(GOMP_parallel_loop_nonmonotonic_runtime)                                                  \
  X(GOMP_parallel_loop_maybe_nonmonotonic_runtime)
static gomp_parallel_fn real_GOMP_parallel;
static gomp_sections_fn real_GOMP_parallel_sections;
#define BAL_GOMP_LOOP_PTR(name) static gomp_loop_fn real_##name;
#define BAL_GOMP_LOOP_RUNTIME_PTR(name) static gomp_loop_runtime_fn real_##name;
BAL_GOMP_LOOPS(BAL_GOMP_LOOP_PTR)
BAL_GOMP_LOOPS_RUNTIME(BAL_GOMP_LOOP_RUNTIME_PTR)
#define BAL_GOMP_RESOLVE(name) resolve(#name, &real_##name, sizeof real_##name);

static void init(void) {
  BAL_GOMP_RESOLVE(GOMP_parallel)
  BAL_GOMP_RESOLVE(GOMP_parallel_sections)
  BAL_GOMP_LOOPS(BAL_GOMP_RESOLVE)
  BAL_GOMP_LOOPS_RUNTIME(BAL_GOMP_RESOLVE)
  bal_node_attach_config cfg;
  bal_node_attach_config_init(&cfg);
  int rc = bal_node_attach(&cfg, &g_proc);
  if (rc != BAL_OK) {
    g_proc = NULL;
    fprintf(stderr, "libballast-gomp: not following a node registry: attach to '%s' failed: %s\n",
            getenv(BAL_NODE_REGISTRY_ENV) ? getenv(BAL_NODE_REGISTRY_ENV) : "(BALLAST_NODE_REGISTRY unset)",
            bal_strerror(rc));
  }
}

/* The team size for a region the program left to the runtime: the mask's
 * CPU count at this poll (0: ask the runtime, as without us). A poll that
 * another thread holds (nested regions) is not waited for. */
static unsigned team_size(void) {
  if (!g_proc || pthread_mutex_trylock(&g_poll) != 0) return 0;
  bal_node_mask m;
  int rc = bal_node_poll(g_proc, &m, NULL);
  pthread_mutex_unlock(&g_poll);
  if (rc != BAL_OK) return 0;
  int64_t n = bal_node_mask_count(&m);
  return n > 0 ? (unsigned)n : 1u;
}

/* The entries, declared as libgomp declares them (libgomp_g.h, not
 * installed), each resolved once on first use. */
#define BAL_GOMP_API __attribute__((visibility("default")))

/* The team size to pass on: the program's, or the mask's when it gave 0. */
static unsigned team(unsigned num_threads) {
  pthread_once(&g_once, init);
  return num_threads ? num_threads : team_size();
}

BAL_GOMP_API void GOMP_parallel(void (*fn)(void *), void *data, unsigned num_threads,
                                unsigned flags);
void GOMP_parallel(void (*fn)(void *), void *data, unsigned num_threads, unsigned flags) {
  unsigned n = team(num_threads);
  if (!real_GOMP_parallel) missing("GOMP_parallel");
  real_GOMP_parallel(fn, data, n, flags);
}

BAL_GOMP_API void GOMP_parallel_sections(void (*fn)(void *), void *data, unsigned num_threads,
                                         unsigned count, unsigned flags);
void GOMP_parallel_sections(void (*fn)(void *), void *data, unsigned num_threads, unsigned count,
                            unsigned flags) {
  unsigned n = team(num_threads);
  if (!real_GOMP_parallel_sections) missing("GOMP_parallel_sections");
  real_GOMP_parallel_sections(fn, data, n, count, flags);
}

/* The loop entries with a chunk size. */
#define BAL_GOMP_LOOP(name)                                                                   \
  BAL_GOMP_API void name(void (*fn)(void *), void *data, unsigned num_threads, long start,      \
                         long end, long incr, long chunk_size, unsigned flags);               \
  void name(void (*fn)(void *), void *data, unsigned num_threads, long start, long end,         \
            long incr, long chunk_size, unsigned flags) {                                     \
    unsigned n = team(num_threads);                                                           \
    if (!real_##name) missing(#name);                                                         \
    real_##name(fn, data, n, start, end, incr, chunk_size, flags);                            \
  }
BAL_GOMP_LOOPS(BAL_GOMP_LOOP)

/* The loop entries whose schedule is read at run time (no chunk size). */
#define BAL_GOMP_LOOP_RUNTIME(name)                                                           \
  BAL_GOMP_API void name(void (*fn)(void *), void *data, unsigned num_threads, long start,      \
                         long end, long incr, unsigned flags);                                \
  void name(void (*fn)(void *), void *data, unsigned num_threads, long start, long end,         \
            long incr, unsigned flags) {                                                      \
    unsigned n = team(num_threads);                                                           \
    if (!real_##name) missing(#name);                                                         \
    real_##name(fn, data, n, start, end, incr, flags);                                        \
  }
BAL_GOMP_LOOPS_RUNTIME(BAL_GOMP_LOOP_RUNTIME)

__attribute__((destructor)) static void fini(void) {
  if (g_proc) bal_node_detach(g_proc);
}
