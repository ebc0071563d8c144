/*
 * mallard/malloc_stats_ext: the bytes the C allocator has handed out and not yet freed, read from
 * inside the process, for whichever allocator it really runs on.
 *
 * The agent reads this thousands of times per boot, so a reading is one or two calls into the
 * allocator and allocates nothing: the figure fits a Fixnum. (glibc's call is the exception to
 * "cheap": see glibc_in_use.) Nothing is linked against an
 * allocator: each one's introspection call is looked up at run time with dlsym, so the one build
 * serves glibc and whatever LD_PRELOAD puts in front of it. The allocator cannot change in a running
 * process, so Init decides once which one it is.
 *
 * Finding a symbol is not enough: tcmalloc also exports glibc's mallinfo, and a library that merely
 * links jemalloc (loaded RTLD_GLOBAL, as Ruby loads extensions) makes mallctl visible while malloc
 * stays glibc's. So an allocator counts only if its introspection call lives in the same object as
 * the malloc every caller binds to, the first one in the global lookup order.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* RTLD_DEFAULT and dladdr in glibc's dlfcn.h; as ruby/config.h defines it */
#endif
#include <ruby.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdbool.h>
#include <sys/types.h>
#ifdef HAVE_MALLINFO2
#include <malloc.h>
#endif

typedef int (*mallctl_fn)(const char *, void *, size_t *, void *, size_t);
typedef int (*mallctlnametomib_fn)(const char *, size_t *, size_t *);
typedef int (*mallctlbymib_fn)(const size_t *, size_t, void *, size_t *, void *, size_t);
typedef int (*tcmalloc_property_fn)(const char *, size_t *);

enum source { SOURCE_GLIBC, SOURCE_JEMALLOC, SOURCE_TCMALLOC, SOURCE_MIMALLOC, SOURCE_UNKNOWN };
static const char *const source_names[] = { "glibc", "jemalloc", "tcmalloc", "mimalloc", "unknown" };

static enum source detected = SOURCE_UNKNOWN;
static VALUE source_name = Qnil; /* a frozen String, made once */
static void *malloc_symbol;
static mallctl_fn jemalloc_mallctl;
static mallctlbymib_fn jemalloc_bymib;
/* "epoch" and "stats.allocated" translated once, so a reading parses no names. */
static size_t epoch_mib[1], allocated_mib[2];
static size_t epoch_miblen, allocated_miblen;
static tcmalloc_property_fn tcmalloc_property;

/* Whether symbol lives in the object that provides the process's malloc. Without dladdr there is
 * no telling, and the symbol's presence has to do. */
static int
same_object_as_malloc(void *symbol)
{
#ifdef HAVE_DLADDR
    Dl_info of_symbol, of_malloc;

    if (!dladdr(symbol, &of_symbol) || !dladdr(malloc_symbol, &of_malloc)) return 1;
    return of_symbol.dli_fbase == of_malloc.dli_fbase;
#else
    return 1;
#endif
}

/* The named symbol if the process's malloc comes from the same object, else NULL. */
static void *
malloc_companion(const char *name)
{
    void *symbol = dlsym(RTLD_DEFAULT, name);

    return symbol && same_object_as_malloc(symbol) ? symbol : NULL;
}

static void
setup_jemalloc(void)
{
    mallctlnametomib_fn nametomib = (mallctlnametomib_fn)dlsym(RTLD_DEFAULT, "mallctlnametomib");

    jemalloc_bymib = (mallctlbymib_fn)dlsym(RTLD_DEFAULT, "mallctlbymib");
    if (!nametomib || !jemalloc_bymib) return;
    epoch_miblen = sizeof(epoch_mib) / sizeof(epoch_mib[0]);
    allocated_miblen = sizeof(allocated_mib) / sizeof(allocated_mib[0]);
    if (nametomib("epoch", epoch_mib, &epoch_miblen) != 0 ||
        nametomib("stats.allocated", allocated_mib, &allocated_miblen) != 0) {
        jemalloc_bymib = NULL; /* a jemalloc built without statistics: the name lookup says so */
    }
}

/* In this order, each checked against the object that provides malloc. */
static enum source
detect(void)
{
    malloc_symbol = dlsym(RTLD_DEFAULT, "malloc");
    if ((jemalloc_mallctl = (mallctl_fn)malloc_companion("mallctl"))) {
        setup_jemalloc();
        return SOURCE_JEMALLOC;
    }
    if ((tcmalloc_property = (tcmalloc_property_fn)malloc_companion("MallocExtension_GetNumericProperty"))) {
        return SOURCE_TCMALLOC;
    }
    /* mimalloc keeps a count of allocated bytes only when built with MI_STAT > 1 (its debug
     * builds); the release library Debian and others ship has nothing cheap to read (mi_process_info
     * gives RSS and commit, not bytes handed out), so it is named with no reading. */
    if (malloc_companion("mi_version")) return SOURCE_MIMALLOC;
    /* Neither glibc's mallinfo2 nor anything above provides malloc (musl, macOS, or an allocator
     * mallard does not know): glibc is assumed where the build found no mallinfo2 to check. */
#ifdef HAVE_MALLINFO2
    return malloc_companion("mallinfo2") ? SOURCE_GLIBC : SOURCE_UNKNOWN;
#else
    return SOURCE_GLIBC;
#endif
}

static VALUE
jemalloc_in_use(void)
{
    uint64_t epoch = 1;
    size_t epoch_size = sizeof(epoch), allocated, allocated_size = sizeof(allocated);

    /* stats.allocated is a snapshot taken when the epoch advances: advance it, then read. */
    if (jemalloc_bymib) {
        if (jemalloc_bymib(epoch_mib, epoch_miblen, &epoch, &epoch_size, &epoch, sizeof(epoch)) != 0 ||
            jemalloc_bymib(allocated_mib, allocated_miblen, &allocated, &allocated_size, NULL, 0) != 0) {
            return Qnil;
        }
    } else if (jemalloc_mallctl("epoch", &epoch, &epoch_size, &epoch, sizeof(epoch)) != 0 ||
               jemalloc_mallctl("stats.allocated", &allocated, &allocated_size, NULL, 0) != 0) {
        return Qnil;
    }
    return SIZET2NUM(allocated);
}

static VALUE
tcmalloc_in_use(void)
{
    size_t allocated;

    if (!tcmalloc_property("generic.current_allocated_bytes", &allocated)) return Qnil;
    return SIZET2NUM(allocated);
}

#ifdef HAVE_MALLINFO2
/* uordblks: in use in the arenas; hblkhd: chunks too large for an arena, each its own mmap. */
static VALUE
glibc_in_use_of(const struct mallinfo2 *info)
{
    return SIZET2NUM(info->uordblks + info->hblkhd);
}
#endif

static VALUE
glibc_in_use(void)
{
#ifdef HAVE_MALLINFO2
    /* Not cheap like the others: glibc counts by walking every free chunk of every arena, each arena's
     * lock held, so the cost grows with fragmentation (measured on glibc 2.36: ~0.2 us on a fresh
     * Ruby, ~90 us with ~10,000 free chunks, ~8 ms with ~100,000). There is no cheaper public figure. */
    struct mallinfo2 info = mallinfo2();

    return glibc_in_use_of(&info);
#else
    return Qnil; /* mallinfo's int fields wrap past 2 GiB; glibc < 2.33 and other C libraries get none */
#endif
}

/* Each allocator's own gauges, under their own names, for the metrics endpoint (lib/mallard/exporter): read
 * once per interval, not per require, so a reading may allocate its Hash. */
static const char *const jemalloc_statistics[] = {
    "stats.allocated", "stats.active", "stats.resident", "stats.mapped", "stats.retained", NULL
};
static const char *const tcmalloc_statistics[] = {
    "generic.current_allocated_bytes", "generic.heap_size", "tcmalloc.pageheap_free_bytes",
    "tcmalloc.pageheap_unmapped_bytes", NULL
};

static void
jemalloc_statistics_into(VALUE hash)
{
    uint64_t epoch = 1;
    size_t epoch_size = sizeof(epoch), value, value_size;
    const char *const *name;

    if (jemalloc_mallctl("epoch", &epoch, &epoch_size, &epoch, sizeof(epoch)) != 0) return;
    for (name = jemalloc_statistics; *name; name++) {
        value_size = sizeof(value);
        if (jemalloc_mallctl(*name, &value, &value_size, NULL, 0) == 0) {
            rb_hash_aset(hash, rb_str_new_cstr(*name), SIZET2NUM(value));
        }
    }
}

static void
tcmalloc_statistics_into(VALUE hash)
{
    size_t value;
    const char *const *name;

    for (name = tcmalloc_statistics; *name; name++) {
        if (tcmalloc_property(*name, &value)) rb_hash_aset(hash, rb_str_new_cstr(*name), SIZET2NUM(value));
    }
}

/* mallinfo2's byte counts: arena (obtained with sbrk/mmap for the arenas), hblkhd (in large chunks, each its
 * own mmap), uordblks (in use in the arenas), fordblks (free but held in the arenas), keepcost (releasable
 * from the top of the main arena). As costly as glibc_in_use, whose figure it returns from the same walk. */
static VALUE
glibc_statistics_into(VALUE hash)
{
#ifdef HAVE_MALLINFO2
    struct mallinfo2 info = mallinfo2();

    rb_hash_aset(hash, rb_str_new_cstr("mallinfo2.arena"), SIZET2NUM(info.arena));
    rb_hash_aset(hash, rb_str_new_cstr("mallinfo2.hblkhd"), SIZET2NUM(info.hblkhd));
    rb_hash_aset(hash, rb_str_new_cstr("mallinfo2.uordblks"), SIZET2NUM(info.uordblks));
    rb_hash_aset(hash, rb_str_new_cstr("mallinfo2.fordblks"), SIZET2NUM(info.fordblks));
    rb_hash_aset(hash, rb_str_new_cstr("mallinfo2.keepcost"), SIZET2NUM(info.keepcost));
    return glibc_in_use_of(&info);
#else
    return Qnil;
#endif
}

/* jemalloc's options as the process took them from MALLOC_CONF and its defaults, for a row's MALLOC_CONF to be
 * checked against (compare --jemalloc-conf): the ones that decide how much memory jemalloc keeps. mallctl refuses a
 * read whose size is not the option's own, so each is read as its C type; one this jemalloc lacks is left out. */
enum option_type { OPTION_BOOL, OPTION_UNSIGNED, OPTION_SSIZE, OPTION_SIZE, OPTION_STRING };
static const struct { const char *name; enum option_type type; } jemalloc_options[] = {
    { "opt.dirty_decay_ms", OPTION_SSIZE }, { "opt.muzzy_decay_ms", OPTION_SSIZE },
    { "opt.narenas", OPTION_UNSIGNED }, { "opt.background_thread", OPTION_BOOL },
    { "opt.max_background_threads", OPTION_SIZE }, { "opt.tcache", OPTION_BOOL },
    { "opt.percpu_arena", OPTION_STRING }, { "opt.thp", OPTION_STRING }, { "opt.metadata_thp", OPTION_STRING },
    { NULL, OPTION_BOOL }
};

/* The option's value, or Qundef where this jemalloc has no such option. */
static VALUE
jemalloc_option(const char *name, enum option_type type)
{
    bool flag;
    unsigned count;
    ssize_t signed_size;
    size_t size;
    const char *text;
    void *into[] = { &flag, &count, &signed_size, &size, (void *)&text };
    size_t sizes[] = { sizeof(flag), sizeof(count), sizeof(signed_size), sizeof(size), sizeof(text) };
    size_t length = sizes[type];

    if (jemalloc_mallctl(name, into[type], &length, NULL, 0) != 0) return Qundef;
    switch (type) {
      case OPTION_BOOL: return flag ? Qtrue : Qfalse;
      case OPTION_UNSIGNED: return UINT2NUM(count);
      case OPTION_SSIZE: return SSIZET2NUM(signed_size);
      case OPTION_SIZE: return SIZET2NUM(size);
      default: return text ? rb_str_new_cstr(text) : Qnil;
    }
}

/* Mallard::MallocStatsExt.options -> {"opt.narenas" => 2, "opt.background_thread" => true, ...} under jemalloc;
 * empty under any other allocator. */
static VALUE
malloc_stats_options(VALUE self)
{
    VALUE hash = rb_hash_new();
    int i;

    if (detected != SOURCE_JEMALLOC) return hash;
    for (i = 0; jemalloc_options[i].name; i++) {
        VALUE value = jemalloc_option(jemalloc_options[i].name, jemalloc_options[i].type);

        if (value != Qundef) rb_hash_aset(hash, rb_str_new_cstr(jemalloc_options[i].name), value);
    }
    return hash;
}

/* Mallard::MallocStatsExt.source -> "jemalloc", "tcmalloc", "mimalloc", "glibc" or "unknown" */
static VALUE
malloc_stats_source(VALUE self)
{
    return source_name;
}

/* Mallard::MallocStatsExt.in_use -> Integer bytes handed out and not freed, or nil where the
 * allocator gives no reading. */
static VALUE
malloc_stats_in_use(VALUE self)
{
    switch (detected) {
      case SOURCE_JEMALLOC: return jemalloc_in_use();
      case SOURCE_TCMALLOC: return tcmalloc_in_use();
      case SOURCE_GLIBC: return glibc_in_use();
      default: return Qnil;
    }
}

/* Fills hash with the allocator's statistics; returns the bytes in use (in_use's figure). */
static VALUE
statistics_into(VALUE hash)
{
    switch (detected) {
      case SOURCE_JEMALLOC: jemalloc_statistics_into(hash); break;
      case SOURCE_TCMALLOC: tcmalloc_statistics_into(hash); break;
      case SOURCE_GLIBC: return glibc_statistics_into(hash);
      default: break;
    }
    return malloc_stats_in_use(Qnil);
}

/* Mallard::MallocStatsExt.reading -> [in_use, statistics]: in_use's figure and a Hash of the allocator's own
 * statistics in bytes, by their names ("stats.resident", "mallinfo2.fordblks", ...; empty where it gives none).
 * Both at once because glibc's come from one walk of every free chunk: a memory ledger's reading of a Rails app on
 * glibc took 4-8 ms of CPU when it walked three times (in_use twice, the statistics once). */
static VALUE
malloc_stats_reading(VALUE self)
{
    VALUE hash = rb_hash_new();
    VALUE in_use = statistics_into(hash);

    return rb_assoc_new(in_use, hash);
}

/* Mallard::MallocStatsExt.malloc_library -> the file malloc comes from, or nil where it cannot tell */
static VALUE
malloc_stats_malloc_library(VALUE self)
{
#ifdef HAVE_DLADDR
    Dl_info info;

    if (malloc_symbol && dladdr(malloc_symbol, &info) && info.dli_fname) return rb_str_new_cstr(info.dli_fname);
#endif
    return Qnil;
}

void
Init_malloc_stats_ext(void)
{
    VALUE mMallard = rb_define_module("Mallard");
    VALUE mExt = rb_define_module_under(mMallard, "MallocStatsExt");

    detected = detect();
    rb_gc_register_address(&source_name);
    source_name = rb_obj_freeze(rb_str_new_cstr(source_names[detected]));
    rb_define_module_function(mExt, "source", malloc_stats_source, 0);
    rb_define_module_function(mExt, "in_use", malloc_stats_in_use, 0);
    rb_define_module_function(mExt, "malloc_library", malloc_stats_malloc_library, 0);
    rb_define_module_function(mExt, "reading", malloc_stats_reading, 0);
    rb_define_module_function(mExt, "options", malloc_stats_options, 0);
}
