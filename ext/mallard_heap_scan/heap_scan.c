/*
 * mallard/heap_scan_ext: Run::HeapDump's pass over an ObjectSpace.dump_all file, in C.
 *
 * It applies, line for line, the rules of the Ruby Tally in lib/mallard/run/heap_dump/tally.rb (that file
 * says why each holds); the two must give equal results on any input, and test/run/heap_dump_test.rb checks
 * that they do, garbage lines included. What C changes is the cost: the file is read in large chunks into
 * one buffer (grown only for a line longer than it: a CLASS's references can run to hundreds of KB), keys
 * are found with memchr/memrchr, and the counts live in C hash tables, so an object costs no Ruby
 * allocation; the Ruby hashes are built once, at the end. The pass runs without the GVL.
 *
 * Strings (class addresses and names, file names) are kept raw and interned. The rare one holding a
 * backslash escape is handed to the caller's block to decode, exactly as the Ruby Tally decodes it.
 */
#include <ruby.h>
#ifdef HAVE_RUBY_THREAD_H
#include <ruby/thread.h>
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef O_BINARY
#define O_BINARY 0
#endif
#ifndef O_CLOEXEC
#define O_CLOEXEC 0
#endif

#define CHUNK (1 << 20) /* the first buffer and the size of each read */
#define ADDRESS_START 12 /* after {"address":" */
#define NONE (-1) /* the id of a string that is not in the line: nil */
#define KEY(text) text, sizeof(text) - 1

static const char GENERATION[] = "\"generation\":";
static const char MEMSIZE[] = "\"memsize\":";
static const char TYPE[] = "\"type\":\"";
static const char FILE_KEY[] = "\"file\":\"";
static const char LINE_KEY[] = "\"line\":";
static const char CLASS_KEY[] = "\"class\":\"";
static const char NAME_KEY[] = "\"name\":\"";
static const char SUPERCLASS_KEY[] = "\"superclass\":\"";
static const char SINGLETON_KEY[] = "\"singleton\":true";

/* Open addressing over entries kept in arrays in insertion order, which is also the order of the Ruby
 * hashes built from them (the order the Ruby Tally inserts in). */
struct index {
    uint32_t *slots; /* entry number + 1; 0 is empty */
    uint32_t *hashes; /* per entry */
    size_t mask, count, capacity; /* capacity: of hashes and of the caller's entry array */
};

struct text { size_t at, len; }; /* bytes in strings.bytes */
struct strings { struct index index; struct text *entries; char *bytes; size_t used, size; };
struct site { long file, klass; int has_line; int64_t line, count, memsize; };
/* Counts and bytes add up in 64 bits, where Ruby's Integers never overflow: a dump would need 9 EB of memsize. */
struct generation { int64_t generation, count, memsize; };
/* name, or (an anonymous class or a singleton class: no name) its superclass and whether it is a singleton, or (an
 * ICLASS, a module included into a class) the module it stands for */
struct class_record { long address, name, superclass; int named, singleton, included; };

struct scan {
    int fd, eof, done, error;
    volatile int interrupted;
    char *buf;
    size_t size, start, end, searched; /* the unread line is buf[start, end); no newline in [start, searched) */
    int windowed, has_low, has_high;
    int64_t low, high; /* generations in (low, high] */
    int64_t objects, max_generation;
    int traced;
    struct strings strings;
    struct index site_index, generation_index;
    struct site *sites;
    struct generation *generations;
    struct class_record *classes;
    size_t class_count, class_capacity;
};

static uint32_t
hash_bytes(const char *p, size_t n, uint64_t seed)
{
    uint64_t h = seed ^ (n * 0x9E3779B97F4A7C15ULL);

    for (; n >= 8; p += 8, n -= 8) {
        uint64_t word;
        memcpy(&word, p, 8);
        h = (h ^ word) * 0xFF51AFD7ED558CCDULL;
        h ^= h >> 32;
    }
    while (n--) h = (h ^ (unsigned char)*p++) * 0x100000001B3ULL;
    h ^= h >> 29;
    h *= 0xC4CEB9FE1A85EC53ULL;
    return (uint32_t)(h ^ (h >> 32));
}

static uint32_t
hash_numbers(int64_t a, int64_t b, int64_t c)
{
    int64_t numbers[3] = { a, b, c };

    return hash_bytes((const char *)numbers, sizeof(numbers), 0x5173);
}

static int
grow(void **array, size_t *capacity, size_t element, size_t needed)
{
    size_t capacity_now = *capacity ? *capacity : 64;
    void *grown;

    while (capacity_now < needed) capacity_now *= 2;
    if (capacity_now == *capacity) return 1;
    grown = realloc(*array, capacity_now * element);
    if (!grown) return 0;
    *array = grown;
    *capacity = capacity_now;
    return 1;
}

/* Makes room for one more entry in the index and in its caller's entries (of element bytes). */
static int
index_reserve(struct index *index, void **entries, size_t element)
{
    size_t capacity = index->capacity, slot_count = index->mask + 1, i;

    if (index->count + 1 > capacity) {
        if (!grow(entries, &capacity, element, index->count + 1)) return 0;
        if (!grow((void **)&index->hashes, &index->capacity, sizeof(uint32_t), capacity)) return 0;
    }
    if (index->slots && (index->count + 1) * 2 <= slot_count) return 1;
    slot_count = index->slots ? slot_count * 2 : 128;
    free(index->slots);
    index->slots = calloc(slot_count, sizeof(uint32_t));
    if (!index->slots) return 0;
    index->mask = slot_count - 1;
    for (i = 0; i < index->count; i++) {
        size_t slot = index->hashes[i] & index->mask;
        while (index->slots[slot]) slot = (slot + 1) & index->mask;
        index->slots[slot] = (uint32_t)(i + 1);
    }
    return 1;
}

static long
index_add(struct index *index, size_t slot, uint32_t hash)
{
    index->hashes[index->count] = hash;
    index->slots[slot] = (uint32_t)(index->count + 1);
    return (long)index->count++;
}

static void
index_free(struct index *index)
{
    free(index->slots);
    free(index->hashes);
}

/* The id of these raw bytes among the scan's strings, interning them the first time; NONE when out of memory. */
static long
intern(struct scan *s, const char *p, size_t n)
{
    struct strings *strings = &s->strings;
    uint32_t hash = hash_bytes(p, n, 0);
    size_t slot;
    uint32_t entry;

    if (!index_reserve(&strings->index, (void **)&strings->entries, sizeof(struct text)) ||
        !grow((void **)&strings->bytes, &strings->size, 1, strings->used + n + 1)) {
        s->error = ENOMEM;
        return NONE;
    }
    for (slot = hash & strings->index.mask; (entry = strings->index.slots[slot]); slot = (slot + 1) & strings->index.mask) {
        struct text *text = &strings->entries[entry - 1];
        if (strings->index.hashes[entry - 1] == hash && text->len == n &&
            memcmp(strings->bytes + text->at, p, n) == 0) return (long)entry - 1;
    }
    memcpy(strings->bytes + strings->used, p, n);
    strings->entries[strings->index.count].at = strings->used;
    strings->entries[strings->index.count].len = n;
    strings->used += n;
    return index_add(&strings->index, slot, hash);
}

/* memrchr where the C library has none. */
static const char *
last_byte(const char *p, int c, size_t n)
{
#ifdef HAVE_MEMRCHR
    return memrchr(p, c, n);
#else
    while (n--) if (p[n] == (char)c) return p + n;
    return NULL;
#endif
}

/* The first needle starting in p[0, n - needle_len], found by its second byte: a letter after the opening
 * quote, rarer than quotes and colons. For keys a few dozen bytes away this beats memmem, which prepares
 * its search on every call. */
static inline const char *
find(const char *p, size_t n, const char *needle, size_t needle_len)
{
    const char *at = p + 1, *last, *hit;

    if (n < needle_len) return NULL;
    last = p + n - needle_len + 1; /* where the second byte of the last possible needle lies */
    while (at <= last && (hit = memchr(at, needle[1], (size_t)(last - at) + 1))) {
        if (memcmp(hit - 1, needle, needle_len) == 0) return hit - 1;
        at = hit + 1;
    }
    return NULL;
}

/* The last needle starting in p[0, n - needle_len], found by its second byte too (hex addresses, which fill
 * a CLASS's long list of references, hold no "g"). */
static inline const char *
find_last(const char *p, size_t n, const char *needle, size_t needle_len)
{
    size_t length;
    const char *at;

    if (n < needle_len) return NULL;
    length = n - needle_len + 1; /* the second byte lies in p[1, length] */
    while (length > 0 && (at = last_byte(p + 1, needle[1], length))) {
        if (memcmp(at - 1, needle, needle_len) == 0) return at - 1;
        length = (size_t)(at - (p + 1));
    }
    return NULL;
}

static int
space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

/* Ruby's String#to_i of p[0, n): leading white space, a sign, an optional 0d, then decimal digits with
 * single underscores between them; 0 when there are none. n is at most 14, so it fits. */
static int64_t
to_i(const char *p, size_t n)
{
    const char *end = p + n;
    int64_t value = 0;
    int negative = 0;

    while (p < end && space(*p)) p++;
    if (p < end && (*p == '+' || *p == '-')) negative = *p++ == '-';
    if (end - p > 1 && p[0] == '0' && (p[1] == 'd' || p[1] == 'D')) p += 2;
    while (p < end && *p >= '0' && *p <= '9') {
        value = value * 10 + (*p++ - '0');
        if (end - p > 1 && p[0] == '_' && p[1] >= '0' && p[1] <= '9') p++;
    }
    return negative ? -value : value;
}

/* The number of at most width bytes that starts at line[from, len); line[from] exists. */
static int64_t
number_at(const char *line, size_t len, size_t from, size_t width)
{
    return to_i(line + from, len - from < width ? len - from : width);
}

/* The id of the JSON string whose text starts at line[from], up to the first quote not escaped by a
 * backslash; NONE when the line ends first. */
static long
string_at(struct scan *s, const char *line, size_t len, size_t from)
{
    const char *p = line + from, *end = line + len, *quote;

    while ((quote = memchr(p, '"', (size_t)(end - p)))) {
        const char *before = quote;
        while (before > line + from && before[-1] == '\\') before--;
        if ((quote - before) % 2 == 0) return intern(s, line + from, (size_t)(quote - (line + from)));
        p = quote + 1;
    }
    return NONE;
}

static void
class_name(struct scan *s, const char *line, size_t len, const char *type)
{
    const char *kind, *name, *superclass, *expected;
    struct class_record *record;
    size_t kind_len;
    int included;

    kind = type + sizeof(TYPE) - 1;
    if (kind >= line + len) return;
    if (*kind == 'C') expected = "CLASS\"";
    else if (*kind == 'M') expected = "MODULE\"";
    else if (*kind == 'I') expected = "ICLASS\"";
    else return;
    kind_len = strlen(expected);
    if ((size_t)(line + len - kind) < kind_len || memcmp(kind, expected, kind_len) != 0) return;
    included = *kind == 'I';
    /* An ICLASS (a module as included into a class) is named by its module: its "class" */
    name = included ? NULL : find(type, (size_t)(line + len - type), KEY(NAME_KEY));
    if (included) superclass = find(line + ADDRESS_START, len - ADDRESS_START, KEY(CLASS_KEY));
    else superclass = name ? NULL : find(type, (size_t)(line + len - type), KEY(SUPERCLASS_KEY));
    if (!grow((void **)&s->classes, &s->class_capacity, sizeof(struct class_record), s->class_count + 1)) {
        s->error = ENOMEM;
        return;
    }
    record = &s->classes[s->class_count];
    record->address = string_at(s, line, len, ADDRESS_START);
    record->name = name ? string_at(s, line, len, (size_t)(name - line) + sizeof(NAME_KEY) - 1) : NONE;
    record->superclass = superclass ? string_at(s, line, len, (size_t)(superclass - line) +
                                                (included ? sizeof(CLASS_KEY) : sizeof(SUPERCLASS_KEY)) - 1)
                                    : NONE;
    record->named = name != NULL;
    record->included = included;
    record->singleton = !name && !included && find(type, (size_t)(line + len - type), KEY(SINGLETON_KEY)) != NULL;
    s->class_count++;
}

static void
count_generation(struct scan *s, int64_t generation, int64_t memsize)
{
    struct index *index = &s->generation_index;
    uint32_t hash = hash_numbers(generation, 0, 0), entry;
    size_t slot;

    if (!index_reserve(index, (void **)&s->generations, sizeof(struct generation))) {
        s->error = ENOMEM;
        return;
    }
    for (slot = hash & index->mask; (entry = index->slots[slot]); slot = (slot + 1) & index->mask) {
        if (s->generations[entry - 1].generation == generation) break;
    }
    if (!entry) {
        entry = (uint32_t)index_add(index, slot, hash) + 1;
        s->generations[entry - 1] = (struct generation){ generation, 0, 0 };
    }
    s->generations[entry - 1].count++;
    s->generations[entry - 1].memsize += memsize;
}

static void
count_site(struct scan *s, long file, int has_line, int64_t line_number, long klass, int64_t memsize)
{
    struct index *index = &s->site_index;
    uint32_t hash = hash_numbers(file, line_number, klass) ^ (uint32_t)has_line, entry;
    size_t slot;

    if (s->error || !index_reserve(index, (void **)&s->sites, sizeof(struct site))) {
        s->error = ENOMEM;
        return;
    }
    for (slot = hash & index->mask; (entry = index->slots[slot]); slot = (slot + 1) & index->mask) {
        struct site *site = &s->sites[entry - 1];
        if (site->file == file && site->has_line == has_line && site->line == line_number && site->klass == klass)
            break;
    }
    if (!entry) {
        entry = (uint32_t)index_add(index, slot, hash) + 1;
        s->sites[entry - 1] = (struct site){ file, klass, has_line, line_number, 0, 0 };
    }
    s->sites[entry - 1].count++;
    s->sites[entry - 1].memsize += memsize;
}

static void
site(struct scan *s, const char *line, size_t len, size_t generation_at, int64_t memsize)
{
    size_t before = generation_at + sizeof(FILE_KEY) - 1 < len ? generation_at + sizeof(FILE_KEY) - 1 : len;
    const char *file_at = find_last(line, before, KEY(FILE_KEY)), *line_at = NULL, *class_at = NULL;
    long file = NONE, klass = NONE;
    int64_t line_number = 0;

    if (file_at) {
        file = string_at(s, line, len, (size_t)(file_at - line) + sizeof(FILE_KEY) - 1);
        line_at = find(file_at, (size_t)(line + len - file_at), KEY(LINE_KEY));
    }
    if (line_at) line_number = number_at(line, len, (size_t)(line_at - line) + sizeof(LINE_KEY) - 1, 10);
    if (len > ADDRESS_START) class_at = find(line + ADDRESS_START, len - ADDRESS_START, KEY(CLASS_KEY));
    if (class_at) klass = string_at(s, line, len, (size_t)(class_at - line) + sizeof(CLASS_KEY) - 1);
    count_site(s, file, line_at != NULL, line_number, klass, memsize);
}

static void
traced(struct scan *s, const char *line, size_t len, size_t at)
{
    int64_t generation = number_at(line, len, at + sizeof(GENERATION) - 1, 12), memsize = 0;
    const char *memsize_at = find(line + at, len - at, KEY(MEMSIZE));

    if (memsize_at) memsize = number_at(line, len, (size_t)(memsize_at - line) + sizeof(MEMSIZE) - 1, 14);
    if (!s->traced || generation > s->max_generation) s->max_generation = generation;
    s->traced = 1;
    count_generation(s, generation, memsize);
    if (s->windowed && (!s->has_low || generation > s->low) && (!s->has_high || generation <= s->high))
        site(s, line, len, at, memsize);
}

/* One line, with its newline when it has one. */
static void
scan_line(struct scan *s, const char *line, size_t len)
{
    const char *generation, *type = NULL;

    if (len > 2 && line[2] == 't') return; /* {"type":"ROOT", ... */
    if (len > ADDRESS_START) type = find(line + ADDRESS_START, len - ADDRESS_START, KEY(TYPE));
    /* Ruby 3.3+ also dumps its object shapes ({"address":..., "type":"SHAPE", "id":...}): no objects either. */
    if (type && (size_t)(line + len - type) >= sizeof(TYPE) - 1 + 6 && memcmp(type + sizeof(TYPE) - 1, "SHAPE\"", 6) == 0)
        return;
    s->objects++;
    if (type) class_name(s, line, len, type);
    generation = find_last(line, len, KEY(GENERATION));
    if (generation) traced(s, line, len, (size_t)(generation - line));
}

/* Reads and scans until the end of the file, an error or an interrupt (the pass then resumes where it was). */
static void *
scan_file(void *arg)
{
    struct scan *s = arg;

    while (!s->done && !s->error && !s->interrupted) {
        const char *newline;
        ssize_t n;

        while ((newline = memchr(s->buf + s->searched, '\n', s->end - s->searched))) {
            size_t next = (size_t)(newline - s->buf) + 1;
            scan_line(s, s->buf + s->start, next - s->start);
            s->start = s->searched = next;
        }
        s->searched = s->end;
        if (s->eof) {
            if (s->end > s->start) scan_line(s, s->buf + s->start, s->end - s->start);
            s->done = 1;
            break;
        }
        memmove(s->buf, s->buf + s->start, s->end - s->start);
        s->end -= s->start;
        s->searched -= s->start;
        s->start = 0;
        if (s->size - s->end < CHUNK / 2 && !grow((void **)&s->buf, &s->size, 1, s->size * 2)) {
            s->error = ENOMEM;
            break;
        }
        n = read(s->fd, s->buf + s->end, s->size - s->end);
        if (n < 0 && errno != EINTR) s->error = errno;
        else if (n == 0) s->eof = 1;
        else if (n > 0) s->end += (size_t)n;
    }
    return NULL;
}

static void
interrupt(void *arg)
{
    ((struct scan *)arg)->interrupted = 1;
}

static VALUE
text_value(struct scan *s, long id, int decode)
{
    struct text *text = &s->strings.entries[id];
    const char *p = s->strings.bytes + text->at;

    if (decode && memchr(p, '\\', text->len)) return rb_obj_freeze(rb_yield(rb_str_new(p, (long)text->len)));
    return rb_obj_freeze(rb_utf8_str_new(p, (long)text->len));
}

static VALUE
counts(int64_t count, int64_t memsize)
{
    return rb_ary_new_from_args(2, LL2NUM(count), LL2NUM(memsize));
}

/* Two raw sites can decode to one (two spellings of one escape): their counts add up, as in the Ruby Tally. */
static VALUE
site_hash(struct scan *s, VALUE texts)
{
    VALUE sites = rb_hash_new();
    size_t i;

    for (i = 0; i < s->site_index.count; i++) {
        struct site *site = &s->sites[i];
        VALUE key = rb_ary_new_from_args(3, site->file == NONE ? Qnil : rb_ary_entry(texts, site->file),
                                         site->has_line ? LL2NUM(site->line) : Qnil,
                                         site->klass == NONE ? Qnil : rb_ary_entry(texts, site->klass));
        VALUE existing = rb_hash_lookup2(sites, key, Qundef);
        if (existing == Qundef) {
            rb_hash_aset(sites, key, counts(site->count, site->memsize));
        } else {
            rb_ary_store(existing, 0, rb_funcall(rb_ary_entry(existing, 0), '+', 1, LL2NUM(site->count)));
            rb_ary_store(existing, 1, rb_funcall(rb_ary_entry(existing, 1), '+', 1, LL2NUM(site->memsize)));
        }
    }
    return sites;
}

/* A name; for a class without one, [\"singleton\" or \"anonymous\", its superclass's address] (as Tally's). */
static VALUE
class_value(const struct class_record *c, VALUE texts)
{
    if (c->named) return c->name == NONE ? Qnil : rb_ary_entry(texts, c->name);
    return rb_ary_new_from_args(2, rb_str_new_cstr(c->included ? "included" : c->singleton ? "singleton" : "anonymous"),
                                c->superclass == NONE ? Qnil : rb_ary_entry(texts, c->superclass));
}

static VALUE
result(struct scan *s)
{
    VALUE texts = rb_ary_new_capa((long)s->strings.index.count), generations = rb_hash_new(), classes = rb_hash_new();
    int decode = rb_block_given_p();
    size_t i;

    for (i = 0; i < s->strings.index.count; i++) rb_ary_push(texts, text_value(s, (long)i, decode));
    for (i = 0; i < s->generation_index.count; i++) {
        struct generation *g = &s->generations[i];
        rb_hash_aset(generations, LL2NUM(g->generation), counts(g->count, g->memsize));
    }
    for (i = 0; i < s->class_count; i++) {
        struct class_record *c = &s->classes[i];
        rb_hash_aset(classes, c->address == NONE ? Qnil : rb_ary_entry(texts, c->address), class_value(c, texts));
    }
    return rb_ary_new_from_args(5, LL2NUM(s->objects), s->traced ? LL2NUM(s->max_generation) : Qnil, generations,
                                classes, site_hash(s, texts));
}

struct call { struct scan *scan; VALUE path; };

static VALUE
run(VALUE arg)
{
    struct call *call = (struct call *)arg;
    struct scan *s = call->scan;

    s->buf = malloc(CHUNK);
    if (!s->buf) rb_memerror();
    s->size = CHUNK;
    while (!s->done && !s->error) {
        s->interrupted = 0;
#ifdef HAVE_RB_THREAD_CALL_WITHOUT_GVL
        rb_thread_call_without_gvl(scan_file, s, interrupt, s); /* raises there for a pending interrupt */
#else
        scan_file(s);
#endif
    }
    if (s->error == ENOMEM) rb_memerror();
    if (s->error) rb_syserr_fail_str(s->error, call->path);
    return result(s);
}

static VALUE
release(VALUE arg)
{
    struct scan *s = ((struct call *)arg)->scan;

    if (s->fd >= 0) close(s->fd);
    free(s->buf);
    index_free(&s->strings.index);
    free(s->strings.entries);
    free(s->strings.bytes);
    index_free(&s->site_index);
    free(s->sites);
    index_free(&s->generation_index);
    free(s->generations);
    free(s->classes);
    return Qnil;
}

static int64_t
bound(VALUE value, int *present)
{
    *present = !NIL_P(value);
    return *present ? NUM2LL(value) : 0;
}

/*
 * Mallard::HeapScanExt.scan(path, window) { |raw| decoded } -> [objects, max_generation, generations, classes, sites]
 *
 * window: nil (no sites) or [low, high], generations in (low, high], either nil for no bound. The block
 * decodes a raw string that holds a backslash escape; without one such strings come back raw.
 */
static VALUE
heap_scan(VALUE self, VALUE path, VALUE window)
{
    struct scan scan;
    struct call call = { &scan, path };

    memset(&scan, 0, sizeof(scan));
    FilePathValue(path);
    call.path = path;
    if (!NIL_P(window)) {
        Check_Type(window, T_ARRAY);
        if (RARRAY_LEN(window) != 2) rb_raise(rb_eArgError, "window must be [low, high]");
        scan.windowed = 1;
        scan.low = bound(rb_ary_entry(window, 0), &scan.has_low);
        scan.high = bound(rb_ary_entry(window, 1), &scan.has_high);
    }
    scan.fd = open(StringValueCStr(path), O_RDONLY | O_BINARY | O_CLOEXEC);
    if (scan.fd < 0) rb_sys_fail_str(path);
#ifdef HAVE_POSIX_FADVISE
    (void)posix_fadvise(scan.fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
    return rb_ensure(run, (VALUE)&call, release, (VALUE)&call);
}

void
Init_heap_scan_ext(void)
{
    VALUE mMallard = rb_define_module("Mallard");
    VALUE mExt = rb_define_module_under(mMallard, "HeapScanExt");

    rb_define_module_function(mExt, "scan", heap_scan, 2);
}
