#!/bin/sh
# The floor for a hook: store stdin atomically, nothing else (bench/emit.mjs baseline).
cat > "$1.tmp" && mv "$1.tmp" "$1"
