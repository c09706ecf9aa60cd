// The seed's text lines of PREFIX.orca (docs/orca-backend-manual.txt), the
// encoding the writer uses unless format=compact (compact.h): one line an
// event, its fields in the order of its kind's spec (core/events.h).
#ifndef ORCA_TEXT_H
#define ORCA_TEXT_H
#include <stddef.h>
#include "core/orca.h"
#include "record/rec.h"

// The longest line: fixed fields, ORCA_MAX_DEPTH frames, a quoted name.
#define TEXT_LINE_MAX (96 + ORCA_MAX_DEPTH * 18 + 2 * 65536 + 2)

// text_max: the most bytes text_rec writes for r: fixed fields, 18 bytes a
// frame and a name that doubles when quoted.
static inline size_t text_max(const orca_rec *r) { return 96 + (size_t)r->nframes * 18 + (size_t)r->namelen * 2; }

// text_rec writes r's line at o (a thread as its identity hash, an alias
// as the hash it stands for: tkeys.h) and returns its length.
size_t text_rec(char *o, const orca_rec *r);

#endif
