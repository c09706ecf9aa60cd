#include <pthread.h>
#include <stdlib.h>
#include "record/tkeys.h"

// The threads registered, sharded by hash, each shard an open-addressing
// table of (hash, tid) under its mutex, doubled at 3/4 full: 8 bytes a
// thread (about 16 with the free slots), up to the limit. The tid is kept
// in 32 bits: two threads of one hash whose tids differ by a multiple of
// 2^32 are one.
#define SHARDS 16
#define DEFAULT_MAX (3u << 20)   // threads in all the shards

typedef struct {
  uint32_t hash, tid;   // hash 0: free
} entry;

typedef struct {
  pthread_mutex_t mu;
  entry *e;
  uint32_t cap, used;   // cap a power of 2 (0 before the first)
} shard;

static shard shards[SHARDS];
static uint32_t max_threads = DEFAULT_MAX;
static atomic_uint registered;

// The hashes that two threads or more had (their keys need a tid): a
// lock-free set, insert-only, probed by tkey_named. Full, a collision is
// not told apart (counted).
#define SHARED_SLOTS 8192
static _Atomic uint32_t shared[SHARED_SLOTS];

// The aliases, by number - 1: a few hundred in a million threads.
typedef struct {
  uint32_t hash, tid, rank;
} alias;
static pthread_mutex_t alias_mu = PTHREAD_MUTEX_INITIALIZER;
static alias *aliases;
static uint32_t naliases, alias_cap;
atomic_uint tkeys_aliases;

static void __attribute__((constructor)) init_shards(void) {
  for (int i = 0; i < SHARDS; i++) pthread_mutex_init(&shards[i].mu, NULL);
}

static uint32_t mix(uint32_t h) { return h * 2654435761u; }

static int shared_has(uint32_t h) {
  for (uint32_t i = mix(h) % SHARED_SLOTS, k = 0; k < SHARED_SLOTS; k++, i = (i + 1) % SHARED_SLOTS) {
    uint32_t v = atomic_load_explicit(&shared[i], memory_order_acquire);
    if (v == h) return 1;
    if (!v) return 0;
  }
  return 0;
}

static int shared_add(uint32_t h) {
  for (uint32_t i = mix(h) % SHARED_SLOTS, k = 0; k < SHARED_SLOTS * 3 / 4; k++, i = (i + 1) % SHARED_SLOTS) {
    uint32_t v = 0;
    if (atomic_compare_exchange_strong(&shared[i], &v, h) || v == h) return 1;
  }
  return 0;
}

uint32_t tkey_named_slow(uint32_t h) { return shared_has(h) ? 0 : h; }

// find returns the alias key of (h, tid), 0 when it has none (alias_mu held).
static uint32_t find_alias(uint32_t h, uint32_t tid) {
  for (uint32_t i = 0; i < naliases; i++)
    if (aliases[i].hash == h && aliases[i].tid == tid) return TKEY_ALIAS | (i + 1);
  return 0;
}

static uint32_t new_alias(uint32_t h, uint32_t tid, uint32_t rank) {
  pthread_mutex_lock(&alias_mu);
  if (naliases == alias_cap) {
    uint32_t cap = alias_cap ? alias_cap * 2 : 64;
    alias *a = realloc(aliases, cap * sizeof *a);
    if (!a) {
      pthread_mutex_unlock(&alias_mu);
      return 0;
    }
    aliases = a;
    alias_cap = cap;
  }
  aliases[naliases] = (alias){h, tid, rank};
  uint32_t k = TKEY_ALIAS | ++naliases;
  pthread_mutex_unlock(&alias_mu);
  atomic_fetch_add(&tkeys_aliases, 1);
  return k;
}

static int grow(shard *s) {
  uint32_t cap = s->cap ? s->cap * 2 : 256;
  entry *e = calloc(cap, sizeof *e);
  if (!e) return 0;
  for (uint32_t i = 0; i < s->cap; i++) {
    if (!s->e[i].hash) continue;
    uint32_t j = mix(s->e[i].hash) & (cap - 1);
    while (e[j].hash) j = (j + 1) & (cap - 1);
    e[j] = s->e[i];
  }
  free(s->e);
  s->e = e;
  s->cap = cap;
  return 1;
}

static uint32_t full(uint32_t h, int *was_full) {
  if (was_full) *was_full = 1;
  return h;
}

uint32_t tkey_register(uint32_t h, int64_t tid64, int *was_full) {
  if (was_full) *was_full = 0;
  if (!h || tid64 < 0) return h;
  uint32_t tid = (uint32_t)tid64;
  shard *s = &shards[mix(h) >> 28];
  pthread_mutex_lock(&s->mu);
  uint32_t same = 0, i = 0;   // same: the threads of hash h registered (a new one's rank)
  if (s->cap) {
    for (i = mix(h) & (s->cap - 1); s->e[i].hash; i = (i + 1) & (s->cap - 1)) {
      if (s->e[i].hash != h) continue;
      if (s->e[i].tid == tid) {   // known: its key is h, or its alias
        pthread_mutex_unlock(&s->mu);
        if (!shared_has(h)) return h;
        pthread_mutex_lock(&alias_mu);
        uint32_t k = find_alias(h, tid);
        pthread_mutex_unlock(&alias_mu);
        return k ? k : h;
      }
      same++;
    }
  }
  if (atomic_load(&registered) >= max_threads || ((s->used + 1) * 4 > s->cap * 3 && !grow(s))) {
    pthread_mutex_unlock(&s->mu);
    return full(h, was_full);
  }
  if (same && !shared_add(h)) {
    pthread_mutex_unlock(&s->mu);
    return full(h, was_full);
  }
  uint32_t k = same ? new_alias(h, tid, same) : h;
  if (!k) {
    pthread_mutex_unlock(&s->mu);
    return full(h, was_full);
  }
  for (i = mix(h) & (s->cap - 1); s->e[i].hash; i = (i + 1) & (s->cap - 1)) {
  }
  s->e[i] = (entry){h, tid};
  s->used++;
  atomic_fetch_add(&registered, 1);
  pthread_mutex_unlock(&s->mu);
  return k;
}

uint32_t tkey_hash(uint32_t k, uint32_t *rank) {
  *rank = 0;
  if (!(k & TKEY_ALIAS)) return k;
  uint32_t h = k;
  pthread_mutex_lock(&alias_mu);
  uint32_t i = (k & ~TKEY_ALIAS) - 1;
  if (i < naliases) {
    h = aliases[i].hash;
    *rank = aliases[i].rank;
  }
  pthread_mutex_unlock(&alias_mu);
  return h;
}

void tkeys_reset(void) {
  for (int i = 0; i < SHARDS; i++) {
    shard *s = &shards[i];
    pthread_mutex_lock(&s->mu);
    free(s->e);
    s->e = NULL;
    s->cap = s->used = 0;
    pthread_mutex_unlock(&s->mu);
  }
  for (int i = 0; i < SHARED_SLOTS; i++) atomic_store(&shared[i], 0);
  pthread_mutex_lock(&alias_mu);
  naliases = 0;
  pthread_mutex_unlock(&alias_mu);
  atomic_store(&tkeys_aliases, 0);
  atomic_store(&registered, 0);
}

void tkeys_limit(uint32_t max) { max_threads = max ? max : DEFAULT_MAX; }
