/* Lending (ballast/node.h, bal_node_lend/bal_node_reclaim): exact masks
 * across real processes; a lender or borrower killed with SIGKILL loses
 * no CPU; seeded races of lenders and borrowers in forked processes, each
 * lending from one thread while another polls the same handle, with a
 * forked monitor checking the invariant throughout and a process killed
 * in the middle of some runs. */
#include <pthread.h>
#include <stdatomic.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/select.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <ballast/error.h>
#include <ballast/for.h>
#include <ballast/node.h>

#include "core/rng.h"
#include "node_assert.h"

typedef node_fixture fixture;
#define setup node_fixture_setup
#define teardown node_fixture_teardown

/* A (job 1) claims 0-7, B (job 2) 8-15. */
static void two(fixture *f, node_child *a, node_child *b) {
  node_child_spawn(a, f->name, 1, 1, "0-7");
  node_child_spawn(b, f->name, 2, 1, "8-15");
  assert_int_equal(node_child_cmd(a, 'a', NULL), BAL_OK);
  assert_int_equal(node_child_cmd(b, 'a', NULL), BAL_OK);
  node_assert_polls(a, "0-7");
  node_assert_polls(b, "8-15");
}

static void cpu_is(fixture *f, int c, int64_t holder, int64_t user, bool lent) {
  bal_node_cpu_info cpu[16];
  assert_int_equal(bal_node_manager_cpus(f->m, cpu, 16), 16);
  assert_int_equal(cpu[c].pid, holder);
  assert_int_equal(cpu[c].user, user);
  assert_int_equal(cpu[c].lent, lent);
}

static void lend_borrow_reclaim(void **state) {
  fixture *f = *state;
  node_child a, b;
  two(f, &a, &b);
  for (int round = 0; round < 5; round++) { /* both ways, again and again */
    node_child *l = round % 2 ? &a : &b, *o = round % 2 ? &b : &a;
    const char *own_l = round % 2 ? "0-7" : "8-15", *own_o = round % 2 ? "8-15" : "0-7";
    assert_int_equal(node_child_cmd(l, 'l', NULL), 8);
    node_assert_polls(o, "0-15");
    node_assert_polls(l, "");
    assert_int_equal(node_child_cmd(l, 'r', NULL), 8);
    node_assert_polls(o, own_o);
    node_assert_polls(l, own_l);
  }
  assert_int_equal(node_child_cmd(&a, 'r', NULL), 0); /* nothing lent: nothing to reclaim */
  node_assert_polls(&b, "8-15");                                 /* nothing lent: nothing borrowed */
  assert_int_equal(node_child_cmd(&a, 'l', NULL), 8);
  cpu_is(f, 0, a.pid, -1, true);
  node_assert_polls(&a, ""); /* a lender uses nothing and borrows nothing */
  node_assert_polls(&b, "0-15");
  cpu_is(f, 3, a.pid, b.pid, true);
  cpu_is(f, 9, b.pid, b.pid, false);
  assert_true(node_invariant(f->m));
  char mask[256];
  node_mask_of(f->m, a.pid, mask);
  assert_string_equal(mask, "0-7"); /* ownership does not move */
  assert_int_equal(node_child_cmd(&a, 'r', NULL), 8);
  cpu_is(f, 3, a.pid, a.pid, false); /* A's again at once */
  node_assert_polls(&b, "8-15");                /* B lets go at its next poll */
  node_assert_polls(&a, "0-7");
  assert_int_equal(node_child_cmd(&a, 'r', NULL), 0);
  assert_true(node_invariant(f->m));
  node_child_end(&a);
  node_child_end(&b);
}

/* A (job 1) claims 0-3, B (job 2) 4-7, C (job 3) c_cpus; all attached. */
static void three(fixture *f, node_child *a, node_child *b, node_child *c, const char *c_cpus) {
  node_child_spawn(a, f->name, 1, 1, "0-3");
  node_child_spawn(b, f->name, 2, 1, "4-7");
  node_child_spawn(c, f->name, 3, 1, c_cpus);
  assert_int_equal(node_child_cmd(a, 'a', NULL), BAL_OK);
  assert_int_equal(node_child_cmd(b, 'a', NULL), BAL_OK);
  assert_int_equal(node_child_cmd(c, 'a', NULL), BAL_OK);
}

/* A lender that borrowed passes the borrowed CPUs on; they stay its
 * owner's. */
static void borrowed_are_passed_on(void **state) {
  fixture *f = *state;
  node_child a, b, c;
  three(f, &a, &b, &c, "8-15");
  node_assert_polls(&c, "8-15");
  assert_int_equal(node_child_cmd(&a, 'l', NULL), 4);
  node_assert_polls(&b, "0-7"); /* the first to poll takes everything lent */
  node_assert_polls(&c, "8-15");
  assert_int_equal(node_child_cmd(&b, 'l', NULL), 4); /* the CPUs it holds; 0-3 are passed on too */
  node_assert_polls(&c, "0-15");
  cpu_is(f, 0, a.pid, c.pid, true);
  cpu_is(f, 4, b.pid, c.pid, true);
  assert_int_equal(node_child_cmd(&a, 'r', NULL), 4);
  node_assert_polls(&c, "4-15");
  assert_int_equal(node_child_cmd(&b, 'r', NULL), 4);
  node_assert_polls(&c, "8-15");
  node_assert_polls(&a, "0-3");
  node_assert_polls(&b, "4-7");
  assert_true(node_invariant(f->m));
  node_child_end(&a);
  node_child_end(&b);
  node_child_end(&c);
}

/* The lender dies while B uses its CPUs: they are handed on by the rule
 * (A's job has no one else here: free), and B loses them at its next poll. */
static void sigkill_lender(void **state) {
  fixture *f = *state;
  node_child a, b;
  two(f, &a, &b);
  assert_int_equal(node_child_cmd(&a, 'l', NULL), 8);
  node_assert_polls(&b, "0-15");
  kill(a.pid, SIGKILL);
  waitpid(a.pid, NULL, 0);
  assert_int_equal(bal_node_manager_list(f->m, NULL, 0), 1); /* cleans A */
  cpu_is(f, 0, -1, -1, false);
  node_assert_polls(&b, "8-15");
  assert_true(node_invariant(f->m));
  node_child c;
  node_child_spawn(&c, f->name, 3, 1, "0-7"); /* nothing was lost: all 8 free */
  assert_int_equal(node_child_cmd(&c, 'a', NULL), BAL_OK);
  node_assert_polls(&c, "0-7");
  node_child_end(&b);
  node_child_end(&c);
}

/* The borrower dies: the CPUs it borrowed are lent again (A still waits),
 * its own become free; A reclaims everything it lent. */
static void sigkill_borrower(void **state) {
  fixture *f = *state;
  node_child a, b;
  two(f, &a, &b);
  assert_int_equal(node_child_cmd(&a, 'l', NULL), 8);
  node_assert_polls(&b, "0-15");
  kill(b.pid, SIGKILL);
  waitpid(b.pid, NULL, 0);
  assert_int_equal(bal_node_manager_list(f->m, NULL, 0), 1);
  cpu_is(f, 0, a.pid, -1, true);
  cpu_is(f, 8, -1, -1, false);
  assert_true(node_invariant(f->m));
  assert_int_equal(node_child_cmd(&a, 'r', NULL), 8);
  node_assert_polls(&a, "0-7");
  cpu_is(f, 0, a.pid, a.pid, false);
  node_child_end(&a);
}

/* A manager moving a lent CPU wins over the lender: set_mask frees what it
 * takes away, and a later reclaim does not take it back. */
static void manager_wins(void **state) {
  fixture *f = *state;
  node_child a, b;
  two(f, &a, &b);
  assert_int_equal(node_child_cmd(&a, 'l', NULL), 8);
  node_assert_polls(&b, "0-15");
  bal_node_mask m;
  bal_node_mask_zero(&m);
  bal_node_mask_add(&m, 0, 3);
  assert_int_equal(bal_node_manager_set(f->m, a.pid, &m, 0), BAL_OK);
  cpu_is(f, 5, -1, -1, false);
  node_assert_polls(&b, "0-3,8-15");
  assert_int_equal(node_child_cmd(&a, 'r', NULL), 4);
  node_assert_polls(&a, "0-3");
  node_assert_polls(&b, "8-15");
  assert_true(node_invariant(f->m));
  node_child_end(&a);
  node_child_end(&b);
}

/* A `for` pool borrows at its next poll: B's pool (8 workers on 8-15 of
 * 16 virtual CPUs, capacity 16) runs on 16 once A lends 0-7, during a
 * loop, and on 8 again in the loop after A reclaimed. */
typedef struct slow_loop {
  _Atomic int max_active;
  bal_pool *pool;
} slow_loop;

static void slow_body(int64_t lo, int64_t hi, void *arg) {
  slow_loop *s = arg;
  for (int64_t i = lo; i < hi; i++) {
    struct timespec ts = {0, 200000};
    nanosleep(&ts, NULL);
    int a = bal_pool_active(s->pool);
    int m = atomic_load(&s->max_active);
    while (a > m && !atomic_compare_exchange_weak(&s->max_active, &m, a)) {
    }
  }
}

static void pool_borrows(void **state) {
  fixture *f = *state;
  node_child a;
  node_child_spawn(&a, f->name, 1, 1, "0-7");
  assert_int_equal(node_child_cmd(&a, 'a', NULL), BAL_OK);
  bal_node_mask mine;
  bal_node_mask_zero(&mine);
  bal_node_mask_add(&mine, 8, 15);
  bal_node_attach_config ac;
  bal_node_attach_config_init(&ac);
  ac.registry = f->name;
  ac.cpus = &mine;
  ac.job = 2;
  bal_pool_config pc;
  bal_pool_config_init(&pc);
  pc.nthreads = 16;
  pc.node = &ac;
  slow_loop s = {0};
  assert_int_equal(bal_pool_create_with(&pc, &s.pool), BAL_OK);
  assert_int_equal(bal_pool_active(s.pool), 8);
  assert_int_equal(node_child_cmd(&a, 'l', NULL), 8);
  assert_int_equal(bal_for(s.pool, 0, 400, 1, slow_body, &s), BAL_OK);
  assert_int_equal(atomic_load(&s.max_active), 16);
  assert_true(node_invariant(f->m));
  assert_int_equal(node_child_cmd(&a, 'r', NULL), 8);
  atomic_store(&s.max_active, 0);
  assert_int_equal(bal_for(s.pool, 0, 100, 1, slow_body, &s), BAL_OK);
  assert_int_equal(bal_pool_active(s.pool), 8);
  assert_int_equal(atomic_load(&s.max_active), 8);
  bal_pool_destroy(s.pool);
  node_child_end(&a);
}

/* A process back from its own wait does not claim, at its first poll,
 * CPUs lent before its lend (their lenders were waiting with it, and are
 * likely returning too); its next poll does, if they are still lent. A
 * lend newer than its own is claimed at once, and no lend is left twice. */
static void returning_lender_waits_one_poll(void **state) {
  fixture *f = *state;
  node_child a, b, c;
  three(f, &a, &b, &c, "8-11");
  node_assert_polls(&a, "0-3");
  assert_int_equal(node_child_cmd(&b, 'l', NULL), 4); /* B waits first */
  assert_int_equal(node_child_cmd(&a, 'l', NULL), 4); /* then A */
  assert_int_equal(node_child_cmd(&c, 'l', NULL), 4); /* then C */
  assert_int_equal(node_child_cmd(&a, 'r', NULL), 4); /* A is back */
  node_assert_polls(&a, "0-3,8-11"); /* C's lend is newer than A's: taken; B's is not */
  cpu_is(f, 4, b.pid, -1, true);
  node_assert_polls(&a, "0-11"); /* B still lends at A's next poll: taken */
  assert_int_equal(node_child_cmd(&b, 'r', NULL), 4);
  assert_int_equal(node_child_cmd(&c, 'r', NULL), 4);
  node_assert_polls(&a, "0-3");
  node_assert_polls(&b, "4-7");
  /* A lend is left once at most: C waits long while A returns from two
   * short waits; A's poll after the second takes C's CPUs. */
  assert_int_equal(node_child_cmd(&c, 'l', NULL), 4);
  assert_int_equal(node_child_cmd(&a, 'l', NULL), 4);
  assert_int_equal(node_child_cmd(&a, 'r', NULL), 4);
  node_assert_polls(&a, "0-3");
  assert_int_equal(node_child_cmd(&a, 'l', NULL), 4);
  assert_int_equal(node_child_cmd(&a, 'r', NULL), 4);
  node_assert_polls(&a, "0-3,8-11");
  assert_int_equal(node_child_cmd(&c, 'r', NULL), 4);
  node_assert_polls(&a, "0-3");
  /* The barrier case: A borrowed B's CPUs while B waited, then waited
   * too; back first, A drops that claim at its first poll (B is likely
   * returning) and takes the CPUs again at its next if B still lends. */
  assert_int_equal(node_child_cmd(&b, 'l', NULL), 4);
  node_assert_polls(&a, "0-7");
  assert_int_equal(node_child_cmd(&a, 'l', NULL), 4);
  assert_int_equal(node_child_cmd(&a, 'r', NULL), 4);
  node_assert_polls(&a, "0-3");
  cpu_is(f, 4, b.pid, -1, true);
  node_assert_polls(&a, "0-7");
  assert_int_equal(node_child_cmd(&b, 'r', NULL), 4);
  node_assert_polls(&a, "0-3");
  assert_true(node_invariant(f->m));
  node_child_end(&a);
  node_child_end(&b);
  node_child_end(&c);
}

static void null_handles(void **state) {
  (void)state;
  assert_int_equal(bal_node_lend(NULL), BAL_EINVAL);
  assert_int_equal(bal_node_reclaim(NULL), BAL_EINVAL);
}

/* ---- races ---- */

enum { WORKERS = 4 };

/* Shared by the racing processes (an anonymous shared mapping made before
 * the forks): seq[k] is odd while worker k lends, from just before its
 * lend until just after its reclaim returned. */
typedef struct race_shared {
  _Atomic uint64_t seq[WORKERS];
} race_shared;

typedef struct racer {
  bal_node_proc *p;
  pthread_mutex_t poll_lock; /* one thread polls the handle at a time (node.h) */
  race_shared *shared;
  int k;
  int64_t per; /* worker j holds CPUs j*per .. j*per + per - 1 */
  _Atomic int stop;
  _Atomic int bad;
} racer;

static bool holds_any_of(const bal_node_mask *m, int64_t lo, int64_t n) {
  for (int64_t c = lo; c < lo + n; c++)
    if (bal_node_mask_has(m, c)) return true;
  return false;
}

/* Polls the handle while the main thread lends and reclaims, and checks
 * that the borrower gives back within one poll: a poll that starts after
 * worker j's reclaim returned, with no lend of j's begun before it ends,
 * reports none of j's CPUs. */
static void *poller(void *arg) {
  racer *r = arg;
  struct timespec ts = {0, 20000};
  while (!atomic_load(&r->stop)) {
    uint64_t before[WORKERS], after[WORKERS];
    bal_node_mask m;
    pthread_mutex_lock(&r->poll_lock);
    for (int j = 0; j < WORKERS; j++) before[j] = atomic_load(&r->shared->seq[j]);
    int rc = bal_node_poll(r->p, &m, NULL);
    for (int j = 0; j < WORKERS; j++) after[j] = atomic_load(&r->shared->seq[j]);
    pthread_mutex_unlock(&r->poll_lock);
    if (rc != BAL_OK && rc != BAL_ENOTFOUND) atomic_store(&r->bad, 2);
    for (int j = 0; j < WORKERS && rc == BAL_OK; j++)
      if (j != r->k && before[j] == after[j] && before[j] % 2 == 0 && holds_any_of(&m, j * r->per, r->per))
        atomic_store(&r->bad, 5); /* kept a CPU its lender had reclaimed */
    nanosleep(&ts, NULL);
  }
  return NULL;
}

/* The main thread's own poll, between its calls: `lending` means the mask
 * must be empty (a lender uses nothing), else it must hold every CPU of
 * the worker's own. */
static int own_poll(racer *r, bool lending) {
  bal_node_mask m;
  pthread_mutex_lock(&r->poll_lock);
  int rc = bal_node_poll(r->p, &m, NULL);
  pthread_mutex_unlock(&r->poll_lock);
  if (rc != BAL_OK) return 2;
  if (lending) return bal_node_mask_count(&m) == 0 ? 0 : 3;
  for (int64_t c = r->k * r->per; c < (r->k + 1) * r->per; c++)
    if (!bal_node_mask_has(&m, c)) return 4;
  return 0;
}

/* A racing process: attach with its CPUs, then `steps` random lends,
 * reclaims, own polls and delays. Exit 0 fine, 2 a call returned what it
 * may not, 3-6 a broken rule (own_poll, poller, the counts). */
static void race_worker(const char *name, race_shared *sh, int k, int64_t per, uint64_t seed, int steps) {
  bal__rng g;
  bal__rng_seed(&g, seed);
  bal_node_mask want;
  bal_node_mask_zero(&want);
  bal_node_mask_add(&want, k * per, k * per + per - 1);
  bal_node_attach_config cfg;
  bal_node_attach_config_init(&cfg);
  cfg.registry = name;
  cfg.job = k + 1;
  cfg.cpus = &want;
  racer r = {.shared = sh, .k = k, .per = per};
  pthread_mutex_init(&r.poll_lock, NULL);
  if (bal_node_attach(&cfg, &r.p) != BAL_OK) _exit(2);
  pthread_t t;
  if (pthread_create(&t, NULL, poller, &r) != 0) _exit(2);
  bool lending = false;
  int failed = 0;
  for (int s = 0; s < steps && !failed; s++) {
    if (bal__rng_below(&g, 2)) {
      if (!lending) atomic_fetch_add(&sh->seq[k], 1); /* odd: lending from now on */
      int rc = bal_node_lend(r.p);
      if (rc != (lending ? 0 : per)) failed = rc < 0 ? 2 : 6; /* nobody moves our CPUs here */
      lending = true;
    } else {
      int rc = bal_node_reclaim(r.p);
      if (rc != (lending ? per : 0)) failed = rc < 0 ? 2 : 6;
      if (lending) atomic_fetch_add(&sh->seq[k], 1); /* even: reclaimed */
      lending = false;
    }
    if (!failed && bal__rng_below(&g, 2)) failed = own_poll(&r, lending);
    struct timespec ts = {0, (long)bal__rng_below(&g, 200000)};
    nanosleep(&ts, NULL);
  }
  atomic_store(&r.stop, 1);
  pthread_join(t, NULL);
  if (failed) _exit(failed);
  if (bal_node_reclaim(r.p) < 0) _exit(2); /* nobody removes a live worker here */
  if (lending) atomic_fetch_add(&sh->seq[k], 1);
  if (bal_node_detach(r.p) != BAL_OK) _exit(2);
  _exit(atomic_load(&r.bad));
}

/* The forked monitor: checks the invariant until the parent closes its
 * pipe; exits 1 on the first violation. */
static pid_t monitor(const char *name, int *stop_fd) {
  int fds[2];
  assert_int_equal(pipe(fds), 0);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    close(fds[1]);
    bal_node_manager *m;
    if (bal_node_manager_open(name, &m) != BAL_OK) _exit(2);
    struct timespec ts = {0, 50000};
    for (;;) {
      if (!node_invariant(m)) _exit(1);
      char x;
      /* non-blocking look at the pipe: closed means stop */
      fd_set rd;
      FD_ZERO(&rd);
      FD_SET(fds[0], &rd);
      struct timeval tv = {0, 0};
      if (select(fds[0] + 1, &rd, NULL, NULL, &tv) > 0 && read(fds[0], &x, 1) == 0) break;
      nanosleep(&ts, NULL);
    }
    bal_node_manager_close(m);
    _exit(0);
  }
  close(fds[0]);
  *stop_fd = fds[1];
  return pid;
}

static void lend_races(void **state) {
  (void)state;
  int runs = 30 * node_stress_scale();
  race_shared *sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  assert_true(sh != MAP_FAILED);
  for (int run = 0; run < runs; run++) {
    bal__rng g;
    bal__rng_seed(&g, 7000 + (uint64_t)run);
    for (int k = 0; k < WORKERS; k++) atomic_store(&sh->seq[k], 0);
    /* 1 to 4 CPUs each, or 64 in some runs: a lend's cost must not depend
     * on it, and neither may what it does */
    int64_t per = bal__rng_below(&g, 5) ? 1 + (int64_t)bal__rng_below(&g, 4) : 64;
    char name[64];
    assert_int_equal(node_test_registry(name, per * WORKERS), BAL_OK);
    int stop;
    pid_t mon = monitor(name, &stop);
    pid_t pid[WORKERS];
    for (int k = 0; k < WORKERS; k++) {
      pid[k] = fork();
      assert_true(pid[k] >= 0);
      if (pid[k] == 0) race_worker(name, sh, k, per, (uint64_t)run * 100 + (uint64_t)k, 40);
    }
    /* In half the runs one worker is killed, in a quarter two, at random
     * times, whatever they hold or are doing. */
    bool killed[WORKERS] = {false};
    int kills = (int)bal__rng_below(&g, 4);
    kills = kills == 3 ? 2 : kills == 2 ? 1 : 0;
    int victim = (int)bal__rng_below(&g, WORKERS);
    for (int v = 0; v < kills; v++) {
      if (v > 0) victim = (victim + 1 + (int)bal__rng_below(&g, WORKERS - 1)) % WORKERS; /* another */
      struct timespec ts = {0, (long)bal__rng_below(&g, 4000000)};
      nanosleep(&ts, NULL);
      kill(pid[victim], SIGKILL);
      killed[victim] = true;
    }
    int failed = 0;
    for (int k = 0; k < WORKERS; k++) {
      int st;
      waitpid(pid[k], &st, 0);
      bool ok = killed[k] ? true : WIFEXITED(st) && WEXITSTATUS(st) == 0;
      if (!ok) failed = WIFEXITED(st) ? 10 * (k + 1) + WEXITSTATUS(st) : 100 + k;
    }
    close(stop);
    int st;
    waitpid(mon, &st, 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) failed = 1;
    /* Everyone gone (the victims cleaned now): every CPU free, none lent. */
    bal_node_manager *m;
    assert_int_equal(bal_node_manager_open(name, &m), BAL_OK);
    int left = bal_node_manager_list(m, NULL, 0), busy = 0;
    bal_node_cpu_info cpu[BAL_NODE_MAX_CPUS];
    int n = bal_node_manager_cpus(m, cpu, BAL_NODE_MAX_CPUS);
    for (int c = 0; c < n; c++) busy += cpu[c].pid != -1 || cpu[c].user != -1 || cpu[c].lent;
    bal_node_manager_close(m);
    assert_int_equal(bal_node_registry_destroy(name), BAL_OK);
    if (failed) fprintf(stderr, "run %d: failure %d (worker*10 + exit status; 1: monitor)\n", run, failed);
    assert_int_equal(failed, 0);
    assert_int_equal(left, 0);
    assert_int_equal(busy, 0);
  }
  munmap(sh, sizeof *sh);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(lend_borrow_reclaim, setup, teardown),
      cmocka_unit_test_setup_teardown(borrowed_are_passed_on, setup, teardown),
      cmocka_unit_test_setup_teardown(sigkill_lender, setup, teardown),
      cmocka_unit_test_setup_teardown(sigkill_borrower, setup, teardown),
      cmocka_unit_test_setup_teardown(manager_wins, setup, teardown),
      cmocka_unit_test_setup_teardown(pool_borrows, setup, teardown),
      cmocka_unit_test_setup_teardown(returning_lender_waits_one_poll, setup, teardown),
      cmocka_unit_test(null_handles),
      cmocka_unit_test(lend_races),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
