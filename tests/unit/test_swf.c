/* sched: the SWF reader on every pitfall of real logs, the filters, the
 * machine defaults and the errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include <ballast/ballast.h>

/* A job line: id submit runtime alloc req_procs req_time partition. */
#define LINE(id, sub, run, alloc, rp, rt, part) \
  #id " " #sub " -1 " #run " " #alloc " -1 -1 " #rp " " #rt " -1 1 1 1 -1 1 " #part " -1 -1\n"

static bal_swf_trace *parse(const char *text, const bal_swf_options *opt) {
  bal_swf_trace *t = NULL;
  bal_swf_error err;
  int rc = bal_swf_read_mem(text, strlen(text), opt, &t, &err);
  if (rc != BAL_OK) fprintf(stderr, "line %lld: %s\n", (long long)err.line, err.message);
  assert_int_equal(rc, BAL_OK);
  assert_non_null(t);
  return t;
}

static void header_fields_with_trailing_text(void **state) {
  (void)state;
  const char *text = "; Version: 2.2\n"
                     ";MaxNodes: 338 (batch partition; 512 total)\n"
                     "; MaxProcs:\t1352   (4 per node)\n"
                     "; UnixStartTime: 1170175078\n"
                     "; Partition:  1  pbatch    \n"
                     "; Partition:  2  pdebug\n"
                     "; Note: MaxNodes: 5 inside a note is not a header field\n";
  bal_swf_trace *t = parse(text, NULL);
  assert_int_equal(t->header.max_nodes, 338);
  assert_int_equal(t->header.max_procs, 1352);
  assert_int_equal(t->header.unix_start_time, 1170175078);
  assert_int_equal(t->header.partitions, 2);
  assert_int_equal(t->njobs, 0);
  assert_int_equal(t->stats.lines, 7);
  int64_t n, c;
  assert_int_equal(bal_swf_machine(t, 0, 0, &n, &c), BAL_OK);
  assert_int_equal(n, 338);
  assert_int_equal(c, 4);
  bal_swf_trace_destroy(t);
}

static void machine_defaults_only_when_determined(void **state) {
  (void)state;
  bal_swf_trace *t = parse("; MaxNodes: 5544\n; MaxProcs: 93312\n", NULL);
  int64_t n = -7, c = -7;
  /* Curie: 93,312 / 5,544 is not an integer: the header does not decide */
  assert_int_equal(bal_swf_machine(t, 0, 0, &n, &c), BAL_EINVAL);
  assert_int_equal(n, -7);
  assert_int_equal(bal_swf_machine(t, 5040, 16, &n, &c), BAL_OK);
  assert_int_equal(n, 5040);
  assert_int_equal(c, 16);
  assert_int_equal(bal_swf_machine(t, 0, 16, &n, &c), BAL_OK); /* 93312 / 16 */
  assert_int_equal(n, 5832);
  assert_int_equal(bal_swf_machine(t, 5000, 0, &n, &c), BAL_EINVAL);
  assert_int_equal(bal_swf_machine(t, -1, 16, &n, &c), BAL_EINVAL);
  bal_swf_trace_destroy(t);
  t = parse("; MaxProcs: 100\n", NULL); /* no MaxNodes */
  assert_int_equal(bal_swf_machine(t, 0, 0, &n, &c), BAL_EINVAL);
  bal_swf_trace_destroy(t);
}

static void requested_procs_fall_back_to_allocated(void **state) {
  (void)state;
  const char *text = LINE(1, 0, 10, 32, -1, 100, 1) LINE(2, 1, 10, -1, -1, 100, 1)
      LINE(3, 2, 10, 8, 16, 100, 1) LINE(4, 3, 10, -1, 4, 100, 1);
  bal_swf_trace *t = parse(text, NULL);
  assert_int_equal(t->njobs, 3);
  assert_int_equal(t->stats.dropped_no_procs, 1); /* job 2: both -1 */
  assert_int_equal(t->stats.procs_from_alloc, 1);
  assert_int_equal(t->jobs[0].procs, 32);
  assert_true(t->jobs[0].procs_from_alloc);
  assert_int_equal(t->jobs[1].id, 3);
  assert_int_equal(t->jobs[1].procs, 16); /* field 8 wins over field 5 */
  assert_int_equal(t->jobs[2].procs, 4);
  assert_false(t->jobs[2].procs_from_alloc);
  bal_swf_trace_destroy(t);
}

static void requested_time_falls_back_to_runtime(void **state) {
  (void)state;
  bal_swf_trace *t = parse(LINE(1, 0, 77, 4, 4, -1, 1) LINE(2, 0, 50, 4, 4, 60, 1), NULL);
  assert_int_equal(t->njobs, 2);
  assert_int_equal(t->jobs[0].req_time, 77);
  assert_true(t->jobs[0].req_time_from_runtime);
  assert_int_equal(t->jobs[1].req_time, 60);
  assert_false(t->jobs[1].req_time_from_runtime || t->jobs[1].procs_from_alloc ||
               t->jobs[1].runtime_over_req);
  assert_int_equal(t->stats.req_time_from_runtime, 1);
  bal_swf_trace_destroy(t);
}

static void runtime_over_request_zero_and_negative(void **state) {
  (void)state;
  const char *text = LINE(1, 0, 500, 4, 4, 100, 1) LINE(2, 1, 0, 4, 4, 100, 1)
      LINE(3, 2, -1, 4, 4, 100, 1);
  bal_swf_trace *t = parse(text, NULL);
  assert_int_equal(t->njobs, 2);
  assert_true(t->jobs[0].runtime_over_req);
  assert_int_equal(t->jobs[0].runtime, 500);
  assert_int_equal(t->jobs[0].req_time, 100); /* kept: it runs its real runtime */
  assert_int_equal(t->jobs[1].runtime, 0);
  assert_int_equal(t->stats.runtime_over_req, 1);
  assert_int_equal(t->stats.runtime_zero, 1);
  assert_int_equal(t->stats.dropped_no_runtime, 1);
  bal_swf_trace_destroy(t);
}

static void out_of_order_submits_are_sorted(void **state) {
  (void)state;
  const char *text = LINE(1, 100, 1, 1, 1, 1, 1) LINE(2, 50, 1, 1, 1, 1, 1)
      LINE(4, 50, 1, 1, 1, 1, 1) LINE(3, 50, 1, 1, 1, 1, 1) LINE(5, 200, 1, 1, 1, 1, 1);
  bal_swf_trace *t = parse(text, NULL);
  assert_int_equal(t->njobs, 5);
  assert_int_equal(t->stats.out_of_order, 1);
  int64_t expect[] = {2, 3, 4, 1, 5}; /* submit time, then job number */
  for (int i = 0; i < 5; i++) assert_int_equal(t->jobs[i].id, expect[i]);
  bal_swf_trace_destroy(t);
  /* a repeated job number at one instant keeps the file order */
  t = parse(LINE(1, 100, 1, 1, 1, 1, 1) LINE(9, 10, 5, 1, 1, 5, 1) LINE(9, 10, 6, 1, 1, 6, 1),
            NULL);
  assert_int_equal(t->jobs[0].runtime, 5);
  assert_int_equal(t->jobs[1].runtime, 6);
  assert_int_equal(t->jobs[2].id, 1);
  bal_swf_trace_destroy(t);
}

static void malformed_lines_name_the_line(void **state) {
  (void)state;
  const char *cases[] = {
      "; header\n" LINE(1, 0, 1, 1, 1, 1, 1) "2 5 -1 10 4\n",              /* too few */
      "; header\n" LINE(1, 0, 1, 1, 1, 1, 1) "2 5 -1 1x 4 -1 -1 4 10 -1 1 1 1 -1 1 1 -1 -1\n",
      "; header\n" LINE(1, 0, 1, 1, 1, 1, 1) "2 5 -1 10 4 -1 -1 4 10 -1 1 1 1 -1 1 1 -1 -1 7\n",
      "; header\n" LINE(1, 0, 1, 1, 1, 1, 1) "2 5 -1 10 4 -1 -1 4 10 -1 1 1 1 -1 1 1 -1 --\n",
      "; header\n" LINE(1, 0, 1, 1, 1, 1, 1) "2 5 -1 99999999999999999999 4 -1 -1 4 10 -1 1 1 "
      "1 -1 1 1 -1 -1\n",
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    bal_swf_trace *t = (bal_swf_trace *)0x1;
    bal_swf_error err;
    assert_int_equal(bal_swf_read_mem(cases[i], strlen(cases[i]), NULL, &t, &err), BAL_EFORMAT);
    assert_ptr_equal(t, (bal_swf_trace *)0x1); /* untouched */
    assert_int_equal(err.line, 3);
    assert_true(strlen(err.message) > 0);
    bal_swf_options opt;
    bal_swf_options_init(&opt);
    opt.lenient = true;
    t = parse(cases[i], &opt);
    assert_int_equal(t->njobs, 1);
    assert_int_equal(t->stats.malformed_skipped, 1);
    bal_swf_trace_destroy(t);
  }
  bal_swf_error err;
  bal_swf_trace *t;
  const char *bad = "1 2 3\n";
  assert_int_equal(bal_swf_read_mem(bad, strlen(bad), NULL, &t, &err), BAL_EFORMAT);
  assert_non_null(strstr(err.message, "18 fields"));
}

/* The reader's message for a job line whose field 4 (runtime) is tok. */
static void field4_message(const char *tok, char *msg, size_t n) {
  char line[160];
  snprintf(line, sizeof line, "1 0 -1 %s 1 -1 -1 1 10 -1 1 1 1 -1 1 1 -1 -1\n", tok);
  bal_swf_trace *t;
  bal_swf_error err;
  assert_int_equal(bal_swf_read_mem(line, strlen(line), NULL, &t, &err), BAL_EFORMAT);
  snprintf(msg, n, "%s", err.message);
}

/* A number the reader cannot hold is "too large", not "not a number": past
 * 18 digits, or a decimal of magnitude 9e17 or more. 18 digits are fine. */
static void numbers_too_large(void **state) {
  (void)state;
  static const char *const big[] = {"1234567890123456789", "-1234567890123456789",
                                    "99999999999999999999999", "9.5e17", "-1e30",
                                    "999999999999999999", "-999999999999999999",
                                    "900000000000000000", "-900000000000000000", "9e17",
                                    "-9e17", "0900000000000000000"};
  static const char *const nan[] = {"12345678901234567890x", "1e", "--5"};
  char msg[sizeof ((bal_swf_error *)0)->message];
  for (size_t i = 0; i < sizeof big / sizeof big[0]; i++) {
    field4_message(big[i], msg, sizeof msg);
    assert_non_null(strstr(msg, "too large (field 4)"));
  }
  for (size_t i = 0; i < sizeof nan / sizeof nan[0]; i++) {
    field4_message(nan[i], msg, sizeof msg);
    assert_non_null(strstr(msg, "not a number (field 4)"));
  }
  const char *ok = "1 0 -1 123456789012345678 1 -1 -1 1 10 -1 1 1 1 -1 1 1 -1 -1\n";
  bal_swf_trace *t = parse(ok, NULL);
  assert_int_equal(t->jobs[0].runtime, INT64_C(123456789012345678));
  bal_swf_trace_destroy(t);
  const char *edge = "1 0 -1 899999999999999999 1 -1 -1 1 10 -1 1 1 1 -1 1 1 -1 -1\n";
  t = parse(edge, NULL);
  assert_int_equal(t->jobs[0].runtime, INT64_C(899999999999999999));
  bal_swf_trace_destroy(t);
}

/* A temporary file holding len bytes of data, gzip-compressed when gz. */
static void write_temp(char path[], const char *data, size_t len, bool gz) {
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  if (gz) {
    gzFile f = gzdopen(fd, "wb");
    assert_non_null(f);
    assert_int_equal(gzwrite(f, data, (unsigned)len), (int)len);
    assert_int_equal(gzclose(f), Z_OK);
  } else {
    assert_int_equal(write(fd, data, len), (ssize_t)len);
    close(fd);
  }
}

/* A line longer than BAL_SWF_MAX_LINE is refused at its line, by both
 * readers and in both modes; the file reader stops at it, so a file that
 * never ends a line is refused rather than read until memory runs out. */
static void lines_have_a_length_limit(void **state) {
  (void)state;
  size_t n = BAL_SWF_MAX_LINE + 64;
  char *text = malloc(n + 1);
  assert_non_null(text);
  const char *head = "; MaxNodes: 8\n; MaxProcs: 8\n;";
  size_t hl = strlen(head);
  memcpy(text, head, hl);
  /* line 3: ';' then spaces, exactly the limit */
  memset(text + hl, ' ', BAL_SWF_MAX_LINE - 1);
  size_t len = hl + BAL_SWF_MAX_LINE - 1;
  text[len++] = '\n';
  text[len] = '\0'; /* parse() takes a NUL-terminated text */
  bal_swf_trace *t = parse(text, NULL);
  assert_int_equal(t->header.max_nodes, 8);
  bal_swf_trace_destroy(t);
  /* one byte more */
  memcpy(text, head, hl);
  memset(text + hl, ' ', BAL_SWF_MAX_LINE);
  len = hl + BAL_SWF_MAX_LINE;
  text[len++] = '\n';
  bal_swf_options opt;
  bal_swf_options_init(&opt);
  for (int lenient = 0; lenient <= 1; lenient++) {
    opt.lenient = lenient;
    bal_swf_error err;
    t = (bal_swf_trace *)0x1;
    assert_int_equal(bal_swf_read_mem(text, len, &opt, &t, &err), BAL_EFORMAT);
    assert_ptr_equal(t, (bal_swf_trace *)0x1);
    assert_int_equal(err.line, 3);
    assert_non_null(strstr(err.message, "line longer than"));
    /* the same text through the file reader, without its last newline */
    char path[] = "/tmp/ballast_swf_XXXXXX";
    write_temp(path, text, len - 1, false);
    assert_int_equal(bal_swf_read_file(path, &opt, &t, &err), BAL_EFORMAT);
    assert_int_equal(err.line, 3);
    assert_non_null(strstr(err.message, "line longer than"));
    remove(path);
    /* no newline ever */
    assert_int_equal(bal_swf_read_file("/dev/zero", &opt, &t, &err), BAL_EFORMAT);
    assert_int_equal(err.line, 1);
    assert_ptr_equal(t, (bal_swf_trace *)0x1);
  }
  free(text);
}

/* Lenient mode on a text with no valid job line (binary data, say) is
 * BAL_EFORMAT "no valid job lines" at line 0, never an empty trace; a text
 * with no job lines at all is a valid empty trace in either mode. */
static void lenient_needs_one_valid_line(void **state) {
  (void)state;
  static const char png[] = "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\n\x7f binary junk\n";
  bal_swf_options opt;
  bal_swf_options_init(&opt);
  opt.lenient = true;
  bal_swf_trace *t = (bal_swf_trace *)0x1;
  bal_swf_error err;
  assert_int_equal(bal_swf_read_mem(png, sizeof png - 1, &opt, &t, &err), BAL_EFORMAT);
  assert_ptr_equal(t, (bal_swf_trace *)0x1);
  assert_int_equal(err.line, 0);
  assert_non_null(strstr(err.message, "no valid job lines"));
  /* one valid line among the junk is enough */
  const char *mixed = "junk\n" LINE(1, 0, 1, 1, 1, 1, 1) "more junk\n";
  t = parse(mixed, &opt);
  assert_int_equal(t->njobs, 1);
  assert_int_equal(t->stats.malformed_skipped, 2);
  bal_swf_trace_destroy(t);
  /* a valid line dropped by a filter still counts as valid */
  opt.partition = 7;
  t = parse(mixed, &opt);
  assert_int_equal(t->njobs, 0);
  bal_swf_trace_destroy(t);
  opt.partition = -1;
  t = parse("; only a comment\n", &opt);
  assert_int_equal(t->njobs, 0);
  bal_swf_trace_destroy(t);
}

static void decimals_blank_lines_tabs_and_crlf(void **state) {
  (void)state;
  const char *text = "\n   \n; MaxNodes: 4\r\n"
                     "1\t0\t-1\t10\t4\t12.5\t1024.75\t4\t20\t-1\t1\t1\t1\t-1\t1\t1\t-1\t-1\r\n"
                     "  2 3 -1 1e2 2 -1 -1 2 3.6e2 -1 1 1 1 -1 1 1 -1 -1"; /* no final newline */
  bal_swf_trace *t = parse(text, NULL);
  assert_int_equal(t->header.max_nodes, 4);
  assert_int_equal(t->njobs, 2);
  assert_int_equal(t->jobs[0].runtime, 10);
  assert_int_equal(t->jobs[1].runtime, 100);
  assert_int_equal(t->jobs[1].req_time, 360);
  bal_swf_trace_destroy(t);
  t = parse("", NULL);
  assert_int_equal(t->njobs, 0);
  bal_swf_trace_destroy(t);
}

static void filters_partition_window_first(void **state) {
  (void)state;
  const char *text = LINE(1, 0, 1, 1, 1, 1, 10) LINE(2, 10, 1, 1, 1, 1, 3)
      LINE(3, 20, 1, -1, -1, 1, 10) LINE(4, 30, 1, 1, 1, 1, 10) LINE(5, 40, 1, 1, 1, 1, 10)
          LINE(6, 50, 1, 1, 1, 1, 10) LINE(7, 60, 1, 1, 1, 1, 10);
  bal_swf_options opt;
  bal_swf_options_init(&opt);
  opt.partition = 10;
  bal_swf_trace *t = parse(text, &opt);
  assert_int_equal(t->njobs, 5);
  assert_int_equal(t->stats.filtered_partition, 1);
  assert_int_equal(t->stats.dropped_no_procs, 1);
  bal_swf_trace_destroy(t);
  opt.from = 10;
  opt.to = 60; /* [10, 60) */
  t = parse(text, &opt);
  assert_int_equal(t->njobs, 3); /* 4, 5, 6 */
  assert_int_equal(t->jobs[0].id, 4);
  assert_int_equal(t->stats.filtered_window, 2);
  bal_swf_trace_destroy(t);
  bal_swf_options_init(&opt);
  opt.first = 2; /* the first 2 kept jobs: dropped ones do not count */
  opt.partition = 10;
  t = parse(text, &opt);
  assert_int_equal(t->njobs, 2);
  assert_int_equal(t->jobs[1].id, 4);
  assert_int_equal(t->stats.filtered_first, 3);
  bal_swf_trace_destroy(t);
  opt.first = -1;
  assert_int_equal(bal_swf_read_mem(text, strlen(text), &opt, &t, NULL), BAL_EINVAL);
}

static void files_plain_and_gzip(void **state) {
  (void)state;
  bal_swf_trace *a, *b;
  bal_swf_error err;
  assert_int_equal(bal_swf_read_file(BALLAST_TEST_DATA "/sched_small.swf", NULL, &a, &err), BAL_OK);
  assert_int_equal(bal_swf_read_file(BALLAST_TEST_DATA "/sched_small.swf.gz", NULL, &b, &err),
                   BAL_OK);
  assert_int_equal(a->njobs, 5);
  assert_int_equal(a->njobs, b->njobs);
  for (int64_t i = 0; i < a->njobs; i++) { /* field by field: padding may differ */
    const bal_swf_job *x = &a->jobs[i], *y = &b->jobs[i];
    assert_true(x->id == y->id && x->submit == y->submit && x->runtime == y->runtime &&
                x->procs == y->procs && x->req_time == y->req_time && x->status == y->status &&
                x->user == y->user && x->partition == y->partition &&
                x->req_time_from_runtime == y->req_time_from_runtime &&
                x->procs_from_alloc == y->procs_from_alloc &&
                x->runtime_over_req == y->runtime_over_req);
  }
  assert_memory_equal(&a->stats, &b->stats, sizeof a->stats);
  assert_int_equal(a->header.max_nodes, 10);
  assert_int_equal(a->header.partitions, 2);
  assert_int_equal(a->jobs[1].id, 3); /* submitted at 5, before job 2 */
  assert_int_equal(a->stats.out_of_order, 1);
  bal_swf_trace_destroy(a);
  bal_swf_trace_destroy(b);
  assert_int_equal(bal_swf_read_file(BALLAST_TEST_DATA "/no-such-file.swf", NULL, &a, &err),
                   BAL_EIO);
  assert_true(strlen(err.message) > 0);
  assert_int_equal(bal_swf_read_file(NULL, NULL, &a, &err), BAL_EINVAL);
  /* a truncated gzip file is an I/O error, not a short trace */
  FILE *in = fopen(BALLAST_TEST_DATA "/sched_small.swf.gz", "rb");
  assert_non_null(in);
  char buf[4096];
  size_t len = fread(buf, 1, sizeof buf, in);
  fclose(in);
  char path[] = "/tmp/ballast_swf_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  FILE *out = fdopen(fd, "wb");
  assert_non_null(out);
  fwrite(buf, 1, len * 2 / 3, out);
  fclose(out);
  assert_int_equal(bal_swf_read_file(path, NULL, &a, &err), BAL_EIO);
  assert_non_null(strstr(err.message, "gzip"));
  remove(path);
}

/* Text grown by appending, for the tests' large inputs. */
typedef struct text {
  char *s;
  size_t n, cap;
} text;

static void add(text *t, const char *s) {
  size_t l = strlen(s);
  if (t->n + l + 1 > t->cap) {
    t->cap = (t->n + l + 1) * 2;
    t->s = realloc(t->s, t->cap);
    assert_non_null(t->s);
  }
  memcpy(t->s + t->n, s, l + 1);
  t->n += l;
}

/* The file reader parses a chunk at a time: lines that straddle its chunks
 * (1 MiB) read as the memory reader reads them, plain and gzip'd, and a bad
 * line past the first chunk is named by its number. */
static void files_are_parsed_as_read(void **state) {
  (void)state;
  text tx = {0};
  add(&tx, "; MaxNodes: 8\n; MaxProcs: 8\n");
  char line[160];
  for (int i = 1; i <= 40000; i++) { /* about 2 MB, lines of varying length */
    snprintf(line, sizeof line, "%d %d -1 %d 1 -1 -1 1 %d -1 1 %d 1 -1 1 1 -1 -1\n%s", i,
             (i * 7919) % 100000, i % 977, i % 977 + i % 13, i % 50, i % 11 ? "" : "; c\n\n");
    add(&tx, line);
  }
  bal_swf_trace *m = parse(tx.s, NULL);
  assert_int_equal(m->njobs, 40000);
  for (int gz = 0; gz <= 1; gz++) {
    char path[] = "/tmp/ballast_swf_XXXXXX";
    write_temp(path, tx.s, tx.n, gz);
    bal_swf_trace *f = NULL;
    bal_swf_error err;
    assert_int_equal(bal_swf_read_file(path, NULL, &f, &err), BAL_OK);
    remove(path);
    assert_int_equal(f->njobs, m->njobs);
    assert_memory_equal(&f->stats, &m->stats, sizeof f->stats);
    assert_memory_equal(&f->header, &m->header, sizeof f->header);
    for (int64_t i = 0; i < f->njobs; i++) {
      assert_int_equal(f->jobs[i].id, m->jobs[i].id);
      assert_int_equal(f->jobs[i].submit, m->jobs[i].submit);
      assert_int_equal(f->jobs[i].runtime, m->jobs[i].runtime);
      assert_int_equal(f->jobs[i].user, m->jobs[i].user);
    }
    bal_swf_trace_destroy(f);
  }
  /* a bad line at the end: the same line number from both readers */
  add(&tx, "1 2 3\n");
  bal_swf_error em, ef;
  bal_swf_trace *t = (bal_swf_trace *)0x1;
  assert_int_equal(bal_swf_read_mem(tx.s, tx.n, NULL, &t, &em), BAL_EFORMAT);
  char path[] = "/tmp/ballast_swf_XXXXXX";
  write_temp(path, tx.s, tx.n, true);
  assert_int_equal(bal_swf_read_file(path, NULL, &t, &ef), BAL_EFORMAT);
  remove(path);
  assert_ptr_equal(t, (bal_swf_trace *)0x1);
  assert_true(em.line > 40000);
  assert_int_equal(ef.line, em.line);
  assert_string_equal(ef.message, em.message);
  bal_swf_trace_destroy(m);
  free(tx.s);
}

/* Deterministic bytes that look random: no valid job line, a few comment
 * and blank lines, lines of a few hundred bytes (as /dev/urandom). */
static char *garbage(size_t n) {
  char *g = malloc(n);
  assert_non_null(g);
  uint64_t x = 88172645463325252u;
  for (size_t i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    g[i] = (char)(x >> 24);
  }
  return g;
}

/* Lenient file reads stop at BAL_SWF_MAX_BAD_RUN malformed job lines in a
 * row, at the line that completed the run; comments and blank lines do not
 * break the run, a valid line does; the memory reader has no limit. Also
 * on garbage, gzip'd or not, and on an endless stream (/dev/urandom), in
 * either mode. */
static void lenient_file_reads_stop_at_a_run_of_bad_lines(void **state) {
  (void)state;
  bal_swf_options opt;
  bal_swf_options_init(&opt);
  opt.lenient = true;
  /* 1 + (MAX - 1 bad, comments and blank lines between) + valid + MAX - 1 bad: read */
  text tx = {0};
  add(&tx, LINE(1, 0, 1, 1, 1, 1, 1));
  for (int i = 1; i < BAL_SWF_MAX_BAD_RUN; i++) add(&tx, i % 100 ? "bad\n" : "; comment\n\n");
  add(&tx, LINE(2, 1, 1, 1, 1, 1, 1));
  int64_t line_of_2 = 1 + (BAL_SWF_MAX_BAD_RUN - 1) + (BAL_SWF_MAX_BAD_RUN - 1) / 100 + 1;
  for (int i = 1; i < BAL_SWF_MAX_BAD_RUN; i++) add(&tx, "bad\n");
  char path[] = "/tmp/ballast_swf_XXXXXX";
  write_temp(path, tx.s, tx.n, false);
  bal_swf_trace *t = NULL;
  bal_swf_error err;
  assert_int_equal(bal_swf_read_file(path, &opt, &t, &err), BAL_OK);
  remove(path);
  assert_int_equal(t->njobs, 2);
  int64_t skipped = 2 * (BAL_SWF_MAX_BAD_RUN - 1) - (BAL_SWF_MAX_BAD_RUN - 1) / 100;
  assert_int_equal(t->stats.malformed_skipped, skipped);
  bal_swf_trace_destroy(t);
  /* one more bad line completes a run */
  add(&tx, "bad\n");
  strcpy(path, "/tmp/ballast_swf_XXXXXX");
  write_temp(path, tx.s, tx.n, true);
  t = (bal_swf_trace *)0x1;
  assert_int_equal(bal_swf_read_file(path, &opt, &t, &err), BAL_EFORMAT);
  remove(path);
  assert_ptr_equal(t, (bal_swf_trace *)0x1);
  assert_int_equal(err.line, line_of_2 + BAL_SWF_MAX_BAD_RUN);
  assert_non_null(strstr(err.message, "malformed lines in a row"));
  /* the memory reader keeps every valid line whatever the run */
  t = parse(tx.s, &opt);
  assert_int_equal(t->njobs, 2);
  assert_int_equal(t->stats.malformed_skipped, skipped + 1);
  bal_swf_trace_destroy(t);
  free(tx.s);
  /* 4 MB of garbage, plain and gzip'd: refused well before its end */
  size_t n = 4 << 20;
  char *g = garbage(n);
  for (int gz = 0; gz <= 1; gz++) {
    strcpy(path, "/tmp/ballast_swf_XXXXXX");
    write_temp(path, g, n, gz);
    t = (bal_swf_trace *)0x1;
    assert_int_equal(bal_swf_read_file(path, &opt, &t, &err), BAL_EFORMAT);
    assert_ptr_equal(t, (bal_swf_trace *)0x1);
    assert_non_null(strstr(err.message, "malformed lines in a row"));
    assert_true(err.line >= BAL_SWF_MAX_BAD_RUN && err.line < 2 * BAL_SWF_MAX_BAD_RUN);
    /* strict mode stops at the first job line */
    opt.lenient = false;
    assert_int_equal(bal_swf_read_file(path, &opt, &t, &err), BAL_EFORMAT);
    assert_true(err.line >= 1 && err.line < 100);
    opt.lenient = true;
    remove(path);
  }
  free(g);
  /* never ends: both modes must still return */
  for (int lenient = 0; lenient <= 1; lenient++) {
    opt.lenient = lenient;
    t = (bal_swf_trace *)0x1;
    assert_int_equal(bal_swf_read_file("/dev/urandom", &opt, &t, &err), BAL_EFORMAT);
    assert_ptr_equal(t, (bal_swf_trace *)0x1);
    assert_true(err.line >= 1);
  }
}

/* A quoted token shows bytes a terminal would act on as '?'. */
static void binary_tokens_are_quoted_printable(void **state) {
  (void)state;
  static const char bin[] = "\x1b[31m\x01\xff 2\n";
  bal_swf_trace *t = (bal_swf_trace *)0x1;
  bal_swf_error err;
  assert_int_equal(bal_swf_read_mem(bin, sizeof bin - 1, NULL, &t, &err), BAL_EFORMAT);
  assert_string_equal(err.message, "'?[31m?" "?' is not a number (field 1)"); /* no trigraph */
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(header_fields_with_trailing_text),
      cmocka_unit_test(machine_defaults_only_when_determined),
      cmocka_unit_test(requested_procs_fall_back_to_allocated),
      cmocka_unit_test(requested_time_falls_back_to_runtime),
      cmocka_unit_test(runtime_over_request_zero_and_negative),
      cmocka_unit_test(out_of_order_submits_are_sorted),
      cmocka_unit_test(malformed_lines_name_the_line),
      cmocka_unit_test(decimals_blank_lines_tabs_and_crlf),
      cmocka_unit_test(filters_partition_window_first),
      cmocka_unit_test(files_plain_and_gzip),
      cmocka_unit_test(numbers_too_large),
      cmocka_unit_test(lines_have_a_length_limit),
      cmocka_unit_test(lenient_needs_one_valid_line),
      cmocka_unit_test(files_are_parsed_as_read),
      cmocka_unit_test(lenient_file_reads_stop_at_a_run_of_bad_lines),
      cmocka_unit_test(binary_tokens_are_quoted_printable),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
