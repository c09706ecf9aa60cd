#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "hooks/cfio.h"
#include "hooks/classfile.h"

// Constant pool: offsets of each entry, for Utf8 look-ups.
typedef struct {
  const unsigned char **at;
  unsigned count;
} cp_t;

static int utf8_eq(const cp_t *cp, unsigned idx, const char *s) {
  if (idx == 0 || idx >= cp->count || !cp->at[idx] || cp->at[idx][0] != 1) return 0;
  unsigned len = (unsigned)cp->at[idx][1] << 8 | cp->at[idx][2];
  return strlen(s) == len && !memcmp(cp->at[idx] + 3, s, len);
}

static void utf8_copy(const cp_t *cp, unsigned idx, char *out, size_t cap) {
  out[0] = 0;
  if (idx == 0 || idx >= cp->count || !cp->at[idx] || cp->at[idx][0] != 1) return;
  unsigned len = (unsigned)cp->at[idx][1] << 8 | cp->at[idx][2];
  if (len >= cap) len = (unsigned)cap - 1;
  memcpy(out, cp->at[idx] + 3, len);
  out[len] = 0;
}

// New constant-pool entries, appended after the existing ones.
typedef struct {
  wr_t w;
  unsigned next;
} newcp_t;

static unsigned add_utf8(newcp_t *c, const char *s) {
  w1(&c->w, 1);
  w2(&c->w, (unsigned)strlen(s));
  put(&c->w, s, strlen(s));
  return c->next++;
}
static unsigned add_ref(newcp_t *c, unsigned tag, unsigned a, unsigned b) {
  w1(&c->w, tag);
  w2(&c->w, a);
  if (tag != 7) w2(&c->w, b);
  return c->next++;
}

// Descriptor walking: local slots of the arguments and the load opcodes.
typedef struct {
  unsigned char load[255];
  unsigned char slot[255];
  int nargs, slots;
  unsigned char ret_op;   // return opcode
  int ret_slots;
} sig_t;

static int parse_desc(const char *d, sig_t *s) {
  memset(s, 0, sizeof *s);
  int slot = 1;
  if (*d++ != '(') return 0;
  while (*d && *d != ')') {
    unsigned char op;
    int width = 1;
    switch (*d) {
      case 'J': op = 0x16; width = 2; d++; break;
      case 'D': op = 0x18; width = 2; d++; break;
      case 'F': op = 0x17; d++; break;
      case 'I': case 'Z': case 'B': case 'C': case 'S': op = 0x15; d++; break;
      case 'L': op = 0x19; d = strchr(d, ';'); if (!d) return 0; d++; break;
      case '[':
        op = 0x19;
        while (*d == '[') d++;
        if (*d == 'L') { d = strchr(d, ';'); if (!d) return 0; }
        d++;
        break;
      default: return 0;
    }
    if (s->nargs >= 250 || slot > 250) return 0;
    s->load[s->nargs] = op;
    s->slot[s->nargs] = (unsigned char)slot;
    s->nargs++;
    slot += width;
  }
  if (*d++ != ')') return 0;
  s->slots = slot - 1;
  switch (*d) {
    case 'V': s->ret_op = 0xb1; s->ret_slots = 0; break;
    case 'J': s->ret_op = 0xad; s->ret_slots = 2; break;
    case 'D': s->ret_op = 0xaf; s->ret_slots = 2; break;
    case 'F': s->ret_op = 0xae; s->ret_slots = 1; break;
    case 'L': case '[': s->ret_op = 0xb0; s->ret_slots = 1; break;
    default: s->ret_op = 0xac; s->ret_slots = 1; break;
  }
  return 1;
}

// call_hook calls the hook (hook_ref) with op and this; arg_slot > 0: and
// the long in that local slot (orca$hookJ).
static void call_hook(wr_t *c, unsigned op, unsigned hook_ref, int arg_slot) {
  if (op <= 5) {
    w1(c, 0x03 + op);    // iconst_<op>
  } else {
    w1(c, 0x10);         // bipush op
    w1(c, op);
  }
  w1(c, 0x2a);           // aload_0
  if (arg_slot > 0) {
    w1(c, 0x16);         // lload arg_slot
    w1(c, (unsigned)arg_slot);
  }
  w1(c, 0xb8);           // invokestatic orca$hook or orca$hookJ
  w2(c, hook_ref);
}

// emit_wrapper writes a whole method_info for the wrapper.
// hookj_ref: 0, or the ENTER hook gets the first argument (a long).
static void emit_wrapper(wr_t *w, unsigned access, unsigned name, unsigned desc, const sig_t *s, int pair, unsigned tag,
                         unsigned hook_ref, unsigned hookj_ref, unsigned target_ref, unsigned u_code, unsigned u_smt,
                         unsigned u_lnt, unsigned c_throwable, unsigned line, const unsigned char *exc_attr, size_t exc_len) {
  wr_t c = {0};
  size_t try_start, try_end, handler = 0;
  unsigned enter = (pair ? HOOK_ENTER : HOOK_ONCE) + HOOK_TAG * tag;
  if (hookj_ref) call_hook(&c, enter, hookj_ref, s->slot[0]);
  else call_hook(&c, enter, hook_ref, 0);
  try_start = c.n;
  w1(&c, 0x2a);
  for (int i = 0; i < s->nargs; i++) { w1(&c, s->load[i]); w1(&c, s->slot[i]); }
  w1(&c, 0xb7);          // invokespecial orca$NAME (private)
  w2(&c, target_ref);
  try_end = c.n;
  if (pair) call_hook(&c, HOOK_EXIT + HOOK_TAG * tag, hook_ref, 0);
  w1(&c, s->ret_op);
  if (pair) {
    handler = c.n;
    call_hook(&c, HOOK_THROW + HOOK_TAG * tag, hook_ref, 0);
    w1(&c, 0xbf);        // athrow the original exception
  }
  int max_stack = 1 + s->slots;
  if (s->ret_slots + 2 > max_stack) max_stack = s->ret_slots + 2;
  if ((hookj_ref ? 4 : 3) > max_stack) max_stack = hookj_ref ? 4 : 3;

  w2(w, access);
  w2(w, name);
  w2(w, desc);
  w2(w, exc_attr ? 2 : 1);
  w2(w, u_code);
  size_t len_at = w->n;
  w4(w, 0);
  size_t body = w->n;
  w2(w, (unsigned)max_stack);
  w2(w, (unsigned)(1 + s->slots));
  w4(w, (uint32_t)c.n);
  put(w, c.b, c.n);
  if (pair) {
    w2(w, 1);
    w2(w, (unsigned)try_start);
    w2(w, (unsigned)try_end);
    w2(w, (unsigned)handler);
    w2(w, 0);             // any exception
  } else {
    w2(w, 0);
  }
  w2(w, (pair ? 1u : 0u) + (line ? 1u : 0u));
  if (pair) {
    // One frame at the handler: same locals as on entry, the throwable on
    // the stack.
    w2(w, u_smt);
    w4(w, handler <= 63 ? 6 : 8);
    w2(w, 1);
    if (handler <= 63) w1(w, 64 + (unsigned)handler);
    else { w1(w, 247); w2(w, (unsigned)handler); }
    w1(w, 7);
    w2(w, c_throwable);
  }
  if (line) {
    w2(w, u_lnt);
    w4(w, 6);
    w2(w, 1);
    w2(w, 0);
    w2(w, line);
  }
  set4(w, len_at, (uint32_t)(w->n - body));
  if (exc_attr) put(w, exc_attr, exc_len);
  free(c.b);
}

// first_line returns the first line of a Code attribute's LineNumberTable.
static unsigned first_line(const cp_t *cp, const unsigned char *code, size_t len) {
  rd_t r = {code, code + len, 0};
  skip(&r, 4);
  uint32_t clen = u4(&r);
  skip(&r, clen);
  unsigned ne = u2(&r);
  skip(&r, (size_t)ne * 8);
  unsigned na = u2(&r);
  for (unsigned i = 0; i < na && !r.bad; i++) {
    unsigned name = u2(&r);
    uint32_t alen = u4(&r);
    const unsigned char *a = r.p;
    skip(&r, alen);
    if (!r.bad && utf8_eq(cp, name, "LineNumberTable") && alen >= 6) {
      unsigned best = 0;
      unsigned n = (unsigned)a[0] << 8 | a[1];
      for (unsigned k = 0; k < n && 2 + k * 4 + 4 <= alen; k++) {
        unsigned pc = (unsigned)a[2 + k * 4] << 8 | a[3 + k * 4];
        unsigned ln = (unsigned)a[4 + k * 4] << 8 | a[5 + k * 4];
        if (pc == 0 || !best) best = ln;
        if (pc == 0) break;
      }
      return best;
    }
  }
  return 0;
}

// hidden_attr writes a RuntimeVisibleAnnotations attribute holding
// @jdk.internal.vm.annotation.Hidden alone.
static void hidden_attr(wr_t *w, unsigned u_rva, unsigned u_hidden) {
  w2(w, u_rva);
  w4(w, 6);
  w2(w, 1);          // num_annotations
  w2(w, u_hidden);   // type_index
  w2(w, 0);          // num_element_value_pairs
}

// copy_hidden copies a method's attributes (attributes_count and what
// follows, [a, end)) adding @Hidden: to its RuntimeVisibleAnnotations if
// it has them (a method may not carry the attribute twice), else as a new
// attribute. HotSpot honours @Hidden in the boot and platform loaders'
// classes: Throwable stack traces, StackWalker and JFR leave the frame out
// (unless -XX:+ShowHiddenFrames), while JVMTI, and so Orca's own stacks,
// still see it.
static void copy_hidden(wr_t *w, const cp_t *cp, const unsigned char *a, const unsigned char *end, unsigned u_rva,
                        unsigned u_hidden) {
  rd_t r = {a, end, 0};
  unsigned na = u2(&r);
  const unsigned char *first = r.p, *rva = NULL;
  uint32_t rva_len = 0;
  for (unsigned k = 0; k < na && !r.bad; k++) {
    const unsigned char *at = r.p;
    unsigned an = u2(&r);
    uint32_t alen = u4(&r);
    skip(&r, alen);
    if (!r.bad && !rva && utf8_eq(cp, an, "RuntimeVisibleAnnotations") && alen >= 2) { rva = at; rva_len = alen; }
  }
  if (r.bad) { w->bad = 1; return; }   // classfile_wrap read these bytes already: cannot happen
  if (!rva) {
    w2(w, na + 1);
    put(w, first, (size_t)(end - first));
    hidden_attr(w, u_rva, u_hidden);
    return;
  }
  w2(w, na);
  put(w, first, (size_t)(rva - first));
  unsigned n = (unsigned)rva[6] << 8 | rva[7];
  w2(w, u_rva);
  w4(w, rva_len + 4);
  w2(w, n + 1);
  put(w, rva + 8, rva_len - 2);
  w2(w, u_hidden);
  w2(w, 0);
  put(w, rva + 6 + rva_len, (size_t)(end - (rva + 6 + rva_len)));
}

typedef struct {
  int spec;             // index in specs, -1 if not wrapped
  size_t start, end;    // method_info bytes in the input
  unsigned access, name, desc;
  const unsigned char *code, *exc;
  size_t code_len, exc_len;
} minfo_t;

const char *classfile_wrap(const unsigned char *in, size_t len, const wrap_spec *specs, int nspecs,
                           unsigned char **out, size_t *out_len, int *wrapped) {
  rd_t r = {in, in + len, 0};
  const char *err = NULL;
  cp_t cp = {0};
  minfo_t *ms = NULL;
  wr_t w = {0};
  newcp_t nc = {{0}, 0};
  *wrapped = 0;
  if (u4(&r) != 0xCAFEBABE) return "not a class file";
  unsigned minor = u2(&r), major = u2(&r);
  (void)minor;
  if (major < 50) return "class file too old to wrap";
  cp.count = u2(&r);
  cp.at = calloc(cp.count ? cp.count : 1, sizeof *cp.at);
  if (!cp.at) return "out of memory";
  for (unsigned i = 1; i < cp.count && !r.bad; i++) {
    cp.at[i] = r.p;
    if (!cp_skip(&r, &i)) {
      err = "unknown constant pool tag";
      goto done;
    }
  }
  size_t cp_end = (size_t)(r.p - in);
  unsigned this_class = skip_fields(&r);
  size_t methods_at = (size_t)(r.p - in);
  unsigned nmethods = u2(&r);
  ms = calloc(nmethods ? nmethods : 1, sizeof *ms);
  if (!ms) { err = "out of memory"; goto done; }
  int any = 0;
  for (unsigned i = 0; i < nmethods && !r.bad; i++) {
    minfo_t *m = &ms[i];
    m->start = (size_t)(r.p - in);
    m->access = u2(&r);
    m->name = u2(&r);
    m->desc = u2(&r);
    m->spec = -1;
    unsigned na = u2(&r);
    for (unsigned k = 0; k < na && !r.bad; k++) {
      unsigned an = u2(&r);
      const unsigned char *a = r.p - 2;
      uint32_t alen = u4(&r);
      if (utf8_eq(&cp, an, "Code")) { m->code = r.p; m->code_len = alen; }
      if (utf8_eq(&cp, an, "Exceptions")) { m->exc = a; m->exc_len = alen + 6; }
      skip(&r, alen);
    }
    m->end = (size_t)(r.p - in);
    for (int s = 0; s < nspecs; s++)
      if (m->code && !(m->access & 0x0008) && utf8_eq(&cp, m->name, specs[s].name) &&
          utf8_eq(&cp, m->desc, specs[s].desc)) {
        m->spec = s;
        any = 1;
      }
    if (utf8_eq(&cp, m->name, "orca$hook")) { err = "class is already wrapped"; goto done; }
  }
  if (r.bad) { err = "truncated class file"; goto done; }
  if (!any) goto done;

  nc.next = cp.count;
  unsigned u_hook = add_utf8(&nc, "orca$hook");
  unsigned u_hookd = add_utf8(&nc, "(ILjava/lang/Object;)V");
  unsigned hook_ref = add_ref(&nc, 10, this_class, add_ref(&nc, 12, u_hook, u_hookd));
  int with_arg = 0;
  for (unsigned i = 0; i < nmethods; i++) with_arg |= ms[i].spec >= 0 && specs[ms[i].spec].arg;
  unsigned u_hookj = 0, u_hookjd = 0, hookj_ref = 0;
  if (with_arg) {
    u_hookj = add_utf8(&nc, "orca$hookJ");
    u_hookjd = add_utf8(&nc, "(ILjava/lang/Object;J)V");
    hookj_ref = add_ref(&nc, 10, this_class, add_ref(&nc, 12, u_hookj, u_hookjd));
  }
  unsigned u_code = add_utf8(&nc, "Code");
  unsigned u_smt = add_utf8(&nc, "StackMapTable");
  unsigned u_lnt = add_utf8(&nc, "LineNumberTable");
  unsigned c_thr = add_ref(&nc, 7, add_utf8(&nc, "java/lang/Throwable"), 0);
  unsigned u_rva = add_utf8(&nc, "RuntimeVisibleAnnotations");
  unsigned u_hidden = add_utf8(&nc, "Ljdk/internal/vm/annotation/Hidden;");
  unsigned *new_name = calloc(nmethods, sizeof *new_name), *target = calloc(nmethods, sizeof *target);
  if (!new_name || !target) { free(new_name); free(target); err = "out of memory"; goto done; }
  for (unsigned i = 0; i < nmethods; i++) {
    if (ms[i].spec < 0) continue;
    char nm[300] = "orca$";
    utf8_copy(&cp, ms[i].name, nm + 5, sizeof nm - 5);
    new_name[i] = add_utf8(&nc, nm);
    target[i] = add_ref(&nc, 10, this_class, add_ref(&nc, 12, new_name[i], ms[i].desc));
  }
  if (nc.next > 65535) { free(new_name); free(target); err = "constant pool full"; goto done; }

  // Header and the extended constant pool.
  put(&w, in, 8);
  w2(&w, nc.next);
  put(&w, in + 10, cp_end - 10);
  put(&w, nc.w.b, nc.w.n);
  // Class header and fields unchanged.
  put(&w, in + cp_end, methods_at - cp_end);
  int added = 0;
  for (unsigned i = 0; i < nmethods; i++) added += ms[i].spec >= 0;
  w2(&w, nmethods + (unsigned)added + 1 + (with_arg ? 1u : 0u));
  for (unsigned i = 0; i < nmethods; i++) {
    minfo_t *m = &ms[i];
    if (m->spec < 0) { put(&w, in + m->start, m->end - m->start); continue; }
    // The original, renamed and made private (synthetic).
    unsigned acc = (m->access & ~0x0005u) | 0x0002u | 0x1000u;
    w2(&w, acc);
    w2(&w, new_name[i]);
    w2(&w, m->desc);
    copy_hidden(&w, &cp, in + m->start + 6, in + m->end, u_rva, u_hidden);
  }
  for (unsigned i = 0; i < nmethods; i++) {
    minfo_t *m = &ms[i];
    if (m->spec < 0) continue;
    char desc[512];
    sig_t sig;
    utf8_copy(&cp, m->desc, desc, sizeof desc);
    if (!parse_desc(desc, &sig)) { err = "bad method descriptor"; break; }
    int arg = specs[m->spec].arg;
    if (arg && (sig.nargs < 1 || sig.load[0] != 0x16)) { err = "a hook argument that is not a long"; break; }
    unsigned acc = m->access & ~(0x0020u | 0x0100u | 0x0400u);   // not synchronized/native/abstract
    emit_wrapper(&w, acc, m->name, m->desc, &sig, specs[m->spec].pair, (unsigned)specs[m->spec].tag, hook_ref,
                 arg ? hookj_ref : 0, target[i], u_code, u_smt, u_lnt, c_thr, first_line(&cp, m->code, m->code_len), m->exc,
                 m->exc_len);
    (*wrapped)++;
  }
  // private static native void orca$hook(int, Object), hidden too
  w2(&w, 0x0002 | 0x0008 | 0x0100 | 0x1000);
  w2(&w, u_hook);
  w2(&w, u_hookd);
  w2(&w, 1);
  hidden_attr(&w, u_rva, u_hidden);
  if (with_arg) {   // private static native void orca$hookJ(int, Object, long), hidden
    w2(&w, 0x0002 | 0x0008 | 0x0100 | 0x1000);
    w2(&w, u_hookj);
    w2(&w, u_hookjd);
    w2(&w, 1);
    hidden_attr(&w, u_rva, u_hidden);
  }
  // Class attributes unchanged.
  put(&w, r.p, (size_t)(r.end - r.p));
  free(new_name);
  free(target);
  if (!err && w.bad) err = "out of memory";
  if (!err) {
    *out = w.b;
    *out_len = w.n;
    w.b = NULL;
  }
done:
  free(cp.at);
  free(ms);
  free(w.b);
  free(nc.w.b);
  return err;
}
