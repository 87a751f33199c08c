/* tools/common: the flag parser (cli.h) and the JSON writer (json.h). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/cli.h"
#include "common/json.h"
#include "common/output.h"

static void test_int_text(void **state) {
  (void)state;
  char err[256];
  int64_t v = 0;
  assert_true(cli_int_text("0", 0, 10, &v, err, sizeof err));
  assert_int_equal(v, 0);
  assert_true(cli_int_text("-9223372036854775808", INT64_MIN, INT64_MAX, &v, err, sizeof err));
  assert_true(v == INT64_MIN);
  assert_true(cli_int_text("10", 0, 10, &v, err, sizeof err));
  assert_int_equal(v, 10);
  /* decimal only: what strtoll(.., 0) would have read as something else */
  static const char *const bad[] = {"010", "0x10", " 5", "5 ", "+5", "", "-", "1e3", "1.0", "--1"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    v = 42;
    assert_false(cli_int_text(bad[i], -100, 100, &v, err, sizeof err));
    assert_int_equal(v, 42); /* untouched */
    assert_non_null(strstr(err, "is not a decimal integer"));
  }
  assert_false(cli_int_text("11", 0, 10, &v, err, sizeof err));
  assert_string_equal(err, "11 is out of range [0, 10]");
  assert_false(cli_int_text("9223372036854775808", 0, INT64_MAX, &v, err, sizeof err));
  assert_non_null(strstr(err, "out of range"));
}

static void test_uint_and_double_text(void **state) {
  (void)state;
  char err[256];
  uint64_t u = 0;
  assert_true(cli_uint_text("18446744073709551615", &u, err, sizeof err));
  assert_true(u == UINT64_MAX);
  assert_false(cli_uint_text("18446744073709551616", &u, err, sizeof err));
  assert_false(cli_uint_text("-1", &u, err, sizeof err));
  assert_false(cli_uint_text(" -1", &u, err, sizeof err)); /* was 2^64-1 */
  double d = 0;
  assert_true(cli_double_text("0.5", 0, 1, true, true, &d, err, sizeof err));
  assert_true(d == 0.5);
  assert_true(cli_double_text("-.5e1", -10, 10, false, false, &d, err, sizeof err));
  assert_true(d == -5);
  assert_false(cli_double_text("0", 0, 64, true, false, &d, err, sizeof err));
  assert_string_equal(err, "0 is out of range (0, 64]");
  assert_true(cli_double_text("64", 0, 64, true, false, &d, err, sizeof err));
  static const char *const bad[] = {"nan", "inf", "-inf", "0x1p3", " 1", "+1", "1e999", "", "1,5"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    assert_false(cli_double_text(bad[i], -1e300, 1e300, false, false, &d, err, sizeof err));
}

typedef struct parsed {
  int64_t n;
  bool json, n_given;
  const char *path, *pos;
  int choice;
} parsed;

static const char *const colours[] = {"red", "green", NULL};

static int parse(parsed *p, int argc, const char **argv) {
  *p = (parsed){.n = 7, .choice = 1};
  const cli_flag flags[] = {
      CLI_SECTION("Things:"),
      {.kind = CLI_KIND_INT, .name = "--n", .metavar = "N", .dest = &p->n, .given = &p->n_given,
       .imin = 1, .imax = 9, .help = "a number\nsecond line"},
      CLI_BOOL("--json", &p->json, "JSON"),
      CLI_PATH("--out", "FILE", &p->path, "where"),
      CLI_CHOICE("--colour", "C", &p->choice, colours, "red or green"),
      CLI_END};
  const cli_program prog = {.name = "prog", .usage = "prog [options] X", .flags = flags,
                            .positional = "X", .positional_dest = &p->pos};
  return cli_parse(&prog, argc, (char **)argv);
}

static void test_parse(void **state) {
  (void)state;
  parsed p;
  const char *ok[] = {"prog", "--n", "3", "--json", "x", "--out=a.csv", "--colour", "red"};
  assert_int_equal(parse(&p, 8, ok), CLI_CONTINUE);
  assert_int_equal(p.n, 3);
  assert_true(p.n_given && p.json);
  assert_string_equal(p.pos, "x");
  assert_string_equal(p.path, "a.csv");
  assert_int_equal(p.choice, 0);
  const char *defaults[] = {"prog"};
  assert_int_equal(parse(&p, 1, defaults), CLI_CONTINUE);
  assert_int_equal(p.n, 7);
  assert_false(p.n_given);
  /* a value that is a flag is refused, not taken as a file name */
  const char *flag_value[] = {"prog", "--out", "--json"};
  assert_int_equal(parse(&p, 3, flag_value), 2);
  assert_null(p.path);
  const char *explicit_value[] = {"prog", "--out=--json"};
  assert_int_equal(parse(&p, 2, explicit_value), CLI_CONTINUE);
  assert_string_equal(p.path, "--json");
  const char *negative[] = {"prog", "--n", "-1"}; /* a value, out of range */
  assert_int_equal(parse(&p, 3, negative), 2);
  const char *missing[] = {"prog", "--n"};
  assert_int_equal(parse(&p, 2, missing), 2);
  const char *unknown[] = {"prog", "--nn", "1"};
  assert_int_equal(parse(&p, 3, unknown), 2);
  const char *two[] = {"prog", "a", "b"};
  assert_int_equal(parse(&p, 3, two), 2);
  const char *bool_value[] = {"prog", "--json=1"};
  assert_int_equal(parse(&p, 2, bool_value), 2);
  const char *choice[] = {"prog", "--colour", "blue"};
  assert_int_equal(parse(&p, 3, choice), 2);
  const char *dashdash[] = {"prog", "--", "--n"}; /* after "--": positional */
  assert_int_equal(parse(&p, 3, dashdash), CLI_CONTINUE);
  assert_string_equal(p.pos, "--n");
  const char *help_wins[] = {"prog", "--n", "bad", "--help"};
  FILE *saved = stdout;
  stdout = fopen("/dev/null", "w");
  assert_non_null(stdout);
  int rc = parse(&p, 4, help_wins);
  fclose(stdout);
  stdout = saved;
  assert_int_equal(rc, 0);
}

static char *help_text(void) {
  parsed p;
  const cli_flag flags[] = {
      CLI_SECTION("Things:"),
      CLI_INT("--n", "N", &p.n, 1, 9, "a number\nsecond line"),
      CLI_BOOL("--json", &p.json, "JSON"),
      CLI_END};
  const cli_program prog = {.name = "prog", .usage = "prog [options]", .description = "Does.",
                            .flags = flags, .epilog = "Bye."};
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  assert_non_null(f);
  cli_help(&prog, f);
  fclose(f);
  return buf;
}

/* The operand hook: positionals in order, "--" ends the flags (then even
 * "-1" is a positional), and unknown flags before it are errors. */
typedef struct operands {
  const char *got[4];
  int n;
} operands;

static bool take_operand(const char *arg, void *ctx) {
  operands *o = ctx;
  if (o->n == 4) return false;
  o->got[o->n++] = arg;
  return true;
}

static int parse_operands(operands *o, int argc, const char **argv) {
  *o = (operands){0};
  bool json = false;
  const cli_flag flags[] = {CLI_BOOL("--json", &json, "JSON"), CLI_END};
  const cli_program prog = {.name = "prog", .usage = "prog [--json] A B", .flags = flags,
                            .operand = take_operand, .operand_ctx = o};
  return cli_parse(&prog, argc, (char **)argv);
}

static void test_operands(void **state) {
  (void)state;
  operands o;
  const char *after[] = {"prog", "--json", "a", "--", "-1", "--json"};
  assert_int_equal(parse_operands(&o, 6, after), CLI_CONTINUE);
  assert_int_equal(o.n, 3);
  assert_string_equal(o.got[0], "a");
  assert_string_equal(o.got[1], "-1");
  assert_string_equal(o.got[2], "--json");
  const char *before[] = {"prog", "-1"};
  assert_int_equal(parse_operands(&o, 2, before), 2); /* unknown flag */
  assert_int_equal(o.n, 0);
  const char *dash[] = {"prog", "-"};
  assert_int_equal(parse_operands(&o, 2, dash), CLI_CONTINUE);
  assert_string_equal(o.got[0], "-");
}

static void test_quote(void **state) {
  (void)state;
  char b[64];
  assert_string_equal(cli_quote("plain name", b, sizeof b), "plain name");
  assert_string_equal(cli_quote("a\nb\tc", b, sizeof b), "a\\nb\\tc");
  assert_string_equal(cli_quote("\x1b[31m\x7f", b, sizeof b), "\\x1b[31m\\x7f");
  assert_string_equal(cli_quote("caf\xc3\xa9", b, sizeof b), "caf\xc3\xa9"); /* UTF-8 kept */
  char small[8];
  assert_string_equal(cli_quote("abcdefghij", small, sizeof small), "abcd...");
  assert_string_equal(cli_quote("ab\n\n\n", small, sizeof small), "ab\\n...");
}

static void test_help_layout(void **state) {
  (void)state;
  char *h = help_text();
  assert_string_equal(h, "usage: prog [options]\n"
                         "\n"
                         "Does.\n"
                         "\n"
                         "Things:\n"
                         "  --n N       a number\n"
                         "              second line\n"
                         "  --json      JSON\n"
                         "  --help, -h  print this help and exit\n"
                         "  --version   print the program's version and exit\n"
                         "\n"
                         "Bye.\n");
  free(h);
}

static char *json_of(void (*fill)(json_writer *)) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  assert_non_null(f);
  json_writer j;
  json_init(&j, f);
  fill(&j);
  assert_true(json_finish(&j));
  fclose(f);
  return buf;
}

/* Nesting deeper than JSON_MAX_DEPTH would put values in the wrong
 * container: the document fails and nothing is printed. */
static void test_json_failure_prints_nothing(void **state) {
  (void)state;
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  assert_non_null(f);
  json_writer j;
  json_init(&j, f);
  for (int i = 0; i <= JSON_MAX_DEPTH; i++) json_object_begin(&j, "deeper");
  json_int(&j, "x", 1);
  for (int i = 0; i <= JSON_MAX_DEPTH; i++) json_object_end(&j);
  assert_false(json_finish(&j));
  /* the writer is usable again */
  json_object_begin(&j, NULL);
  json_int(&j, "x", 1);
  json_object_end(&j);
  assert_true(json_finish(&j));
  fclose(f);
  assert_string_equal(buf, "{\"x\":1}\n");
  free(buf);
}

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define UNDER_SANITIZER 1 /* they reserve far more address space than RLIMIT_AS allows */
#else
#define UNDER_SANITIZER 0
#endif

/* Out of memory for real: in a child whose address space is capped, a
 * string the writer cannot copy fails the document instead of vanishing
 * from it. */
static void test_json_out_of_memory(void **state) {
  (void)state;
  if (UNDER_SANITIZER) skip();
  size_t n = (size_t)64 << 20;
  char *big = malloc(n + 1);
  assert_non_null(big);
  memset(big, 'a', n);
  big[n] = '\0';
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    struct rlimit rl;
    getrlimit(RLIMIT_AS, &rl);
    /* room for what is mapped now and a little: not for 3 x 64 MB more */
    FILE *st = fopen("/proc/self/statm", "r");
    unsigned long pages = 0;
    if (!st || fscanf(st, "%lu", &pages) != 1) _exit(3);
    fclose(st);
    rl.rlim_cur = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + ((rlim_t)32 << 20);
    if (setrlimit(RLIMIT_AS, &rl) != 0) _exit(3);
    FILE *out = fopen("/dev/null", "w");
    if (!out) _exit(3);
    json_writer j;
    json_init(&j, out);
    json_object_begin(&j, NULL);
    json_string(&j, "big", big);
    json_object_end(&j);
    _exit(json_finish(&j) ? 1 : 0);
  }
  int status;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  assert_true(WIFEXITED(status));
  assert_int_equal(WEXITSTATUS(status), 0);
  free(big);
}

/* A file written through out_open()/out_commit() keeps the permissions of
 * the file it replaces; a new one gets 0666 less the umask. */
static void test_output_mode(void **state) {
  (void)state;
  char dir[] = "/tmp/ballast_out_XXXXXX";
  assert_non_null(mkdtemp(dir));
  char path[256];
  snprintf(path, sizeof path, "%s/out.txt", dir);
  mode_t old = umask(027);
  out_file o;
  assert_true(out_open(&o, "test", "--out", path));
  fputs("one\n", o.f);
  assert_true(out_commit(&o));
  struct stat sb;
  assert_int_equal(stat(path, &sb), 0);
  assert_int_equal(sb.st_mode & 07777, 0640);
  assert_int_equal(chmod(path, 0604), 0);
  assert_true(out_open(&o, "test", "--out", path));
  fputs("two\n", o.f);
  assert_true(out_commit(&o));
  assert_int_equal(stat(path, &sb), 0);
  assert_int_equal(sb.st_mode & 07777, 0604);
  assert_int_equal(sb.st_size, 4);
  /* a file reserved for another program keeps the mode too */
  assert_int_equal(chmod(path, 0600), 0);
  assert_true(out_reserve(&o, "test", "--out", path));
  FILE *f = fopen(o.tmp, "w");
  assert_non_null(f);
  fputs("three\n", f);
  fclose(f);
  assert_true(out_commit(&o));
  assert_int_equal(stat(path, &sb), 0);
  assert_int_equal(sb.st_mode & 07777, 0600);
  assert_int_equal(sb.st_size, 6);
  umask(old);
  assert_int_equal(unlink(path), 0);
  assert_int_equal(rmdir(dir), 0); /* no temporary file left behind */
}

static void fill_values(json_writer *j) {
  json_object_begin(j, NULL);
  json_string(j, "file", "/tmp/tr\xff" "ce \xc3\xa9\xe2\x82\xac\xed\xa0\x80.swf");
  json_string(j, "ctl", "a\"b\\c\n\x01");
  json_string(j, "none", NULL);
  json_int(j, "i", INT64_MIN);
  json_uint(j, "u", UINT64_MAX);
  json_double(j, "tenth", 0.1);
  json_double(j, "third", 1.0 / 3.0);
  json_double(j, "whole", 100);
  json_double(j, "big", 1e20);
  json_double(j, "mixed", 1234.5);
  json_double(j, "small", 2.5e-7);
  json_double(j, "nan", NAN);
  json_double(j, "inf", -INFINITY);
  json_bool(j, "b", true);
  json_array_begin(j, "a");
  json_int(j, NULL, 1);
  json_object_begin(j, NULL);
  json_raw(j, "raw", "{\"x\": 1.50, \"y\": [true]}");
  json_raw(j, "broken", "{");
  json_object_end(j);
  json_array_end(j);
  json_object_end(j);
}

static void test_json(void **state) {
  (void)state;
  char *s = json_of(fill_values);
  assert_string_equal(
      s, "{\"file\":\"/tmp/tr\xef\xbf\xbd" "ce \xc3\xa9\xe2\x82\xac\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd.swf\","
         "\"ctl\":\"a\\\"b\\\\c\\n\\u0001\",\"none\":null,\"i\":-9223372036854775808,"
         "\"u\":18446744073709551615,\"tenth\":0.1,\"third\":0.3333333333333333,"
         "\"whole\":100,\"big\":1e+20,\"mixed\":1234.5,\"small\":2.5e-07,\"nan\":null,\"inf\":null,\"b\":true,"
         "\"a\":[1,{\"raw\":{\"x\":1.50,\"y\":[true]},\"broken\":null}]}\n");
  free(s);
}

/* The i-th of a fixed sequence of doubles of every magnitude (the bits of
 * xorshift64 draws; some are NaN or infinite). */
static double some_double(uint64_t *x) {
  *x ^= *x << 13;
  *x ^= *x >> 7;
  *x ^= *x << 17;
  double d;
  memcpy(&d, x, sizeof d);
  return d;
}

static void fill_doubles(json_writer *j) {
  json_array_begin(j, NULL);
  uint64_t x = 88172645463325252ull;
  for (int i = 0; i < 2000; i++) json_double(j, NULL, some_double(&x));
  json_array_end(j);
}

static void test_json_doubles_round_trip(void **state) {
  (void)state;
  char *s = json_of(fill_doubles);
  uint64_t x = 88172645463325252ull;
  char *p = s + 1;
  for (int i = 0; i < 2000; i++) {
    double d = some_double(&x);
    if (!isfinite(d)) {
      assert_memory_equal(p, "null", 4);
      p += 4;
    } else {
      char *end;
      double back = strtod(p, &end);
      assert_true(end > p);
      assert_true(back == d);
      p = end;
    }
    assert_true(*p == ',' || *p == ']');
    p++;
  }
  free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_int_text),         cmocka_unit_test(test_uint_and_double_text),
      cmocka_unit_test(test_parse),            cmocka_unit_test(test_help_layout),
      cmocka_unit_test(test_operands),         cmocka_unit_test(test_quote),
      cmocka_unit_test(test_json),             cmocka_unit_test(test_json_doubles_round_trip),
      cmocka_unit_test(test_json_failure_prints_nothing),
      cmocka_unit_test(test_json_out_of_memory),
      cmocka_unit_test(test_output_mode),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
