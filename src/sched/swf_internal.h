/* Private: the SWF text parser shared by the file and memory readers. */
#ifndef BALLAST_SCHED_SWF_INTERNAL_H
#define BALLAST_SCHED_SWF_INTERNAL_H

#include <ballast/swf.h>

/* Parse len bytes of SWF text into t (zeroed by the caller) under opt
 * (non-NULL). BAL_OK, BAL_EFORMAT (err filled) or BAL_ENOMEM. */
int bal__sched_swf_parse(const char *buf, size_t len, const bal_swf_options *opt, bal_swf_trace *t,
                   bal_swf_error *err);

#endif
