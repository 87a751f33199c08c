/* Test support for the `node` module: registries with unique names (the
 * test's pid and a counter, unlinked by the test that made them, by that
 * exact name), and real child processes that attach, poll and detach on
 * command, so the tests exercise the registry across processes. */
#ifndef BALLAST_TEST_NODE_CHECK_H
#define BALLAST_TEST_NODE_CHECK_H

#include <ballast/for.h>
#include <ballast/node.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* A unique registry name for this test process; created with ncpus
 * virtual CPUs (0: the machine's real CPUs), SF 0.5. Returns the
 * bal_node_registry_create code. */
int node_test_registry(char name[64], int64_t ncpus);

/* A `for` pool of nthreads workers (0: the registry's CPU count) attached
 * to registry `reg` with the default attach configuration otherwise.
 * Returns the bal_pool_create_with code. */
int node_test_pool(const char *reg, int nthreads, bal_pool **out);

/* The same, its attachment claiming `cpus` (NULL: the default). */
int node_test_pool_on(const char *reg, int nthreads, const bal_node_mask *cpus, bal_pool **out);

/* A cmocka fixture: a registry of 16 virtual CPUs and a manager on it;
 * teardown closes the manager and destroys the registry by its name. */
typedef struct node_fixture {
  char name[64];
  bal_node_manager *m;
} node_fixture;
int node_fixture_setup(void **state);
int node_fixture_teardown(void **state);

/* A child process waiting for commands. */
typedef struct node_child {
  pid_t pid;
  int to, from;
} node_child;

/* Fork a child that will attach to `registry` as job `job` with `ranks`
 * ranks, claiming `cpus` ("" or NULL: the default). It does nothing until
 * told. */
void node_child_spawn(node_child *c, const char *registry, int64_t job, int64_t ranks, const char *cpus);

/* Commands: 'a' attach, 'p' poll, 'w' poll until the mask changes (up to
 * 10 s), 'g' the child's CPU affinity, 'l' lend, 'r' reclaim, 'd' detach. Returns the call's code; `mask` (may be NULL, 256
 * bytes) receives the mask after a poll, as a CPU list. */
int node_child_cmd(node_child *c, char cmd, char *mask);

/* Send 'w' without waiting for the answer; node_child_reply reads it. */
void node_child_send(node_child *c, char cmd);
int node_child_reply(node_child *c, char *mask);

/* Tell the child to exit (without detaching) and reap it. */
void node_child_end(node_child *c);

/* The CPU list of pid in the registry ("" if pid holds nothing, "-" if not
 * registered). */
void node_mask_of(bal_node_manager *m, int64_t pid, char out[256]);

/* BALLAST_STRESS_SCALE (docs/CONVENTIONS.md, "Tests"): how many times
 * the node race tests multiply their runs; 1 when unset or outside
 * 1 .. 100. */
int node_stress_scale(void);

/* The registry's invariants, as a manager sees them: masks pairwise
 * disjoint, consistent with the per-CPU view, every registered process
 * holding at least one CPU, every lender a job that is present and not the
 * holder's; lending: each CPU's user is its holder unless lent, a lent
 * CPU's user (if any) another registered process that lends nothing, and
 * a process lends all it holds or nothing. Returns true when they hold. */
bool node_invariant(bal_node_manager *m);

#endif
