#!/bin/sh
# check_symbols.sh -- the profiling interface (spec section 10) and the
# exported symbol set of the built library.
#
#   tools/check_symbols.sh path/to/libshimmer.so [path/to/openshmem-symbols.tsv]
#
# Checks, with `nm -D --defined-only`:
#   1. every symbol of the spec's list (openshmem-symbols.tsv, one per row,
#      first column) is exported;
#   2. every exported function is weak (W), so a tool can define its own
#      shmem_X and call pshmem_X, and has its profiling twin "p" + name
#      (pshmem_put, pstart_pes, p_my_pe, pshmalloc, ...) as a strong,
#      defined symbol (T) at the same address; every p-name has its weak
#      public name;
#   3. nothing else is exported: only shmem_*, shmemx_* (functions and the
#      handles' objects), their p-twins, start_pes, _my_pe, _num_pes, the
#      sh* legacy allocation names, and the shr_plugin_* aliases that
#      transport plugins use (src/core/remote_plugin.def; not API: no twin).
# Exit 0 = all good, 1 = problems (each printed on one line), 77 = the spec
# list is absent (skip; CI runs from a clone with ../shared beside it),
# 2 = usage or tool error.
set -u

lib=${1:-}
tsv=${2:-}
if [ -z "$lib" ]; then
    echo "usage: $0 libshimmer.so [openshmem-symbols.tsv]" >&2
    exit 2
fi
if [ -z "$tsv" ]; then
    tsv=$(dirname "$0")/../../shared/spec/openshmem-symbols.tsv
fi
if [ ! -r "$tsv" ]; then
    echo "check_symbols: SKIP: the spec's symbol list $tsv is not there" >&2
    exit 77
fi
if [ ! -r "$lib" ]; then
    echo "check_symbols: $lib: no such library" >&2
    exit 2
fi
if ! command -v nm >/dev/null 2>&1; then
    echo "check_symbols: nm (binutils) is needed" >&2
    exit 2
fi

syms=$(mktemp) || exit 2
trap 'rm -f "$syms"' EXIT INT TERM
if ! nm -D --defined-only "$lib" > "$syms"; then
    echo "check_symbols: nm -D --defined-only $lib failed" >&2
    exit 2
fi

# nm lines: "address type name" (an undefined-weak line has no address;
# --defined-only leaves none).  The spec list: comments '#', a header row
# starting with "symbol", then one symbol per row.
awk -v lib="$lib" -v tsv="$tsv" '
    FNR == NR {
        if (NF >= 3) { type[$3] = $2; addr[$3] = $1 }
        next
    }
    /^#/ || /^symbol\t/ || NF == 0 { next }
    { split($0, f, "\t"); spec[f[1]] = 1; n_spec++ }
    function allowed(name) {
        return name ~ /^p?shmemx?_[A-Za-z0-9_]+$/ ||
               name ~ /^p?(start_pes|_my_pe|_num_pes|shmalloc|shfree|shrealloc|shmemalign)$/
    }
    function is_function(t) { return t == "T" || t == "W" || t == "i" }
    function problem(msg) { print "check_symbols: " msg; bad++ }
    END {
        for (s in spec) {
            if (!(s in type)) {
                problem(s " (OpenSHMEM) is not exported")
            }
        }
        for (s in type) {
            t = type[s]
            if (s ~ /^shr_plugin_[a-z_]+$/) {
                continue
            }
            if (!allowed(s)) {
                problem(s " (" t ") is exported but is not an OpenSHMEM, shmemx_ or profiling name")
                continue
            }
            if (!is_function(t)) {
                if (s !~ /^shmemx_/) {
                    problem(s " is an exported object (" t "); only shmemx_ objects may be")
                }
                continue
            }
            if (s ~ /^p(shmem|sh|start_pes$|_my_pe$|_num_pes$)/) {
                # a profiling name: strong, with its public weak name
                pub = substr(s, 2)
                if (t != "T") {
                    problem(s " is \"" t "\", not a strong definition (T)")
                }
                if (!(pub in type)) {
                    problem(s " has no public name " pub)
                }
                continue
            }
            twin = "p" s
            if (!(twin in type)) {
                problem(s " has no profiling twin " twin)
            } else if (type[twin] != "T") {
                problem(twin " is \"" type[twin] "\", not a strong definition (T)")
            } else if (addr[twin] != addr[s]) {
                problem(s " and " twin " are different functions (a tool calling " twin " would not reach the library)")
            }
            if (t != "W") {
                problem(s " is \"" t "\", not weak (W): a tool cannot interpose it")
            }
        }
        n = 0
        for (s in type) n++
        if (bad) {
            print "check_symbols: " bad " problem(s) in " lib
            exit 1
        }
        printf "check_symbols: OK: %d spec symbols present and weak, %d exported names, every function with its strong p-twin\n", n_spec, n
    }
' "$syms" "$tsv"
