/* Node-level malleability in one program: the parent is the node manager,
 * two children are jobs A and B on a node of 16 virtual CPUs.
 * Build: cc node_shrink.c $(pkg-config --cflags --libs ballast) */
#define _POSIX_C_SOURCE 200809L /* fork, pipe, nanosleep under -std=c11 */
#include <ballast/ballast.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

static char REG[64]; /* "/node-example-PID": one registry per run */

/* A job: attach, then poll at each iteration (its malleability point). */
static int job(int64_t id, int iterations) {
  bal_node_attach_config cfg;
  bal_node_attach_config_init(&cfg);
  cfg.registry = REG;
  cfg.job = id;
  bal_node_proc *p;
  int rc = bal_node_attach(&cfg, &p);
  if (rc != BAL_OK) {
    fprintf(stderr, "job %lld: attach: %s\n", (long long)id, bal_strerror(rc));
    return 1;
  }
  for (int i = 0; i < iterations; i++) {
    bal_node_mask mask;
    bool changed;
    if (bal_node_poll(p, &mask, &changed) != BAL_OK) break;
    if (changed) {
      char list[256];
      bal_node_mask_format(&mask, list, sizeof list);
      printf("job %lld now runs on CPUs %s\n", (long long)id, list);
      fflush(stdout);
    }
    sleep_ms(10); /* one iteration of work on the CPUs of `mask` */
  }
  bal_node_detach(p); /* its CPUs return by the rule */
  return 0;
}

int main(void) {
  snprintf(REG, sizeof REG, "/node-example-%ld", (long)getpid());
  bal_node_registry_config rc;
  bal_node_registry_config_init(&rc);
  rc.name = REG;
  rc.virtual_cpus = 16;
  if (bal_node_registry_create(&rc) != BAL_OK) return 1;
  bal_node_manager *m;
  if (bal_node_manager_open(REG, &m) != BAL_OK) return 1;

  pid_t a = fork();
  if (a == 0) _exit(job(1, 60)); /* job A takes the 16 free CPUs */
  sleep_ms(100);

  int go[2];
  if (pipe(go) != 0) return 1;
  pid_t b = fork();
  if (b == 0) { /* job B waits until admitted, then attaches */
    char x;
    close(go[1]);
    if (read(go[0], &x, 1) != 1) _exit(1);
    _exit(job(2, 20));
  }
  close(go[0]);
  bal_node_mask granted;
  int code = bal_node_manager_admit(m, b, 2, 1, NULL, 0, &granted); /* next to every job */
  if (code == BAL_OK) {
    char list[256];
    bal_node_mask_format(&granted, list, sizeof list);
    printf("manager: admitted job 2 on CPUs %s\n", list);
  } else {
    printf("manager: admission refused: %s\n", bal_strerror(code));
  }
  fflush(stdout);
  if (write(go[1], "x", 1) != 1) return 1; /* B may attach */
  waitpid(b, NULL, 0);
  waitpid(a, NULL, 0);
  bal_node_manager_close(m);
  bal_node_registry_destroy(REG);
  return 0;
}
