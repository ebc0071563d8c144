/*
 * mallard/gc_events_ext: one record per garbage collection, kept in a fixed-size ring.
 *
 * GC::Profiler keeps a record of every GC for the life of the process, so a long soak would grow the
 * very heap it measures. Here the GC's internal event hooks fill a static ring of RING_SIZE entries;
 * the agent's thread drains it once per interval. When the ring is full a finished GC is counted as
 * dropped instead of stored: the memory held is the ring, whatever the run length.
 *
 * One GC, as the hooks see it:
 *   ENTER  start   -> GC_START -> ... EXIT   (marking, and sweeping when immediate)
 *   ENTER  sweep   ... EXIT                 (lazy sweep steps, any number of them)
 *   ENTER  sweep   -> GC_END_SWEEP -> EXIT
 * The pause is the sum of the ENTER..EXIT steps from the one that starts the GC to the one that ends
 * its sweep; the longest step is kept too.
 *
 * Nothing here allocates a Ruby object or calls into Ruby while the GC runs: the hooks read a
 * monotonic clock, rb_gc_stat() and rb_gc_latest_gc_info() with static symbols (both only read the
 * GC's counters and return integers or static symbols), and store into C memory. Init calls each of
 * them once, so their symbol tables are set up and an unknown key (another GC implementation) fails
 * the require instead of raising inside the GC.
 */
#include <ruby.h>
#include <ruby/debug.h>
#include <time.h>

#define RING_SIZE 4096
/* Fields per event in a drained buffer, in the order of Mallard::Run::GC_EVENT_FIELDS. */
#define EVENT_FIELDS 11

struct gc_event {
    double t;                       /* CLOCK_MONOTONIC seconds when the GC began */
    double pause_s;
    double max_pause_s;
    VALUE major_by;                 /* a static Symbol, or Qnil for a minor GC */
    VALUE gc_by;
    size_t heap_live_slots;
    size_t old_objects;
    size_t heap_allocated_pages;
    size_t malloc_increase_bytes;
    size_t oldmalloc_increase_bytes;
};

static struct gc_event ring[RING_SIZE];
/* written: events ever stored; read: events ever drained. Both only grow, so written - read is the
 * count waiting and never exceeds RING_SIZE. Only the GC (holding the VM lock) writes, only drain
 * (holding the GVL, and allocating nothing before it reads) reads. */
static size_t written, read_count;
static size_t dropped;

/* The GC being recorded, between GC_START and the EXIT after GC_END_SWEEP. */
static struct gc_event current;
static int in_gc, sweep_ended;
static double step_began;
static size_t malloc_at_enter, oldmalloc_at_enter;

static VALUE tracepoints = Qnil; /* an Array of the TracePoints, kept from the GC */
static VALUE sym_major_by, sym_gc_by, sym_heap_live_slots, sym_old_objects, sym_heap_allocated_pages,
    sym_malloc_increase_bytes, sym_oldmalloc_increase_bytes;

static double
now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
store(const struct gc_event *event)
{
    if (written - read_count >= RING_SIZE) {
        dropped++;
        return;
    }
    ring[written % RING_SIZE] = *event;
    written++;
}

/* The GC resets malloc_increase (and after a major GC oldmalloc_increase) before GC_START fires, so
 * the bytes that led to this GC are read at every ENTER and kept for the START that may follow. */
static void
gc_entered(void)
{
    step_began = now();
    malloc_at_enter = rb_gc_stat(sym_malloc_increase_bytes);
    oldmalloc_at_enter = rb_gc_stat(sym_oldmalloc_increase_bytes);
}

static void
gc_started(void)
{
    if (in_gc) dropped++; /* never seen: the previous GC ends its sweep before another starts */
    in_gc = 1;
    sweep_ended = 0;
    current.t = step_began;
    current.pause_s = 0;
    current.max_pause_s = 0;
    current.major_by = rb_gc_latest_gc_info(sym_major_by);
    current.gc_by = rb_gc_latest_gc_info(sym_gc_by);
    current.malloc_increase_bytes = malloc_at_enter;
    current.oldmalloc_increase_bytes = oldmalloc_at_enter;
}

static void
gc_sweep_ended(void)
{
    if (!in_gc) return;
    sweep_ended = 1;
    current.heap_live_slots = rb_gc_stat(sym_heap_live_slots);
    current.old_objects = rb_gc_stat(sym_old_objects);
    current.heap_allocated_pages = rb_gc_stat(sym_heap_allocated_pages);
}

static void
gc_exited(void)
{
    double step;

    if (!in_gc) return; /* a step outside any recorded GC (one begun before install or fork) */
    step = now() - step_began;
    current.pause_s += step;
    if (step > current.max_pause_s) current.max_pause_s = step;
    if (!sweep_ended) return;
    in_gc = 0;
    store(&current);
}

/* One tracepoint per event, so a hook never asks which event it is: rb_tracearg_from_tracepoint reads the
 * running thread's trace state, which during a lazy sweep continued from another thread's allocation is
 * not reliably this hook's on every Ruby (ruby/ruby#17320). */
static void
entered_hook(VALUE tpval, void *data) { gc_entered(); }
static void
started_hook(VALUE tpval, void *data) { gc_started(); }
static void
sweep_ended_hook(VALUE tpval, void *data) { gc_sweep_ended(); }
static void
exited_hook(VALUE tpval, void *data) { gc_exited(); }

static const struct {
    rb_event_flag_t event;
    void (*hook)(VALUE tpval, void *data);
} hooks[] = {
    { RUBY_INTERNAL_EVENT_GC_ENTER, entered_hook },
    { RUBY_INTERNAL_EVENT_GC_START, started_hook },
    { RUBY_INTERNAL_EVENT_GC_END_SWEEP, sweep_ended_hook },
    { RUBY_INTERNAL_EVENT_GC_EXIT, exited_hook },
};
#define HOOK_COUNT (sizeof(hooks) / sizeof(hooks[0]))

/*
 * Mallard::GcEvents.start -> true or false
 *
 * Starts recording; true if this call installed the hooks, false if they already were.
 *
 * Cost: on Ruby 3.1 and 3.2 any internal GC event hook sends every object allocation through the GC's
 * slow path (ruby/ruby#8378, fixed in 3.3), about 20% more CPU in an allocation-bound loop; see
 * bench/README.md.
 */
static VALUE
gc_events_start(VALUE self)
{
    size_t i;

    if (!NIL_P(tracepoints)) return Qfalse;

    tracepoints = rb_ary_new_capa(HOOK_COUNT);
    for (i = 0; i < HOOK_COUNT; i++) {
        VALUE tracepoint = rb_tracepoint_new(0, hooks[i].event, hooks[i].hook, NULL);

        rb_ary_push(tracepoints, tracepoint);
    }
    /* Enabled only once all exist: a half-installed set would record steps without starts. */
    for (i = 0; i < HOOK_COUNT; i++) rb_tracepoint_enable(RARRAY_AREF(tracepoints, i));
    return Qtrue;
}

/* Mallard::GcEvents.started? -> true or false */
static VALUE
gc_events_started_p(VALUE self)
{
    return NIL_P(tracepoints) ? Qfalse : Qtrue;
}

/*
 * Mallard::GcEvents.drain(buffer) -> Integer
 *
 * Moves the oldest waiting events into buffer, EVENT_FIELDS elements each from index 0, as many as
 * fit in buffer's current size, and returns how many it moved. Elements past them are left as they
 * were. Allocates nothing when buffer is preallocated: the figures are Fixnums, flonums, static
 * Symbols and nil. An event leaves the ring before it is stored, so a GC that storing might cause
 * finds room and is never counted twice.
 */
static VALUE
gc_events_drain(VALUE self, VALUE buffer)
{
    long room, moved = 0;

    Check_Type(buffer, T_ARRAY);
    rb_ary_modify(buffer); /* a frozen buffer raises now, before any event leaves the ring */
    room = RARRAY_LEN(buffer) / EVENT_FIELDS;
    while (moved < room && read_count < written) {
        struct gc_event e = ring[read_count % RING_SIZE];
        long at = moved * EVENT_FIELDS;

        read_count++;
        rb_ary_store(buffer, at, DBL2NUM(e.t));
        rb_ary_store(buffer, at + 1, DBL2NUM(e.pause_s * 1000.0));
        rb_ary_store(buffer, at + 2, DBL2NUM(e.max_pause_s * 1000.0));
        rb_ary_store(buffer, at + 3, INT2FIX(NIL_P(e.major_by) ? 0 : 1));
        rb_ary_store(buffer, at + 4, e.major_by);
        rb_ary_store(buffer, at + 5, e.gc_by);
        rb_ary_store(buffer, at + 6, SIZET2NUM(e.heap_live_slots));
        rb_ary_store(buffer, at + 7, SIZET2NUM(e.old_objects));
        rb_ary_store(buffer, at + 8, SIZET2NUM(e.heap_allocated_pages));
        rb_ary_store(buffer, at + 9, SIZET2NUM(e.malloc_increase_bytes));
        rb_ary_store(buffer, at + 10, SIZET2NUM(e.oldmalloc_increase_bytes));
        moved++;
    }
    return LONG2NUM(moved);
}

/* Mallard::GcEvents.take_dropped -> Integer: GCs the full ring had no room for since the last call. */
static VALUE
gc_events_take_dropped(VALUE self)
{
    size_t count = dropped;

    dropped = 0;
    return SIZET2NUM(count);
}

/* Mallard::GcEvents.pending -> Integer: events waiting to be drained. */
static VALUE
gc_events_pending(VALUE self)
{
    return SIZET2NUM(written - read_count);
}

/*
 * Mallard::GcEvents.reset -> nil
 *
 * Forgets waiting events, drops and the GC in progress. A forked child calls it: what it inherited
 * are its parent's GCs, and a GC its parent was sweeping began before the child existed.
 */
static VALUE
gc_events_reset(VALUE self)
{
    read_count = written;
    dropped = 0;
    in_gc = 0;
    sweep_ended = 0;
    return Qnil;
}

static VALUE
static_symbol(const char *name)
{
    return ID2SYM(rb_intern(name));
}

void
Init_gc_events_ext(void)
{
    VALUE mMallard = rb_define_module("Mallard");
    VALUE mGcEvents = rb_define_module_under(mMallard, "GcEvents");
    VALUE mGC = rb_const_get(rb_cObject, rb_intern("GC"));
    VALUE stat_keys[5];
    int i;

    rb_gc_register_address(&tracepoints);
    sym_major_by = static_symbol("major_by");
    sym_gc_by = static_symbol("gc_by");
    stat_keys[0] = sym_heap_live_slots = static_symbol("heap_live_slots");
    stat_keys[1] = sym_old_objects = static_symbol("old_objects");
    stat_keys[2] = sym_heap_allocated_pages = static_symbol("heap_allocated_pages");
    stat_keys[3] = sym_malloc_increase_bytes = static_symbol("malloc_increase_bytes");
    stat_keys[4] = sym_oldmalloc_increase_bytes = static_symbol("oldmalloc_increase_bytes");
    /* GC.stat(key) raises for a key this GC does not have; rb_gc_stat would answer 0 or raise in the GC. */
    for (i = 0; i < 5; i++) {
        rb_funcall(mGC, rb_intern("stat"), 1, stat_keys[i]);
        rb_gc_stat(stat_keys[i]);
    }
    rb_funcall(mGC, rb_intern("latest_gc_info"), 1, sym_major_by);
    rb_funcall(mGC, rb_intern("latest_gc_info"), 1, sym_gc_by);

    rb_define_const(mGcEvents, "RING_SIZE", INT2FIX(RING_SIZE));
    rb_define_const(mGcEvents, "EVENT_FIELDS", INT2FIX(EVENT_FIELDS));
    rb_define_const(mGcEvents, "RING_BYTES", SIZET2NUM(sizeof(ring)));
    rb_define_singleton_method(mGcEvents, "start", gc_events_start, 0);
    rb_define_singleton_method(mGcEvents, "started?", gc_events_started_p, 0);
    rb_define_singleton_method(mGcEvents, "drain", gc_events_drain, 1);
    rb_define_singleton_method(mGcEvents, "take_dropped", gc_events_take_dropped, 0);
    rb_define_singleton_method(mGcEvents, "pending", gc_events_pending, 0);
    rb_define_singleton_method(mGcEvents, "reset", gc_events_reset, 0);
}
