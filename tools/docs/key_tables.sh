#!/usr/bin/env bash
# The key tables of workloads/README.md against the config's ParamTables
# (build/config_keys): each table between `<!-- BEGIN KEYS <what> -->` and
# `<!-- END KEYS <what> -->` must be what config_keys prints. Exit 1 naming
# the first table that differs; --update rewrites them.
#   tools/docs/key_tables.sh CONFIG_KEYS README [--update]
set -uo pipefail
keys=${1:?CONFIG_KEYS}; readme=${2:?README}; update=${3:-}
tmp=$(mktemp); trap 'rm -f "$tmp"' EXIT
cp "$readme" "$tmp"
for what in workload arch asic gpu; do
  grep -q "<!-- BEGIN KEYS $what -->" "$tmp" || { echo "key_tables: $readme: no '<!-- BEGIN KEYS $what -->' marker"; exit 1; }
  table=$("$keys" "$what") || exit 1
  /usr/bin/python3 - "$tmp" "$what" "$table" <<'PY' || exit 1
import re, sys
path, what, table = sys.argv[1], sys.argv[2], sys.argv[3]
text = open(path).read()
begin, end = f"<!-- BEGIN KEYS {what} -->", f"<!-- END KEYS {what} -->"
new = re.sub(re.escape(begin) + ".*?" + re.escape(end), lambda m: begin + "\n" + table + "\n" + end, text, flags=re.S)
open(path, "w").write(new)
PY
done
if cmp -s "$tmp" "$readme"; then echo "key_tables: $readme matches the config's key tables"; exit 0; fi
if [ "$update" = "--update" ]; then cp "$tmp" "$readme"; echo "key_tables: rewrote $readme"; exit 0; fi
diff "$readme" "$tmp" | head -5
echo "key_tables: $readme differs from the config's key tables (tools/docs/key_tables.sh build/config_keys $readme --update)"
exit 1
