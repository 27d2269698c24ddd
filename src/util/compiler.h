/* compiler.h -- branch hints, inlining, CPU pause and fences per architecture. */
#ifndef SHR_COMPILER_H
#define SHR_COMPILER_H

#define SHR_LIKELY(_x)   __builtin_expect(!!(_x), 1)
#define SHR_UNLIKELY(_x) __builtin_expect(!!(_x), 0)
#define SHR_ALWAYS_INLINE inline __attribute__((always_inline))
#define SHR_NOINLINE __attribute__((noinline))
#define SHR_COLD __attribute__((cold, noinline))
#define SHR_EXPORT __attribute__((visibility("default")))
/* Lends shr_<_name> to transport plugins as shr_plugin_<_name>: an exported
 * alias, so the library's own references stay direct (hidden symbols, no
 * GOT load on the fast path).  Written beside the definition (an alias's
 * target must be in the same file); core/remote_plugin.def lists them. */
/* ... and the other side: on a declaration, sends a transport plugin's
 * references (SHR_REMOTE_PLUGIN is defined in its build) to that alias.
 * Nothing in the library itself. */
#ifdef SHR_REMOTE_PLUGIN
#define SHR_PLUGIN_IMPORT(_name) __asm__("shr_plugin_" #_name)
#else
#define SHR_PLUGIN_IMPORT(_name)
#endif
#if defined(__GNUC__) && !defined(__clang__)
#define SHR_PLUGIN_EXPORT(_name) \
    extern __typeof__(shr_##_name) shr_plugin_##_name \
        __attribute__((alias("shr_" #_name), visibility("default"), copy(shr_##_name)))
#else
#define SHR_PLUGIN_EXPORT(_name) \
    extern __typeof__(shr_##_name) shr_plugin_##_name \
        __attribute__((alias("shr_" #_name), visibility("default")))
#endif
#define SHR_CACHE_LINE 64
#define SHR_ALIGNED_CL __attribute__((aligned(SHR_CACHE_LINE)))
#define SHR_ARRAY_SIZE(_a) (sizeof(_a) / sizeof((_a)[0]))

/* One iteration of a polling loop: tells the core we are spinning. */
static inline void shr_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield" ::: "memory");
#else
    __asm__ __volatile__("" ::: "memory");
#endif
}

/*
 * Ordering of the shared-memory path (docs/memory-ordering.md explains why):
 *   fence: earlier stores/AMOs to a PE become visible before later ones.
 *          x86-64 (TSO) keeps store order, and glibc's non-temporal memcpy
 *          ends with sfence: only the compiler must be stopped.
 *          AArch64: dmb ishst would order stores only; AMOs done with
 *          load-exclusive need loads ordered too, so dmb ish.
 *   quiet: everything earlier is globally visible before anything later,
 *          loads included (store->load order is not kept by TSO): a full
 *          fence on both (mfence / dmb ish).
 */
static inline void shr_fence_stores(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
#else
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

static inline void shr_fence_full(void)
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

#endif
