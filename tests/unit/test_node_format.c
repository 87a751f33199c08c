/* A registry segment someone else wrote badly: wrong magic, version or
 * size, or corrupted contents, gives BAL_EFORMAT to managers and
 * processes alike, never a crash; random garbage anywhere but the lock
 * word (which the header says is trusted) gives BAL_OK or BAL_EFORMAT and
 * never breaks the invariants when BAL_OK. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include <ballast/error.h>
#include <ballast/node.h>

#include "core/rng.h"
#include "node/node_internal.h"
#include "node_check.h"

/* Map the named segment raw, as a foreign writer would. */
static bal__node_shm *raw(const char *name) {
  int fd = shm_open(name, O_RDWR, 0);
  assert_true(fd >= 0);
  void *p = mmap(NULL, sizeof(bal__node_shm), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  assert_true(p != MAP_FAILED);
  return p;
}

static void expect_format(const char *name) {
  bal_node_manager *m = NULL;
  int rc = bal_node_manager_open(name, &m);
  if (rc == BAL_OK) {
    assert_int_equal(bal_node_manager_list(m, NULL, 0), BAL_EFORMAT);
    assert_int_equal(bal_node_manager_remove(m, 1), BAL_EFORMAT);
    bal_node_manager_close(m);
  } else {
    assert_int_equal(rc, BAL_EFORMAT);
  }
  bal_node_attach_config cfg;
  bal_node_attach_config_init(&cfg);
  cfg.registry = name;
  bal_node_proc *p = NULL;
  assert_int_equal(bal_node_attach(&cfg, &p), BAL_EFORMAT);
  assert_null(p);
}

typedef void (*spoil_fn)(bal__node_shm *s);
static void bad_magic(bal__node_shm *s) { s->magic ^= 1; }
static void bad_version(bal__node_shm *s) { s->version = 99; }
static void bad_size_field(bal__node_shm *s) { s->size = 12; }
static void bad_ncpus(bal__node_shm *s) { s->ncpus = BAL_NODE_MAX_CPUS + 1; }
static void bad_holder(bal__node_shm *s) { s->holder[3] = 9999; }
static void holder_past_node(bal__node_shm *s) { s->holder[20] = 0; }
static void bad_state(bal__node_shm *s) { s->slot[5].state = 7; }
static void bad_lender(bal__node_shm *s) { s->lender[1] = 424242; }
static void negative_ranks(bal__node_shm *s) { s->slot[0].ranks = -3; }
/* lending: slot 0 (the child) holds 0-7, slot 5 is free */
static void borrower_not_attached(bal__node_shm *s) { s->borrower[2] = 5; }
static void borrower_is_holder(bal__node_shm *s) { s->borrower[1] = 0; }
static void borrower_of_free_cpu(bal__node_shm *s) { s->borrower[12] = 0; }
static void borrower_past_node(bal__node_shm *s) { s->borrower[20] = 0; }
static void wrong_held(bal__node_shm *s) { atomic_store(&s->slot[0].held, 3); }
static void bad_lending(bal__node_shm *s) { atomic_store(&s->slot[0].lending, 7); }

static void corrupted_segments_are_format_errors(void **state) {
  (void)state;
  const spoil_fn spoil[] = {bad_magic, bad_version, bad_size_field, bad_ncpus, bad_holder,
                            holder_past_node, bad_state, bad_lender, negative_ranks,
                            borrower_not_attached, borrower_is_holder, borrower_of_free_cpu,
                            borrower_past_node, wrong_held, bad_lending};
  for (size_t k = 0; k < sizeof spoil / sizeof *spoil; k++) {
    char name[64];
    assert_int_equal(node_test_registry(name, 16), BAL_OK);
    node_child a;
    node_child_spawn(&a, name, 1, 1, "0-7");
    assert_int_equal(node_child_cmd(&a, 'a', NULL), BAL_OK);
    bal__node_shm *s = raw(name);
    spoil[k](s);
    expect_format(name);
    /* the attached process's next slow-path poll reports it too */
    atomic_fetch_add(&s->slot[0].gen, 1);
    assert_int_equal(node_child_cmd(&a, 'p', NULL), BAL_EFORMAT);
    munmap(s, sizeof *s);
    node_child_end(&a);
    assert_int_equal(bal_node_registry_destroy(name), BAL_OK);
  }
}

static void wrong_size_is_a_format_error(void **state) {
  (void)state;
  char name[64];
  assert_int_equal(node_test_registry(name, 16), BAL_OK);
  int fd = shm_open(name, O_RDWR, 0);
  assert_true(fd >= 0);
  assert_int_equal(ftruncate(fd, 4096), 0);
  close(fd);
  expect_format(name);
  assert_int_equal(bal_node_registry_destroy(name), BAL_OK);
  /* an object that is no registry at all */
  assert_int_equal(node_test_registry(name, 16), BAL_OK);
  fd = shm_open(name, O_RDWR, 0);
  assert_true(fd >= 0);
  assert_int_equal(ftruncate(fd, 0), 0);
  assert_int_equal(ftruncate(fd, (off_t)sizeof(bal__node_shm)), 0);
  close(fd);
  expect_format(name);
  assert_int_equal(bal_node_registry_destroy(name), BAL_OK);
}

/* Random bytes over the holder, lender and slot tables (seeded): every call
 * returns BAL_OK or BAL_EFORMAT; when BAL_OK, the invariants hold. */
static void garbage_never_crashes(void **state) {
  (void)state;
  for (uint64_t seed = 0; seed < 200; seed++) {
    char name[64];
    assert_int_equal(node_test_registry(name, 32), BAL_OK);
    bal__node_shm *s = raw(name);
    bal__rng r;
    bal__rng_seed(&r, seed);
    size_t from = offsetof(bal__node_shm, holder), len = sizeof *s - from;
    int bytes = 1 + (int)bal__rng_below(&r, 8);
    for (int b = 0; b < bytes; b++)
      ((unsigned char *)s)[from + bal__rng_below(&r, len)] = (unsigned char)bal__rng_next(&r);
    bal_node_manager *m;
    assert_int_equal(bal_node_manager_open(name, &m), BAL_OK);
    int rc = bal_node_manager_list(m, NULL, 0);
    assert_true(rc >= 0 || rc == BAL_EFORMAT);
    if (rc >= 0) assert_true(node_invariant(m));
    bal_node_manager_close(m);
    munmap(s, sizeof *s);
    assert_int_equal(bal_node_registry_destroy(name), BAL_OK);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(corrupted_segments_are_format_errors),
      cmocka_unit_test(wrong_size_is_a_format_error),
      cmocka_unit_test(garbage_never_crashes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
