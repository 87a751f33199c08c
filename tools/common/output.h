/* Outputs written whole or not at all (docs/CONVENTIONS.md, "Tools"): a
 * file is written under a temporary name in its destination directory and
 * renamed over the destination only when every byte is out, so a failed
 * run leaves no partial file; and the directory is checked before the work
 * that fills it. A destination that exists and is not a regular file
 * (/dev/stdout, a FIFO) is written in place; a symbolic link is written
 * through. Messages name the flag: "PROG: FLAG: PATH: reason". */
#ifndef BALLAST_TOOLS_OUTPUT_H
#define BALLAST_TOOLS_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

/* The directory that is to hold the file `path` exists and is writable.
 * Otherwise prints why and returns false. Call it while parsing. */
bool out_check_dir(const char *prog, const char *flag, const char *path);

/* `dir` is a writable directory, or can be made one (its parent exists
 * and is writable): for flags that name an output directory. */
bool out_check_dir_itself(const char *prog, const char *flag, const char *dir);

typedef struct out_file {
  const char *prog, *flag;
  char path[4096]; /* the destination */
  char tmp[4096];  /* the temporary file beside it */
  FILE *f;         /* open on tmp after out_open(); NULL after out_reserve() */
  bool direct;     /* the destination is a device or pipe: written in place */
} out_file;

/* Create the temporary file beside `path` and open it for writing in o->f.
 * Returns false after printing why. */
bool out_open(out_file *o, const char *prog, const char *flag, const char *path);

/* Create the temporary file beside `path` for another program to write
 * (gnuplot's `set output`): its name is o->tmp. */
bool out_reserve(out_file *o, const char *prog, const char *flag, const char *path);

/* Close (checking every write), fsync and rename the temporary file to the
 * destination, then fsync its directory, so that after a crash the
 * destination holds the old file or the whole new one. The new file has
 * the permissions of the file it replaces, or, for a new one, those a
 * plain fopen() would give it (0666 less the umask). An empty file from
 * out_reserve() is a failure (the other program wrote nothing). On failure
 * the temporary file is removed, the destination untouched, and false
 * returned after printing why; the one exception is a directory that
 * could not be synced after the rename (the message says the file was
 * written). */
bool out_commit(out_file *o);

/* Close and remove the temporary file (after a failure elsewhere). */
void out_discard(out_file *o);

#endif
