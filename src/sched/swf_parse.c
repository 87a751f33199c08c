/* SWF text -> bal_swf_trace: line splitting, header comments, the 18 numeric
 * fields, the pitfalls of real logs and the filters. Hand-written number
 * parsing because strtod on every field of a 300k-line log costs more than
 * the whole EASY simulation. */
#include "swf_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define SWF_FIELDS 18

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int fail(bal_swf_error *err, int64_t line, const char *fmt, ...) {
  if (err) {
    err->line = line;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
  }
  return BAL_EFORMAT;
}

static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

/* What parse_number made of a token. */
typedef enum number_rc { NUM_OK, NUM_NAN, NUM_TOO_LARGE } number_rc;

/* Parse one token [p, end) as a number rounded to the nearest integer.
 * Integers take the fast path (at most 18 digits, so no overflow); decimals
 * and exponents go through strtod; both must stay below 9e17 in magnitude
 * (swf.h). */
static number_rc parse_number(const char *p, const char *end, int64_t *out) {
  const char *s = p;
  bool neg = false;
  if (s < end && (*s == '-' || *s == '+')) neg = (*s++ == '-');
  if (s == end) return NUM_NAN;
  int64_t v = 0;
  int digits = 0;
  while (s < end && *s >= '0' && *s <= '9') {
    if (++digits > 18) {
      /* the rest must still be a number for "too large" to be the reason */
      while (s < end && *s >= '0' && *s <= '9') s++;
      return s == end ? NUM_TOO_LARGE : NUM_NAN;
    }
    v = v * 10 + (*s++ - '0');
  }
  if (s == end) {
    if (digits == 0) return NUM_NAN;
    /* 18 digits hold up to 999999999999999999: the same bound as decimals */
    if (v >= INT64_C(900000000000000000)) return NUM_TOO_LARGE;
    *out = neg ? -v : v;
    return NUM_OK;
  }
  if (*s != '.' && *s != 'e' && *s != 'E') return NUM_NAN;
  char tmp[64];
  size_t len = (size_t)(end - p);
  if (len >= sizeof tmp) return NUM_NAN;
  memcpy(tmp, p, len);
  tmp[len] = '\0';
  char *stop;
  double d = strtod(tmp, &stop);
  if (*stop != '\0' || d != d) return NUM_NAN;
  if (!(d > -9.0e17 && d < 9.0e17)) return NUM_TOO_LARGE;
  *out = (int64_t)(d < 0 ? d - 0.5 : d + 0.5);
  return NUM_OK;
}

/* `; Key: value trailing text` -> header fields. */
static void parse_comment(const char *p, const char *end, bal_swf_header *h) {
  while (p < end && (*p == ';' || is_space(*p))) p++;
  const char *colon = memchr(p, ':', (size_t)(end - p));
  if (!colon) return;
  size_t klen = (size_t)(colon - p);
  while (klen > 0 && is_space(p[klen - 1])) klen--;
  const char *v = colon + 1;
  while (v < end && is_space(*v)) v++;
  const char *ve = v;
  while (ve < end && ((*ve >= '0' && *ve <= '9') || (ve == v && *ve == '-'))) ve++;
  int64_t value;
  bool has = ve > v && parse_number(v, ve, &value) == NUM_OK;
#define KEY(name) (klen == sizeof(name) - 1 && strncasecmp(p, name, klen) == 0)
  if (KEY("Partition")) h->partitions++;
  else if (has && KEY("MaxNodes")) h->max_nodes = value;
  else if (has && KEY("MaxProcs")) h->max_procs = value;
  else if (has && KEY("UnixStartTime")) h->unix_start_time = value;
#undef KEY
}

static int push(bal__sched_swf_jobs *g, const bal_swf_job *j) {
  if (g->n == g->cap) {
    size_t cap = g->cap ? g->cap * 2 : 4096;
    bal_swf_job *nj = realloc(g->jobs, cap * sizeof *nj);
    if (!nj) return BAL_ENOMEM;
    g->jobs = nj;
    g->cap = cap;
  }
  g->jobs[g->n++] = *j;
  return BAL_OK;
}

/* Fields of one job line; BAL_OK, or BAL_EFORMAT with the reason in err. */
static int parse_fields(const char *p, const char *end, int64_t f[SWF_FIELDS], int64_t line,
                        bal_swf_error *err) {
  int n = 0;
  while (p < end) {
    while (p < end && is_space(*p)) p++;
    if (p == end) break;
    const char *t = p;
    while (p < end && !is_space(*p)) p++;
    if (n == SWF_FIELDS) return fail(err, line, "more than 18 fields");
    number_rc nrc = parse_number(t, p, &f[n]);
    if (nrc != NUM_OK) {
      char tok[32];
      size_t len = (size_t)(p - t) < sizeof tok - 1 ? (size_t)(p - t) : sizeof tok - 1;
      /* bytes a terminal would act on (escapes, NUL) are shown as '?':
       * the message quotes whatever the file holds, binary included */
      for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)t[i];
        tok[i] = c >= 0x20 && c < 0x7f ? (char)c : '?';
      }
      tok[len] = '\0';
      return fail(err, line,
                  nrc == NUM_TOO_LARGE ? "'%s' is too large (field %d)"
                                       : "'%s' is not a number (field %d)",
                  tok, n + 1);
    }
    n++;
  }
  if (n < SWF_FIELDS) return fail(err, line, "expected 18 fields, found %d", n);
  return BAL_OK;
}

/* Apply the drop rules and filters to one record; 1 = keep, 0 = skip. */
static int accept(const int64_t f[SWF_FIELDS], const bal_swf_options *o, bal_swf_stats *st,
                  bal_swf_job *j) {
  if (o->partition >= 0 && f[15] != o->partition) {
    st->filtered_partition++;
    return 0;
  }
  if (f[1] < o->from || f[1] >= o->to) {
    st->filtered_window++;
    return 0;
  }
  int64_t procs = f[7] > 0 ? f[7] : f[4];
  if (procs <= 0) {
    st->dropped_no_procs++;
    return 0;
  }
  if (f[3] < 0) {
    st->dropped_no_runtime++;
    return 0;
  }
  if (o->first > 0 && st->jobs >= o->first) {
    st->filtered_first++;
    return 0;
  }
  memset(j, 0, sizeof *j);
  j->id = f[0];
  j->submit = f[1];
  j->runtime = f[3];
  j->procs = procs;
  j->procs_from_alloc = f[7] <= 0;
  j->req_time = f[8];
  if (f[8] < 0) {
    j->req_time = f[3];
    j->req_time_from_runtime = true;
  }
  j->runtime_over_req = j->runtime > j->req_time;
  j->status = f[10];
  j->user = f[11];
  j->partition = f[15];
  st->req_time_from_runtime += j->req_time_from_runtime;
  st->procs_from_alloc += j->procs_from_alloc;
  st->runtime_over_req += j->runtime_over_req;
  st->runtime_zero += j->runtime == 0;
  st->jobs++;
  return 1;
}

typedef struct sort_key {
  int64_t submit, id;
  size_t pos;
} sort_key;

static int cmp_key(const void *a, const void *b) {
  const sort_key *x = a, *y = b;
  if (x->submit != y->submit) return x->submit < y->submit ? -1 : 1;
  if (x->id != y->id) return x->id < y->id ? -1 : 1;
  return (x->pos > y->pos) - (x->pos < y->pos);
}

/* Sort by submit time, then job number, then file order (qsort is not
 * stable, and logs do repeat job numbers). */
static int sort_jobs(bal__sched_swf_jobs *g) {
  sort_key *k = malloc(g->n * sizeof *k);
  bal_swf_job *out = malloc(g->n * sizeof *out);
  if (!k || !out) {
    free(k);
    free(out);
    return BAL_ENOMEM;
  }
  for (size_t i = 0; i < g->n; i++) k[i] = (sort_key){g->jobs[i].submit, g->jobs[i].id, i};
  qsort(k, g->n, sizeof *k, cmp_key);
  for (size_t i = 0; i < g->n; i++) out[i] = g->jobs[k[i].pos];
  free(k);
  free(g->jobs);
  g->jobs = out;
  g->cap = g->n;
  return BAL_OK;
}

void bal__sched_swf_begin(bal__sched_swf_parser *p, const bal_swf_options *opt,
                          bal_swf_trace *t, bal_swf_error *err) {
  memset(p, 0, sizeof *p);
  p->opt = opt;
  p->t = t;
  p->err = err;
  p->sorted = true;
  p->last_submit = p->last_id = INT64_MIN;
  t->header.max_nodes = t->header.max_procs = t->header.unix_start_time = -1;
}

/* One line [s, le) without its newline, at most BAL_SWF_MAX_LINE bytes,
 * already counted in p->line. */
static int parse_line(bal__sched_swf_parser *p, const char *s, const char *le) {
  while (s < le && is_space(*s)) s++;
  if (s == le) return BAL_OK;
  if (*s == ';') {
    parse_comment(s, le, &p->t->header);
    return BAL_OK;
  }
  bal_swf_stats *st = &p->t->stats;
  int64_t f[SWF_FIELDS];
  int rc = parse_fields(s, le, f, p->line, p->err);
  if (rc != BAL_OK) {
    if (!p->opt->lenient) return rc;
    st->malformed_skipped++;
    /* comments and blank lines neither count nor break a run: random bytes
     * hold a few of them, and must still stop the read */
    if (p->max_bad_run > 0 && ++p->bad_run >= p->max_bad_run)
      return fail(p->err, p->line, "%d malformed lines in a row: not an SWF trace?",
                  (int)p->max_bad_run);
    return BAL_OK;
  }
  p->bad_run = 0;
  st->records++;
  bal_swf_job j;
  if (!accept(f, p->opt, st, &j)) return BAL_OK;
  if (j.submit < p->last_submit) st->out_of_order++;
  if (j.submit < p->last_submit || (j.submit == p->last_submit && j.id < p->last_id))
    p->sorted = false;
  p->last_submit = j.submit;
  p->last_id = j.id;
  return push(&p->g, &j);
}

int bal__sched_swf_feed(bal__sched_swf_parser *p, const char *buf, size_t len, bool last,
                        size_t *used) {
  const char *s = buf, *end = buf + len;
  while (s < end) {
    const char *nl = memchr(s, '\n', (size_t)(end - s));
    const char *le = nl ? nl : end;
    /* a line too long is refused even unfinished: the file reader's buffer
     * holds no more */
    if ((size_t)(le - s) > BAL_SWF_MAX_LINE)
      return fail(p->err, p->line + 1, "line longer than %d bytes", BAL_SWF_MAX_LINE);
    if (!nl && !last) break; /* an unfinished line waits for more text */
    p->line++;
    int rc = parse_line(p, s, le);
    if (rc != BAL_OK) return rc;
    s = nl ? nl + 1 : end;
  }
  *used = (size_t)(s - buf);
  return BAL_OK;
}

int bal__sched_swf_finish(bal__sched_swf_parser *p) {
  bal_swf_stats *st = &p->t->stats;
  st->lines = p->line;
  /* Lenient mode skipped every job line: this was not SWF at all. */
  if (st->records == 0 && st->malformed_skipped > 0) {
    if (p->err) {
      p->err->line = 0;
      snprintf(p->err->message, sizeof p->err->message,
               "no valid job lines (%lld malformed skipped)", (long long)st->malformed_skipped);
    }
    return BAL_EFORMAT;
  }
  int rc;
  if (!p->sorted && (rc = sort_jobs(&p->g)) != BAL_OK) return rc;
  p->t->jobs = p->g.jobs;
  p->t->njobs = (int64_t)p->g.n;
  p->g.jobs = NULL; /* the trace owns them now */
  p->g.n = p->g.cap = 0;
  return BAL_OK;
}

void bal__sched_swf_abandon(bal__sched_swf_parser *p) {
  free(p->g.jobs);
  p->g.jobs = NULL;
  p->g.n = p->g.cap = 0;
}
