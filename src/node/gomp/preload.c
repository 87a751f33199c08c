/* libballast-gomp.so: unmodified OpenMP programs built with GCC follow
 * their node registry mask, lending included (docs/node.md, "Lending").
 *
 * libgomp has no OMPT, but GCC compiles `#pragma omp parallel` into a call
 * of libgomp's exported GOMP_parallel(fn, data, num_threads, flags). Loaded
 * with LD_PRELOAD, this library defines GOMP_parallel: at each parallel
 * region it polls the registry (attaching on the first region, to
 * BALLAST_NODE_REGISTRY, with its defaults) and, when the program left the
 * team size to the runtime (num_threads 0), asks for one thread per CPU of
 * the current mask, then calls libgomp's own entry. A team's size is fixed
 * for its region, so CPUs lent during a region are used from the next.
 *
 * What it does not reach (docs/node.md lists it): the combined constructs
 * (`parallel for`, `parallel sections`: GOMP_parallel_loop_* and
 * GOMP_parallel_sections), a num_threads clause (left alone), a statically
 * linked libgomp, Clang's libomp; threads are not bound within the mask. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ballast/error.h>
#include <ballast/node.h>

typedef void (*gomp_parallel_fn)(void (*fn)(void *), void *data, unsigned num_threads,
                                 unsigned flags);

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static gomp_parallel_fn g_real;
static bal_node_proc *g_proc;            /* NULL: not attached, follow nothing */
static pthread_mutex_t g_poll = PTHREAD_MUTEX_INITIALIZER; /* one poll at a time (node.h) */

static void init(void) {
  /* POSIX guarantees a function's address survives the round trip through
   * void *; ISO C does not, hence the copy rather than a cast. */
  void *sym = dlsym(RTLD_NEXT, "GOMP_parallel");
  memcpy(&g_real, &sym, sizeof g_real);
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

/* libgomp's declaration (libgomp_g.h, not installed). */
__attribute__((visibility("default"))) void GOMP_parallel(void (*fn)(void *), void *data,
                                                          unsigned num_threads, unsigned flags);
void GOMP_parallel(void (*fn)(void *), void *data, unsigned num_threads, unsigned flags) {
  pthread_once(&g_once, init);
  if (!g_real) {
    fprintf(stderr, "libballast-gomp: libgomp's GOMP_parallel not found (is the program an "
                    "OpenMP program built with GCC?)\n");
    abort();
  }
  if (num_threads == 0) num_threads = team_size();
  g_real(fn, data, num_threads, flags);
}

__attribute__((destructor)) static void fini(void) {
  if (g_proc) bal_node_detach(g_proc);
}
