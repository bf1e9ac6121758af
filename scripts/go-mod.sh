# shellcheck shell=bash
# Sourced by scripts/engine.sh and scripts/sdks.sh: what a go.mod of tools/engine/ pins.
# pinned <module> <go.mod>: the version the go.mod requires directly (`require M v` or a line of a require block, not
# `// indirect`).
pinned() { sed -n -E "s#^[[:space:]]*(require[[:space:]]+)?$1 (v[^ ]+)\$#\2#p" "$2" | head -n 1; }
