/* Private: the SWF text parser shared by the file and memory readers. It
 * takes the text in pieces, so that the file reader parses as it reads and
 * stops at the first line it refuses instead of reading the rest first:
 *   bal__sched_swf_begin, then bal__sched_swf_feed for each piece (the last
 *   with last = true), then bal__sched_swf_finish; after any failure (theirs
 *   or the caller's) bal__sched_swf_abandon, which frees what was kept. */
#ifndef BALLAST_SCHED_SWF_INTERNAL_H
#define BALLAST_SCHED_SWF_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include <ballast/swf.h>

/* The jobs kept so far, in file order. */
typedef struct bal__sched_swf_jobs {
  bal_swf_job *jobs;
  size_t n, cap;
} bal__sched_swf_jobs;

typedef struct bal__sched_swf_parser {
  const bal_swf_options *opt; /* non-NULL */
  bal_swf_trace *t;           /* header and stats filled as lines arrive */
  bal_swf_error *err;         /* may be NULL */
  /* Lenient mode: this many malformed job lines in a row are BAL_EFORMAT
   * (the file reader sets BAL_SWF_MAX_BAD_RUN); 0 = no limit, as in
   * bal_swf_read_mem, whose input is finite. */
  int64_t max_bad_run;
  int64_t bad_run; /* malformed job lines since the last valid one */
  int64_t line;    /* lines parsed so far */
  bal__sched_swf_jobs g;
  bool sorted; /* the jobs so far are in (submit, id) order */
  int64_t last_submit, last_id;
} bal__sched_swf_parser;

/* Start a parse into t (zeroed by the caller) under opt (non-NULL). */
void bal__sched_swf_begin(bal__sched_swf_parser *p, const bal_swf_options *opt,
                          bal_swf_trace *t, bal_swf_error *err);

/* Parse the whole lines of buf[0, len) and, when last, the unterminated
 * line at its end; *used receives the bytes consumed, the rest (an
 * unfinished line of at most BAL_SWF_MAX_LINE bytes) must come again at the
 * start of the next piece. BAL_OK, BAL_EFORMAT (err filled) or BAL_ENOMEM. */
int bal__sched_swf_feed(bal__sched_swf_parser *p, const char *buf, size_t len, bool last,
                        size_t *used);

/* End of text: sort the jobs and hand them to t. BAL_OK, BAL_EFORMAT
 * (lenient and no valid job line) or BAL_ENOMEM. */
int bal__sched_swf_finish(bal__sched_swf_parser *p);

/* Free what the parser still holds (nothing after a successful finish). */
void bal__sched_swf_abandon(bal__sched_swf_parser *p);

#endif
