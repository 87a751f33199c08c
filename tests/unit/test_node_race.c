/* The registry across concurrent processes: admit/attach/remove/detach
 * races from forked processes with random delays (seeded runs, the
 * invariants checked by every process after every step and by the parent
 * meanwhile); processes killed with SIGKILL, also while holding the
 * registry lock; a pid whose start time no longer matches. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <ballast/error.h>
#include <ballast/node.h>

#include "core/rng.h"
#include "node/node_internal.h"
#include "node_check.h"

static void random_delay(bal__rng *r) {
  struct timespec ts = {0, (long)bal__rng_below(r, 400000)};
  if (bal__rng_below(r, 4)) nanosleep(&ts, NULL);
}

/* Exit codes of a racing worker: 0 fine, 1 invariant broken, 2 a call
 * returned a code it may not return there. */
static void worker(const char *name, uint64_t seed, int steps, int go) {
  char x;
  if (read(go, &x, 1) != 0) _exit(2); /* start together: the parent closes the pipe */
  bal__rng r;
  bal__rng_seed(&r, seed);
  bal_node_manager *m;
  if (bal_node_manager_open(name, &m) != BAL_OK) _exit(2);
  for (int s = 0; s < steps; s++) {
    random_delay(&r);
    int64_t job = 1 + (int64_t)bal__rng_below(&r, 3), ranks = 1 + (int64_t)bal__rng_below(&r, 3);
    int action = (int)bal__rng_below(&r, 3);
    if (action == 2) { /* act as a manager: remove a random process */
      bal_node_proc_info info[BAL_NODE_MAX_PROCS];
      int n = bal_node_manager_list(m, info, BAL_NODE_MAX_PROCS);
      if (n < 0) _exit(2);
      if (n > 0) {
        int rc = bal_node_manager_remove(m, info[bal__rng_below(&r, (uint64_t)n)].pid);
        if (rc != BAL_OK && rc != BAL_ENOTFOUND) _exit(2);
      }
      if (!node_invariant(m)) _exit(1);
      continue;
    }
    if (action == 1) { /* admit itself next to a random job or all */
      int64_t mate = (int64_t)bal__rng_below(&r, 4);
      int rc = bal_node_manager_admit(m, getpid(), job, ranks, &mate, mate ? 1 : 0, NULL);
      if (rc != BAL_OK && rc != BAL_EBUSY && rc != BAL_ENOTFOUND) _exit(2);
      if (!node_invariant(m)) _exit(1);
      random_delay(&r);
    }
    bal_node_attach_config cfg;
    bal_node_attach_config_init(&cfg);
    cfg.registry = name;
    cfg.job = job;
    cfg.ranks = ranks;
    bal_node_proc *p = NULL;
    int rc = bal_node_attach(&cfg, &p);
    if (rc != BAL_OK && rc != BAL_EBUSY) _exit(2);
    if (!node_invariant(m)) _exit(1);
    if (rc == BAL_EBUSY) {
      bal_node_manager_remove(m, getpid()); /* an admitted entry it cannot take: none */
      continue;
    }
    for (int k = 0; k < 3; k++) {
      bal_node_mask mask;
      rc = bal_node_poll(p, &mask, NULL);
      if (rc != BAL_OK && rc != BAL_ENOTFOUND) _exit(2);
      if (rc == BAL_OK && bal_node_mask_count(&mask) < 1) _exit(1);
      random_delay(&r);
    }
    if (bal_node_detach(p) != BAL_OK) _exit(2);
    if (!node_invariant(m)) _exit(1);
  }
  bal_node_manager_close(m);
  _exit(0);
}

static void admit_remove_races(void **state) {
  (void)state;
  int runs = 200 * node_stress_scale();
  for (int run = 0; run < runs; run++) {
    char name[64];
    bal__rng r;
    bal__rng_seed(&r, (uint64_t)run);
    int64_t ncpus = 4 + (int64_t)bal__rng_below(&r, 29);
    assert_int_equal(node_test_registry(name, ncpus), BAL_OK);
    bal_node_manager *m;
    assert_int_equal(bal_node_manager_open(name, &m), BAL_OK);
    enum { WORKERS = 6 };
    pid_t pid[WORKERS];
    int go[2];
    assert_int_equal(pipe(go), 0);
    for (int k = 0; k < WORKERS; k++) {
      pid[k] = fork();
      assert_true(pid[k] >= 0);
      if (pid[k] == 0) {
        close(go[1]);
        worker(name, (uint64_t)run * 1000 + (uint64_t)k, 5, go[0]);
      }
    }
    close(go[0]);
    close(go[1]);
    int live = WORKERS, failed = 0;
    while (live > 0) {
      if (!node_invariant(m)) failed = 1000 + run;
      /* A pause between checks: a parent retaking the lock flat out can
       * starve the workers waiting for it on a loaded machine (a CI run
       * beside a simulation timed out at 120 s here, against ~10 s). */
      nanosleep(&(struct timespec){0, 50000}, NULL);
      int st;
      pid_t w = waitpid(-1, &st, WNOHANG);
      if (w > 0) {
        live--;
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) failed = WIFEXITED(st) ? WEXITSTATUS(st) : 99;
      }
    }
    if (failed) fprintf(stderr, "run %d: failure %d\n", run, failed);
    /* everyone left: nothing registered, every CPU free */
    int left = bal_node_manager_list(m, NULL, 0), busy = 0;
    bal_node_cpu_info cpu[BAL_NODE_MAX_CPUS];
    int n = bal_node_manager_cpus(m, cpu, BAL_NODE_MAX_CPUS);
    for (int64_t c = 0; c < n && c < ncpus; c++) busy += cpu[c].pid != -1;
    bal_node_manager_close(m);
    /* unlinked before any assertion, so a failure leaves nothing behind */
    assert_int_equal(bal_node_registry_destroy(name), BAL_OK);
    assert_int_equal(failed, 0);
    assert_int_equal(left, 0);
    assert_int_equal(n, ncpus);
    assert_int_equal(busy, 0);
  }
}

typedef node_fixture fixture;
#define setup node_fixture_setup
#define teardown node_fixture_teardown

static void mask_is(bal_node_manager *m, int64_t pid, const char *want) {
  char got[256];
  node_mask_of(m, pid, got);
  assert_string_equal(got, want);
}

/* A 0-15 and guest B 8-15. */
static void pair(fixture *f, node_child *a, node_child *b) {
  node_child_spawn(a, f->name, 1, 1, NULL);
  assert_int_equal(node_child_cmd(a, 'a', NULL), BAL_OK);
  node_child_spawn(b, f->name, 2, 1, NULL);
  assert_int_equal(bal_node_manager_admit(f->m, b->pid, 2, 1, NULL, 0, NULL), BAL_OK);
  assert_int_equal(node_child_cmd(b, 'a', NULL), BAL_OK);
  mask_is(f->m, a->pid, "0-7");
  mask_is(f->m, b->pid, "8-15");
}

static void kill_child(node_child *c, bool reap) {
  kill(c->pid, SIGKILL);
  if (reap) waitpid(c->pid, NULL, 0);
}

static void admit_c(fixture *f, node_child *c, const char *want) {
  node_child_spawn(c, f->name, 3, 1, NULL);
  bal_node_mask g;
  assert_int_equal(bal_node_manager_admit(f->m, c->pid, 3, 1, NULL, 0, &g), BAL_OK);
  char got[256];
  bal_node_mask_format(&g, got, sizeof got);
  assert_string_equal(got, want);
  assert_true(node_invariant(f->m));
}

/* The guest is killed (and reaped): its CPUs go back to A before C is
 * admitted, so C gets A's upper half. */
static void sigkill_guest_then_admit(void **state) {
  fixture *f = *state;
  node_child a, b, c;
  pair(f, &a, &b);
  kill_child(&b, true);
  admit_c(f, &c, "8-15");
  mask_is(f->m, a.pid, "0-7");
  mask_is(f->m, b.pid, "-");
  char got[256];
  assert_int_equal(node_child_cmd(&a, 'p', got), BAL_OK);
  assert_string_equal(got, "0-7");
  node_child_end(&c);
  assert_int_equal(bal_node_manager_list(f->m, NULL, 0), 1); /* C never attached and is gone */
  node_child_end(&a);
  assert_int_equal(bal_node_manager_list(f->m, NULL, 0), 0);
}

/* The owner is killed and left a zombie (not reaped): it counts as dead,
 * its CPUs go to its guest B, which then lends to C by the rule. */
static void sigkill_owner_then_admit(void **state) {
  fixture *f = *state;
  node_child a, b, c;
  pair(f, &a, &b);
  kill_child(&a, false);
  struct timespec ts = {0, 20000000};
  nanosleep(&ts, NULL); /* let the kill land */
  admit_c(f, &c, "8-15");
  mask_is(f->m, b.pid, "0-7");
  char got[256];
  assert_int_equal(node_child_cmd(&b, 'p', got), BAL_OK);
  assert_string_equal(got, "0-7");
  node_child_end(&a);
  node_child_end(&b);
  node_child_end(&c);
}

/* A process killed while holding the registry lock: the next caller gets
 * EOWNERDEAD, repairs, and goes on (an alarm fails the test instead of a
 * deadlock). */
static void sigkill_holding_lock(void **state) {
  fixture *f = *state;
  node_child a;
  node_child_spawn(&a, f->name, 1, 1, NULL);
  assert_int_equal(node_child_cmd(&a, 'a', NULL), BAL_OK);
  int ready[2];
  assert_int_equal(pipe(ready), 0);
  pid_t holder = fork();
  assert_true(holder >= 0);
  if (holder == 0) {
    bal__node_map map;
    if (bal__node_open(f->name, &map) != BAL_OK || bal__node_lock(&map) != BAL_OK) _exit(1);
    map.shm->holder[3] = 77; /* half an operation: a holder that is no slot */
    if (write(ready[1], "x", 1) != 1) _exit(1);
    pause();
    _exit(0);
  }
  char x;
  assert_int_equal(read(ready[0], &x, 1), 1);
  kill(holder, SIGKILL);
  waitpid(holder, NULL, 0);
  alarm(20);
  assert_true(node_invariant(f->m));
  mask_is(f->m, a.pid, "0-2,4-15"); /* the bad entry was dropped: CPU 3 is free */
  char got[256];
  assert_int_equal(node_child_cmd(&a, 'p', got), BAL_OK);
  assert_string_equal(got, "0-2,4-15");
  alarm(0);
  close(ready[0]);
  close(ready[1]);
  assert_int_equal(node_child_cmd(&a, 'd', NULL), BAL_OK);
  node_child_end(&a);
}

/* A registered pid whose start time differs is another process: cleaned. */
static void reused_pid_is_not_alive(void **state) {
  fixture *f = *state;
  node_child a;
  node_child_spawn(&a, f->name, 1, 1, NULL);
  assert_int_equal(node_child_cmd(&a, 'a', NULL), BAL_OK);
  assert_int_equal(bal_node_manager_list(f->m, NULL, 0), 1);
  bal__node_map map;
  assert_int_equal(bal__node_open(f->name, &map), BAL_OK);
  assert_int_equal(bal__node_lock(&map), BAL_OK);
  int32_t i = bal__node_find_pid(map.shm, a.pid);
  assert_true(i >= 0);
  map.shm->slot[i].start += 1;
  bal__node_unlock(map.shm);
  bal__node_close(&map);
  assert_int_equal(bal_node_manager_list(f->m, NULL, 0), 0);
  char got[256];
  assert_int_equal(node_child_cmd(&a, 'p', got), BAL_ENOTFOUND);
  assert_string_equal(got, "");
  assert_int_equal(node_child_cmd(&a, 'd', NULL), BAL_OK);
  node_child_end(&a);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(admit_remove_races),
      cmocka_unit_test_setup_teardown(sigkill_guest_then_admit, setup, teardown),
      cmocka_unit_test_setup_teardown(sigkill_owner_then_admit, setup, teardown),
      cmocka_unit_test_setup_teardown(sigkill_holding_lock, setup, teardown),
      cmocka_unit_test_setup_teardown(reused_pid_is_not_alive, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
