/*
 * mallard/trim_ext: malloc_trim(0) after each major GC, for a Ruby that runs on glibc malloc.
 *
 * glibc keeps memory that Ruby has freed inside its arenas unless the free space happens to sit at
 * the very top of the heap. A major GC is when Ruby frees the most (every dead object's malloc'd
 * buffer), so right after one is when handing free pages back to the kernel pays off. A patched
 * Ruby does this inside the GC; this extension offers the same without rebuilding Ruby.
 *
 * The GC hook itself only triggers a postponed job: malloc_trim takes every arena's lock and can
 * run for milliseconds, and nothing may allocate or call back into Ruby while the GC runs. The job
 * runs at the next safe point, with the GVL held, outside the GC.
 */
#include <ruby.h>
#include <ruby/debug.h>
#include <malloc.h>

/* End of sweep is when the dead objects' buffers have all been freed (lazy sweeping spreads the
 * frees past the GC's exit); the GC's exit is the fallback. */
#if defined(RUBY_INTERNAL_EVENT_GC_END_SWEEP)
#define MALLARD_GC_EVENT RUBY_INTERNAL_EVENT_GC_END_SWEEP
#else
#define MALLARD_GC_EVENT RUBY_INTERNAL_EVENT_GC_EXIT
#endif

#if defined(HAVE_RB_POSTPONED_JOB_PREREGISTER) && defined(HAVE_RB_POSTPONED_JOB_TRIGGER)
#define MALLARD_PREREGISTERED_JOB 1
static rb_postponed_job_handle_t trim_job_handle;
#endif

static VALUE tracepoint = Qnil;
static VALUE sym_major_gc_count;
static size_t last_major_gc_count;
static size_t trim_count;

/* Runs at a safe point after the GC: trims only when a major GC happened since the last trim, as
 * minor GCs free little and happen often. */
static void
trim_job(void *data)
{
    size_t major = rb_gc_stat(sym_major_gc_count);

    if (major == last_major_gc_count) return;
    last_major_gc_count = major;
    malloc_trim(0);
    trim_count++;
}

/* Inside the GC: schedule the job, nothing else (no allocation, no Ruby calls). */
static void
gc_hook(VALUE tpval, void *data)
{
#ifdef MALLARD_PREREGISTERED_JOB
    rb_postponed_job_trigger(trim_job_handle);
#else
    rb_postponed_job_register_one(0, trim_job, NULL);
#endif
}

/*
 * Mallard::Trim.install -> true or false
 *
 * Starts trimming after each major GC. Returns true if this call installed the hook, false if it
 * was already installed (calling it again is harmless).
 */
static VALUE
trim_install(VALUE self)
{
    if (!NIL_P(tracepoint)) return Qfalse;

#ifdef MALLARD_PREREGISTERED_JOB
    trim_job_handle = rb_postponed_job_preregister(0, trim_job, NULL);
    if (trim_job_handle == POSTPONED_JOB_HANDLE_INVALID) {
        rb_raise(rb_eRuntimeError, "mallard/trim: Ruby's postponed job table is full");
    }
#endif
    /* Only major GCs from now on count: the ones before install have nothing left to trim for. */
    last_major_gc_count = rb_gc_stat(sym_major_gc_count);
    tracepoint = rb_tracepoint_new(0, MALLARD_GC_EVENT, gc_hook, NULL);
    rb_tracepoint_enable(tracepoint);
    return Qtrue;
}

/* Mallard::Trim.installed? -> true or false */
static VALUE
trim_installed_p(VALUE self)
{
    return NIL_P(tracepoint) ? Qfalse : Qtrue;
}

/* Mallard::Trim.trims -> Integer: how many times malloc_trim(0) has run in this process. */
static VALUE
trim_trims(VALUE self)
{
    return SIZET2NUM(trim_count);
}

void
Init_trim_ext(void)
{
    VALUE mMallard = rb_define_module("Mallard");
    VALUE mTrim = rb_define_module_under(mMallard, "Trim");

    rb_gc_register_address(&tracepoint);
    /* A static symbol: reading it in the job allocates nothing. */
    sym_major_gc_count = ID2SYM(rb_intern("major_gc_count"));
    rb_define_singleton_method(mTrim, "install", trim_install, 0);
    rb_define_singleton_method(mTrim, "installed?", trim_installed_p, 0);
    rb_define_singleton_method(mTrim, "trims", trim_trims, 0);
}
