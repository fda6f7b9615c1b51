#!/usr/bin/env bash
# Adding an RSQRT unit is its own files and two lines (docs/ARCHITECTURE.md,
# "Adding a unit"): every unit but the first is named, in the product's code
# and build, only by sim/core/rsqrt_<unit>.{hpp,cpp} (its arithmetic and its
# RsqrtKind entry), its line in sim/core/rsqrt_kinds.cpp, its line in
# CMakeLists.txt and its Verilog module. The units come from
# `normsim list rsqrt-units`; a mention planted in a copy of the tree is caught.
#   NORMSIM=build/normsim NORMSIM_SOURCE_DIR=. tests/cli/test_unit_recipe.sh
set -uo pipefail
N=${NORMSIM:?NORMSIM}
src=${NORMSIM_SOURCE_DIR:?NORMSIM_SOURCE_DIR}
units=$("$N" list rsqrt-units --json | python3 -c '
import json, sys
for k in json.load(sys.stdin)["rsqrt-units"][1:]:
    print(k["name"], k["verilog_module"])') || { echo "recipe: normsim list rsqrt-units failed"; exit 1; }
[ -n "$units" ] || { echo "recipe: no RSQRT unit besides the first to check"; exit 1; }

check() {  # $1: a tree; prints each file naming a unit outside its own, returns 1 if any
  local tree=$1 bad=0 name module f
  while read -r name module; do
    while IFS= read -r f; do
      case "$f" in
        sim/core/rsqrt_"$name".hpp | sim/core/rsqrt_"$name".cpp | sim/core/rsqrt_kinds.cpp | CMakeLists.txt | \
          rtl_models/"$module".v) ;;
        *) echo "recipe: $f names the RSQRT unit '$name' (only its own files and sim/core/rsqrt_kinds.cpp may)"; bad=1 ;;
      esac
    done < <(cd "$tree" && grep -rlw -- "$name" sim tools rtl_models python gpu_ref CMakeLists.txt 2>/dev/null | sort)
  done <<<"$units"
  return $bad
}

check "$src" || exit 1
planted=$(mktemp -d)
trap 'rm -rf "$planted"' EXIT
cp -r "$src/sim" "$src/rtl_models" "$src/CMakeLists.txt" "$planted/"
first=$(head -n1 <<<"$units" | cut -d' ' -f1)
echo "// $first" >>"$planted/sim/area/logic_inventory.cpp"
if check "$planted" >/dev/null; then
  echo "recipe: a mention of '$first' planted in sim/area/logic_inventory.cpp passed the check"; exit 1
fi
echo "recipe: $(wc -l <<<"$units") RSQRT unit(s) besides the first named only by their own files; a planted mention is caught"
