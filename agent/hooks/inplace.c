#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "hooks/cfio.h"
#include "hooks/inplace.h"

static int utf8_eq(const unsigned char *const *cp, unsigned count, unsigned idx, const char *s) {
  if (idx == 0 || idx >= count || !cp[idx] || cp[idx][0] != 1) return 0;
  unsigned len = (unsigned)cp[idx][1] << 8 | cp[idx][2];
  return strlen(s) == len && !memcmp(cp[idx] + 3, s, len);
}

static unsigned add_utf8(wr_t *w, unsigned *next, const char *s) {
  w1(w, 1);
  w2(w, (unsigned)strlen(s));
  put(w, s, strlen(s));
  return (*next)++;
}
static unsigned add_ref(wr_t *w, unsigned *next, unsigned tag, unsigned a, unsigned b) {
  w1(w, tag);
  w2(w, a);
  if (tag != 7) w2(w, b);
  return (*next)++;
}

// hidden_attr writes a RuntimeVisibleAnnotations attribute holding
// @jdk.internal.vm.annotation.Hidden alone. HotSpot honours it in the boot
// and platform loaders' classes: Throwable stack traces, StackWalker and JFR
// leave the frame out (unless -XX:+ShowHiddenFrames), while JVMTI, and so
// Orca's own stacks, still see it.
static void hidden_attr(wr_t *w, unsigned u_rva, unsigned u_hidden) {
  w2(w, u_rva);
  w4(w, 6);
  w2(w, 1);          // num_annotations
  w2(w, u_hidden);   // type_index
  w2(w, 0);          // num_element_value_pairs
}

// op_len is the length of the instruction at code[at] (len bytes of code),
// 0 if it is not one; jsr and ret count as not one (never in class files
// of version 51+; a method with them is left alone).
static size_t op_len(const unsigned char *code, size_t at, size_t len) {
  unsigned op = code[at];
  if (op <= 0x0f) return 1;
  if (op == 0x10 || op == 0x12 || (op >= 0x15 && op <= 0x19) || (op >= 0x36 && op <= 0x3a) || op == 0xbc) return 2;
  if (op == 0x11 || op == 0x13 || op == 0x14 || op == 0x84 || (op >= 0x99 && op <= 0xa7) || (op >= 0xb2 && op <= 0xb8) ||
      op == 0xbb || op == 0xbd || op == 0xc0 || op == 0xc1 || op == 0xc6 || op == 0xc7)
    return 3;
  if ((op >= 0x1a && op <= 0x35) || (op >= 0x3b && op <= 0x83) || (op >= 0x85 && op <= 0x98) || (op >= 0xac && op <= 0xb1) ||
      op == 0xbe || op == 0xbf || op == 0xc2 || op == 0xc3)
    return 1;
  if (op == 0xb9 || op == 0xba || op == 0xc8) return 5;
  if (op == 0xc5) return 4;
  if (op == 0xc4) {
    if (at + 1 >= len) return 0;
    unsigned w = code[at + 1];
    if (w == 0xa9) return 0;   // wide ret
    return w == 0x84 ? 6 : 4;
  }
  if (op == 0xaa || op == 0xab) {
    size_t p = (at + 4) & ~(size_t)3;
    if (p + 12 > len) return 0;
    const unsigned char *q = code + p;
    if (op == 0xaa) {
      int32_t lo = (int32_t)((uint32_t)q[4] << 24 | (uint32_t)q[5] << 16 | (uint32_t)q[6] << 8 | q[7]);
      int32_t hi = (int32_t)((uint32_t)q[8] << 24 | (uint32_t)q[9] << 16 | (uint32_t)q[10] << 8 | q[11]);
      if (hi < lo || (int64_t)hi - lo > 65535) return 0;
      return p - at + 12 + 4 * (size_t)((int64_t)hi - lo + 1);
    }
    uint32_t n = (uint32_t)q[4] << 24 | (uint32_t)q[5] << 16 | (uint32_t)q[6] << 8 | q[7];
    if (n > 65535) return 0;
    return p - at + 8 + 8 * (size_t)n;
  }
  return 0;   // jsr (0xa8), ret (0xa9), jsr_w (0xc9), unknown
}

static int32_t s4at(const unsigned char *p) {
  return (int32_t)((uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]);
}

// What a rewrite needs of the class: constant-pool references.
typedef struct {
  unsigned hook_ref, hookj_ref, c_this, c_thr, u_smt;
  int pair, tag, arg, ret, is_static;
} site_t;

// hook_call writes the call of the hook with op: op, the object (this, or
// null in a static method), and for hookj the long in local slot 1.
static void hook_call(wr_t *c, const site_t *s, unsigned op, int hookj) {
  if (op <= 5) w1(c, 0x03 + op);   // iconst_<op>
  else { w1(c, 0x10); w1(c, op); } // bipush op
  w1(c, s->is_static ? 0x01 : 0x2a);   // aconst_null or aload_0
  if (hookj) { w1(c, 0x16); w1(c, 1); }   // lload 1: the first argument
  w1(c, 0xb8);
  w2(c, hookj ? s->hookj_ref : s->hook_ref);
}

static size_t hook_call_len(unsigned op, int hookj) { return (op <= 5 ? 1u : 2u) + 1 + (hookj ? 2u : 0u) + 3; }

// ret_call writes the EXIT call of a method that returns an int (a
// boolean): the value on the stack, kept, goes to hookJ as its long
// through local slot `tmp` (a slot past the method's own: no frame of the
// StackMapTable declares it, and the store and load are one straight
// run): dup, istore tmp, <op>, this, iload tmp, i2l, invokestatic hookJ.
static void ret_call(wr_t *c, const site_t *s, unsigned op, unsigned tmp) {
  w1(c, 0x59);
  w1(c, 0x36);
  w1(c, tmp);
  if (op <= 5) w1(c, 0x03 + op);
  else { w1(c, 0x10); w1(c, op); }
  w1(c, s->is_static ? 0x01 : 0x2a);
  w1(c, 0x15);
  w1(c, tmp);
  w1(c, 0x85);
  w1(c, 0xb8);
  w2(c, s->hookj_ref);
}

static size_t ret_call_len(unsigned op) { return 3 + (op <= 5 ? 1u : 2u) + 1 + 2 + 1 + 3; }

// vtypes copies n verification types, remapping Uninitialized(offset) (tag 8:
// the offset of its `new`) through newinst; 0 on a bad one.
static int vtypes(rd_t *r, wr_t *w, unsigned n, const int *idx_of, size_t len, const size_t *newinst) {
  for (unsigned i = 0; i < n; i++) {
    unsigned t = u1(r);
    w1(w, t);
    if (t == 7) w2(w, u2(r));
    else if (t == 8) {
      unsigned off = u2(r);
      if (off >= len || idx_of[off] < 0) return 0;
      w2(w, (unsigned)newinst[idx_of[off]]);
    } else if (t > 8) return 0;
  }
  return !r->bad;
}

// rewrite_code writes the new Code attribute (name index included) of one
// method, or returns 0 and writes nothing it could not: the method stays.
static int rewrite_code(wr_t *out, const unsigned char *const *cp, unsigned cpn, const unsigned char *attr, size_t alen,
                        unsigned u_code, const site_t *s) {
  rd_t r = {attr, attr + alen, 0};
  unsigned max_stack = u2(&r), max_locals = u2(&r);
  uint32_t len = u4(&r);
  if (r.bad || len == 0 || len > (uint32_t)(r.end - r.p)) return 0;
  const unsigned char *code = r.p;
  skip(&r, len);
  int ok = 0;
  int *idx_of = malloc((len + 1) * sizeof *idx_of);
  size_t *tgt = malloc((len + 1) * sizeof *tgt), *newinst = malloc((len + 1) * sizeof *newinst);
  size_t *oldat = malloc((len + 1) * sizeof *oldat);
  wr_t c = {0}, a = {0};
  if (!idx_of || !tgt || !newinst || !oldat) goto out;
  for (uint32_t i = 0; i <= len; i++) idx_of[i] = -1;
  unsigned enter = (s->pair ? HOOK_ENTER : HOOK_ONCE) + HOOK_TAG * (unsigned)s->tag;
  unsigned exit_op = HOOK_EXIT + HOOK_TAG * (unsigned)s->tag, throw_op = HOOK_THROW + HOOK_TAG * (unsigned)s->tag;
  // around: ENTER, EXITs and the catch-all's THROW; exits: the EXIT calls
  // (pair 2: those alone). A ret method's ireturn passes its value.
  int around = s->pair == 1, exits = s->pair != 0;
  if (s->ret && max_locals > 254) goto out;
  size_t pro = s->pair == 2 ? 0 : hook_call_len(enter, s->arg), epi = hook_call_len(exit_op, 0);
  size_t epi_ret = s->ret ? ret_call_len(exit_op) : epi;
  // Pass 1: each instruction's new place (switch padding follows it).
  int n = 0;
  size_t pos = pro;
  for (size_t at = 0; at < len; n++) {
    size_t l = op_len(code, at, len);
    if (!l || at + l > len) goto out;
    unsigned op = code[at];
    idx_of[at] = n;
    oldat[n] = at;
    tgt[n] = pos;   // where a branch to it goes: the exit call before a return
    if (exits && op >= 0xac && op <= 0xb1) pos += op == 0xac ? epi_ret : epi;
    newinst[n] = pos;
    if (op == 0xaa || op == 0xab)   // its operands are aligned to 4 bytes: the padding changes
      pos += (((pos + 4) & ~(size_t)3) - pos) + (l - (((at + 4) & ~(size_t)3) - at));
    else
      pos += l;
    at += l;
  }
  idx_of[len] = n;
  tgt[n] = newinst[n] = pos;   // the end of the original code
  size_t end = pos;
  if (end + (around ? hook_call_len(throw_op, 0) + 1 : 0) > 65535) goto out;
#define MAP(o) ((o) > len || idx_of[(o)] < 0 ? (size_t)-1 : tgt[idx_of[(o)]])
  // Pass 2: the code.
  if (s->pair != 2) hook_call(&c, s, enter, s->arg);
  for (int i = 0; i < n; i++) {
    size_t at = oldat[i], l = op_len(code, at, len);
    unsigned op = code[at];
    if (exits && op == 0xac && s->ret) ret_call(&c, s, exit_op, max_locals);
    else if (exits && op >= 0xac && op <= 0xb1) hook_call(&c, s, exit_op, 0);
    if (c.n != newinst[i]) goto out;
    if ((op >= 0x99 && op <= 0xa7) || op == 0xc6 || op == 0xc7) {
      int32_t d = (int16_t)((unsigned)code[at + 1] << 8 | code[at + 2]);
      size_t t = MAP((size_t)((int64_t)at + d));
      int64_t nd = (int64_t)t - (int64_t)newinst[i];
      if (t == (size_t)-1 || (int64_t)at + d < 0 || nd < -32768 || nd > 32767) goto out;
      w1(&c, op);
      w2(&c, (unsigned)(nd & 0xFFFF));
    } else if (op == 0xc8) {
      size_t t = MAP((size_t)((int64_t)at + s4at(code + at + 1)));
      if (t == (size_t)-1) goto out;
      w1(&c, op);
      w4(&c, (uint32_t)((int64_t)t - (int64_t)newinst[i]));
    } else if (op == 0xaa || op == 0xab) {
      size_t p = (at + 4) & ~(size_t)3;
      w1(&c, op);
      while (c.n & 3) w1(&c, 0);
      size_t words = (l - (p - at)) / 4;
      for (size_t k = 0; k < words; k++) {
        int32_t v = s4at(code + p + 4 * k);
        // Offsets: default (word 0); tableswitch: words 3..; lookupswitch: odd words from 3.
        int is_off = k == 0 || (op == 0xaa ? k >= 3 : k >= 3 && (k & 1));
        if (is_off) {
          size_t t = MAP((size_t)((int64_t)at + v));
          if (t == (size_t)-1 || (int64_t)at + v < 0) goto out;
          v = (int32_t)((int64_t)t - (int64_t)newinst[i]);
        }
        w4(&c, (uint32_t)v);
      }
    } else {
      put(&c, code + at, l);
    }
  }
  if (c.bad || c.n != end) goto out;
  if (around) {
    hook_call(&c, s, throw_op, 0);
    w1(&c, 0xbf);   // athrow what was thrown
  }
  // The Code attribute.
  unsigned ms = max_stack + (s->ret ? 4 : exits ? 2 : 0);
  if (ms < (s->arg ? 4u : 2u)) ms = s->arg ? 4 : 2;
  if (around && ms < 3) ms = 3;
  w2(&a, ms);
  w2(&a, max_locals + (s->ret ? 1u : 0u));
  w4(&a, (uint32_t)c.n);
  put(&a, c.b, c.n);
  unsigned ne = u2(&r);
  w2(&a, ne + (around ? 1u : 0u));
  for (unsigned k = 0; k < ne; k++) {
    unsigned sp = u2(&r), ep = u2(&r), hp = u2(&r), ct = u2(&r);
    size_t ns = MAP(sp), nend = MAP(ep), nh = MAP(hp);
    if (r.bad || ns == (size_t)-1 || nend == (size_t)-1 || nh == (size_t)-1) goto out;
    w2(&a, (unsigned)ns);
    w2(&a, (unsigned)nend);
    w2(&a, (unsigned)nh);
    w2(&a, ct);
  }
  if (around) {   // the catch-all: after the entry call, to the end of the original code
    w2(&a, (unsigned)pro);
    w2(&a, (unsigned)end);
    w2(&a, (unsigned)end);
    w2(&a, 0);
  }
  unsigned na = u2(&r);
  size_t count_at = a.n;
  unsigned kept = 0;
  int had_smt = 0;
  w2(&a, 0);
  for (unsigned k = 0; k < na && !r.bad; k++) {
    unsigned an = u2(&r);
    uint32_t al = u4(&r);
    rd_t b = {r.p, r.p + al, 0};
    skip(&r, al);
    if (r.bad) goto out;
    size_t at = a.n;
    if (utf8_eq(cp, cpn, an, "LineNumberTable") || utf8_eq(cp, cpn, an, "LocalVariableTable") ||
        utf8_eq(cp, cpn, an, "LocalVariableTypeTable")) {
      int lnt = utf8_eq(cp, cpn, an, "LineNumberTable");
      unsigned m = u2(&b);
      w2(&a, an);
      w4(&a, al);
      w2(&a, m);
      for (unsigned e = 0; e < m; e++) {
        unsigned sp = u2(&b);
        size_t ns = sp == 0 ? 0 : MAP(sp);   // the entry call is the first line's
        if (b.bad || ns == (size_t)-1) goto out;
        w2(&a, (unsigned)ns);
        if (lnt) { w2(&a, u2(&b)); continue; }
        unsigned ln = u2(&b);
        size_t ne2 = MAP((size_t)sp + ln);
        if (ne2 == (size_t)-1) goto out;
        w2(&a, (unsigned)(ne2 - ns));
        w2(&a, u2(&b));
        w2(&a, u2(&b));
        w2(&a, u2(&b));
      }
      // The entries fill the attribute, whose length is written as it was:
      // a table with bytes after its entries (another attribute's under its
      // name) would come out with a length that disagrees with them.
      if (b.bad || b.p != b.end) goto out;
      kept++;
    } else if (utf8_eq(cp, cpn, an, "StackMapTable")) {
      unsigned m = u2(&b);
      w2(&a, an);
      w4(&a, 0);
      w2(&a, m + (around ? 1u : 0u));
      size_t prev = 0, pnew = 0;
      for (unsigned e = 0; e < m; e++) {
        unsigned t = u1(&b), d;
        if (t < 64) d = t;
        else if (t < 128) d = t - 64;
        else if (t < 247) goto out;
        else d = u2(&b);
        size_t old = e == 0 ? d : prev + d + 1;
        if (b.bad || old >= len || idx_of[old] < 0) goto out;
        size_t now = tgt[idx_of[old]];
        size_t nd = e == 0 ? now : now - pnew - 1;
        pnew = now;
        prev = old;
        if (t < 64) {
          if (nd <= 63) w1(&a, (unsigned)nd);
          else { w1(&a, 251); w2(&a, (unsigned)nd); }
        } else if (t < 128) {
          if (nd <= 63) w1(&a, 64 + (unsigned)nd);
          else { w1(&a, 247); w2(&a, (unsigned)nd); }
          if (!vtypes(&b, &a, 1, idx_of, len, newinst)) goto out;
        } else {
          w1(&a, t);
          w2(&a, (unsigned)nd);
          if (t == 247 && !vtypes(&b, &a, 1, idx_of, len, newinst)) goto out;
          if (t >= 252 && t <= 254 && !vtypes(&b, &a, t - 251, idx_of, len, newinst)) goto out;
          if (t == 255) {
            unsigned nl = u2(&b);
            w2(&a, nl);
            if (!vtypes(&b, &a, nl, idx_of, len, newinst)) goto out;
            unsigned nsk = u2(&b);
            w2(&a, nsk);
            if (!vtypes(&b, &a, nsk, idx_of, len, newinst)) goto out;
          }
        }
        if (e + 1 == m && around) {   // the handler's frame, after the last
          size_t hd = end - now - 1;
          w1(&a, 255);
          w2(&a, (unsigned)hd);
          if (s->is_static) w2(&a, 0);
          else { w2(&a, 1); w1(&a, 7); w2(&a, s->c_this); }
          w2(&a, 1);
          w1(&a, 7);
          w2(&a, s->c_thr);
        }
      }
      if (b.bad || b.p != b.end) goto out;   // frames that do not fill it are not a table we know
      if (!m && around) goto out;   // an empty table: not written by javac
      set4(&a, at + 2, (uint32_t)(a.n - at - 6));
      had_smt = 1;
      kept++;
    }
    // Any other attribute of the code (type annotations on instructions) is dropped.
  }
  if (r.bad) goto out;
  if (around && !had_smt) {   // the handler's frame alone
    w2(&a, s->u_smt);
    w4(&a, s->is_static ? 12 : 15);   // count, full_frame, delta, locals, stack
    w2(&a, 1);
    w1(&a, 255);
    w2(&a, (unsigned)end);
    if (s->is_static) w2(&a, 0);
    else { w2(&a, 1); w1(&a, 7); w2(&a, s->c_this); }
    w2(&a, 1);
    w1(&a, 7);
    w2(&a, s->c_thr);
    kept++;
  }
  set2(&a, count_at, kept);
  if (a.bad) goto out;
  w2(out, u_code);
  w4(out, (uint32_t)a.n);
  put(out, a.b, a.n);
  ok = !out->bad;
#undef MAP
out:
  free(idx_of);
  free(tgt);
  free(newinst);
  free(oldat);
  free(c.b);
  free(a.b);
  return ok;
}

const char *classfile_inplace(const unsigned char *in, size_t len, const wrap_spec *specs, int nspecs,
                              const inplace_hook *hook, unsigned char **out, size_t *out_len, int *wrapped,
                              int *skipped) {
  rd_t r = {in, in + len, 0};
  const char *err = NULL;
  const unsigned char **cp = NULL;
  wr_t w = {0}, nc = {0};
  *wrapped = *skipped = 0;
  *out = NULL;
  if (u4(&r) != 0xCAFEBABE) return "not a class file";
  skip(&r, 2);
  if (u2(&r) < 50) return "class file too old to rewrite";
  unsigned count = u2(&r);
  cp = calloc(count ? count : 1, sizeof *cp);
  if (!cp) return "out of memory";
  for (unsigned i = 1; i < count && !r.bad; i++) {
    cp[i] = r.p;
    if (!cp_skip(&r, &i)) {
      err = "unknown constant pool tag";
      goto done;
    }
  }
  if (r.bad) { err = "truncated class file"; goto done; }
  // Rewritten already: the pool names the hooks' class, or the class's own
  // hook (whose name no class of the JDK uses).
  for (unsigned i = 1; i < count; i++)
    if (utf8_eq(cp, count, i, hook->cls ? hook->cls : hook->name)) { err = "class is already rewritten"; goto done; }
  size_t cp_end = (size_t)(r.p - in);
  unsigned this_class = skip_fields(&r);
  if (r.bad) { err = "truncated class file"; goto done; }
  // The new constant-pool entries, appended.
  unsigned next = count;
  int with_arg = 0;
  for (int k = 0; k < nspecs; k++) with_arg |= specs[k].arg | specs[k].ret;
  if (with_arg && !hook->nameJ) { err = "no hook for a long argument"; goto done; }
  unsigned c_hook = hook->cls ? add_ref(&nc, &next, 7, add_utf8(&nc, &next, hook->cls), 0) : this_class;
  site_t site = {0};
  unsigned u_name = add_utf8(&nc, &next, hook->name), u_desc = add_utf8(&nc, &next, "(ILjava/lang/Object;)V");
  site.hook_ref = add_ref(&nc, &next, 10, c_hook, add_ref(&nc, &next, 12, u_name, u_desc));
  unsigned u_nameJ = 0, u_descJ = 0;
  if (with_arg) {
    u_nameJ = add_utf8(&nc, &next, hook->nameJ);
    u_descJ = add_utf8(&nc, &next, "(ILjava/lang/Object;J)V");
    site.hookj_ref = add_ref(&nc, &next, 10, c_hook, add_ref(&nc, &next, 12, u_nameJ, u_descJ));
  }
  // The class's own hooks (hook->cls NULL) are declared at its end, hidden.
  unsigned u_rva = 0, u_hidden = 0, own = hook->cls ? 0 : with_arg ? 2 : 1;
  if (own) {
    u_rva = add_utf8(&nc, &next, "RuntimeVisibleAnnotations");
    u_hidden = add_utf8(&nc, &next, "Ljdk/internal/vm/annotation/Hidden;");
  }
  site.c_this = this_class;
  site.c_thr = add_ref(&nc, &next, 7, add_utf8(&nc, &next, "java/lang/Throwable"), 0);
  site.u_smt = add_utf8(&nc, &next, "StackMapTable");
  unsigned u_code = add_utf8(&nc, &next, "Code");
  if (nc.bad) { err = "out of memory"; goto done; }
  if (next > 65535) { err = "constant pool full"; goto done; }
  put(&w, in, 8);
  w2(&w, next);
  put(&w, in + 10, cp_end - 10);
  put(&w, nc.b, nc.n);
  put(&w, in + cp_end, (size_t)(r.p - in) - cp_end);
  unsigned nmethods = u2(&r);
  if (nmethods + own > 65535) { err = "too many methods"; goto done; }
  w2(&w, nmethods + own);
  for (unsigned i = 0; i < nmethods && !r.bad; i++) {
    unsigned acc = u2(&r), name = u2(&r), desc = u2(&r), na = u2(&r);
    int spec = -1;
    for (int k = 0; k < nspecs && spec < 0; k++) {
      if (!specs[k].name) {
        if (!utf8_eq(cp, count, name, "<init>") && !utf8_eq(cp, count, name, "<clinit>")) spec = k;
      } else if (!(acc & 0x0008) && utf8_eq(cp, count, name, specs[k].name) && utf8_eq(cp, count, desc, specs[k].desc)) {
        spec = k;
      }
    }
    if (spec >= 0 && specs[spec].ret) {   // it must return an int or a boolean
      unsigned dl = cp[desc] && cp[desc][0] == 1 ? ((unsigned)cp[desc][1] << 8 | cp[desc][2]) : 0;
      if (dl < 3 || cp[desc][3 + dl - 2] != ')' || (cp[desc][3 + dl - 1] != 'Z' && cp[desc][3 + dl - 1] != 'I')) spec = -1;
    }
    if (spec >= 0 && specs[spec].arg) {   // the first argument must be a long in slot 1
      if (!(cp[desc] && cp[desc][0] == 1 && ((unsigned)cp[desc][1] << 8 | cp[desc][2]) > 2 && cp[desc][3] == '(' &&
            cp[desc][4] == 'J') || (acc & 0x0008))
        spec = -1;
    }
    w2(&w, acc);
    w2(&w, name);
    w2(&w, desc);
    w2(&w, na);
    for (unsigned k = 0; k < na && !r.bad; k++) {
      unsigned an = u2(&r);
      uint32_t al = u4(&r);
      const unsigned char *a = r.p;
      skip(&r, al);
      if (r.bad) break;
      if (spec >= 0 && utf8_eq(cp, count, an, "Code")) {
        site.pair = specs[spec].pair;
        site.tag = specs[spec].tag;
        site.arg = specs[spec].arg;
        site.ret = specs[spec].ret;
        site.is_static = (acc & 0x0008) != 0;
        if (rewrite_code(&w, cp, count, a, al, u_code, &site)) {
          (*wrapped)++;
          continue;
        }
        (*skipped)++;
      }
      w2(&w, an);
      w4(&w, al);
      put(&w, a, al);
    }
  }
  if (r.bad) { err = "truncated class file"; goto done; }
  for (unsigned k = 0; k < own; k++) {   // private static native synthetic, @Hidden
    w2(&w, 0x0002 | 0x0008 | 0x0100 | 0x1000);
    w2(&w, k ? u_nameJ : u_name);
    w2(&w, k ? u_descJ : u_desc);
    w2(&w, 1);
    hidden_attr(&w, u_rva, u_hidden);
  }
  put(&w, r.p, (size_t)(r.end - r.p));
  if (w.bad) { err = "out of memory"; goto done; }
  if (*wrapped) {
    *out = w.b;
    *out_len = w.n;
    w.b = NULL;
  }
done:
  free(cp);
  free(w.b);
  free(nc.b);
  return err;
}

const char *classfile_hook_class(const char *name, const char *const *methods, unsigned char **out, size_t *out_len) {
  wr_t w = {0};
  unsigned n = 0;
  while (methods[2 * n]) n++;
  unsigned next = 1;
  wr_t c = {0};
  unsigned c_this = add_ref(&c, &next, 7, add_utf8(&c, &next, name), 0);
  unsigned c_obj = add_ref(&c, &next, 7, add_utf8(&c, &next, "java/lang/Object"), 0);
  unsigned u_rva = add_utf8(&c, &next, "RuntimeVisibleAnnotations");
  unsigned u_hidden = add_utf8(&c, &next, "Ljdk/internal/vm/annotation/Hidden;");
  unsigned first = next;
  for (unsigned i = 0; i < 2 * n; i++) add_utf8(&c, &next, methods[i]);
  w4(&w, 0xCAFEBABE);
  w2(&w, 0);
  w2(&w, 52);
  w2(&w, next);
  put(&w, c.b, c.n);
  w2(&w, 0x0001 | 0x0010 | 0x0020);   // public final super
  w2(&w, c_this);
  w2(&w, c_obj);
  w2(&w, 0);   // interfaces
  w2(&w, 0);   // fields
  w2(&w, n);
  for (unsigned i = 0; i < n; i++) {
    w2(&w, 0x0001 | 0x0008 | 0x0100);   // public static native
    w2(&w, first + 2 * i);
    w2(&w, first + 2 * i + 1);
    w2(&w, 1);
    hidden_attr(&w, u_rva, u_hidden);
  }
  w2(&w, 0);   // attributes
  free(c.b);
  if (w.bad || c.bad) {
    free(w.b);
    return "out of memory";
  }
  *out = w.b;
  *out_len = w.n;
  return NULL;
}
