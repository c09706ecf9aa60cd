// The seed's text lines (text.h).
#include <string.h>
#include "core/events.h"
#include "core/fmt.h"
#include "record/text.h"
#include "record/tkeys.h"

static inline uint32_t thread_hash(uint32_t k) {
  uint32_t rank;
  return k & TKEY_ALIAS ? tkey_hash(k, &rank) : k;
}

// field_word writes ",WORD", the word of index i of words (n of them;
// nothing after the comma for an index beyond).
static size_t field_word(char *o, const char *const *words, size_t n, unsigned i) {
  o[0] = ',';
  if (i >= n) return 1;
  size_t l = strlen(words[i]);
  memcpy(o + 1, words[i], l);
  return 1 + l;
}

size_t text_rec(char *o, const orca_rec *r) {
  const orca_event_spec *spec = &orca_events[r->kind];
  const orca_frame *fr = (const orca_frame *)(r + 1);
  size_t n = fmt_ts(o, r->ts);
  o[n++] = ',';
  size_t l = strlen(spec->name);
  memcpy(o + n, spec->name, l);
  n += l;
  // A thread is written as its identity hash (tkeys.h: an alias is the
  // compact encoding's), as the manual says.
  if (spec->fields & ORCA_F_THREAD) { o[n++] = ','; n += fmt_hex8(o + n, thread_hash(r->thread)); }
  if (spec->fields & ORCA_F_OBJECT) { o[n++] = ','; n += fmt_hex8(o + n, r->object); }
  if (spec->fields & ORCA_F_TARGET) { o[n++] = ','; n += fmt_hex8(o + n, thread_hash(r->object)); }
  if (spec->fields & ORCA_F_OWNER) { o[n++] = ','; n += fmt_hex8(o + n, thread_hash(r->owner)); }
  if (spec->fields & ORCA_F_LOCK) { o[n++] = ','; n += fmt_hex8(o + n, r->owner); }   // an object: no thread key
  if (spec->fields & ORCA_F_TEXT) {   // a name, class, timeout or how a park ended
    o[n++] = ',';
    n += fmt_text(o + n, (const char *)(fr + r->nframes), r->namelen);
  }
  if (spec->fields & ORCA_F_MODE) {
    static const char *const modes[] = ORCA_MODE_NAMES;
    n += field_word(o + n, modes, sizeof modes / sizeof modes[0], r->mode);
  }
  if (spec->fields & ORCA_F_SAMPLED) {
    static const char *const kinds[] = ORCA_SAMPLED_NAMES;
    n += field_word(o + n, kinds, sizeof kinds / sizeof kinds[0], r->mode);
  }
  if (spec->fields & ORCA_F_WEIGHT) { o[n++] = ','; n += fmt_uint(o + n, rec_weight(r)); }
  if (spec->fields & ORCA_F_CPU) {   // ThreadCPU: the record's text is "CPU,READY" (record/tcpu.h)
    o[n++] = ',';
    memcpy(o + n, (const char *)(fr + r->nframes), r->namelen);
    n += r->namelen;
  }
  if (spec->fields & ORCA_F_STACK) {
    o[n++] = ',';
    n += fmt_uint(o + n, r->nframes);
    for (int i = 0; i < r->nframes; i++) {
      o[n++] = ';';
      n += fmt_hex8(o + n, fr[i].method);
      o[n++] = ';';
      n += fmt_hex8(o + n, fr[i].location);
    }
  }
  o[n++] = '\n';
  return n;
}
