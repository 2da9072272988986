#!/usr/bin/env bash
# Checks every protocol model (src/modules/*/model/*.pml, docs/protocols.md) exhaustively with Spin:
# per model, `spin -a`, gcc builds the verifier `pan`, which searches every reachable state.
# The model must report no error; its broken variant (-DBROKEN) must report a counterexample (a
# checker that cannot fail proves nothing). Prints each model, its state count and its time; exits
# non-zero on the first model that fails either way. Needs spin (Debian `spin`) and gcc.
# Usage: scripts/check-models.sh [model.pml …]   (default: every model)
set -euo pipefail
cd "$(dirname "$0")/.."

for tool in spin gcc; do
  command -v "$tool" >/dev/null || { echo "check-models: $tool is not installed (apt-get install -y spin gcc)" >&2; exit 2; }
done

if [ $# -gt 0 ]; then models=("$@"); else mapfile -t models < <(find src -path '*/model/*.pml' | sort); fi
[ ${#models[@]} -gt 0 ] || { echo "check-models: no models found" >&2; exit 2; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
failed=0

# check <model> <variant: model|broken>: runs one exhaustive search; sets `errors`.
check() {
  local model="$1" variant="$2" dir="$work/$(basename "$1" .pml)-$2" flags=()
  [ "$variant" = broken ] && flags=(-DBROKEN)
  mkdir -p "$dir"
  (cd "$dir" && spin "${flags[@]}" -a "$OLDPWD/$model" >spin.log) || { cat "$dir/spin.log"; errors=parse; return; }
  gcc -O2 -DSAFETY -DNOBOUNDCHECK -DCOLLAPSE -o "$dir/pan" "$dir/pan.c"
  local start end out
  start=$(date +%s.%N)
  out="$(cd "$dir" && ./pan -m200000 2>&1 || true)"
  end=$(date +%s.%N)
  errors="$(sed -n 's/.*errors: \([0-9]*\).*/\1/p' <<<"$out" | head -1)"
  local states
  states="$(sed -n 's/^ *\([0-9.e+]*\) states, stored.*/\1/p' <<<"$out" | head -1)"
  printf '%-60s %-7s states=%-10s time=%.1fs errors=%s\n' "$model" "$variant" "${states:-?}" \
    "$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')" "${errors:-?}"
  if [ "$variant" = broken ] && [ "${errors:-0}" != 0 ]; then
    grep -E 'assertion violated|invalid end state' <<<"$out" | head -1 | sed 's/^/  counterexample: /'
  fi
  if [ "$variant" = model ] && [ "${errors:-}" != 0 ]; then
    echo "$out" | grep -E 'violated|error' | head -5
    (cd "$dir" && spin -t -p "$OLDPWD/$model" 2>&1 | tail -40) || true
  fi
}

for model in "${models[@]}"; do
  check "$model" model
  if [ "$errors" != 0 ]; then echo "FAIL: $model reports an error"; failed=1; fi
  check "$model" broken
  if [ "$errors" = 0 ] || [ "$errors" = parse ] || [ -z "$errors" ]; then
    echo "FAIL: the broken variant of $model finds no counterexample"; failed=1
  fi
done
[ "$failed" = 0 ] && echo "check-models: every model holds and every broken variant fails"
exit "$failed"
