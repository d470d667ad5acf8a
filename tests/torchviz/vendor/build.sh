#!/usr/bin/env bash
# Rebuilds d3-memoryviz.js (not run by the tests: it needs the npm registry). MemoryViz.js imports
# d3@5, d3-axis@1, d3-scale@1, d3-zoom@1 and d3-brush@1 from a CDN; the test page maps those URLs
# to this one ES module (an import map), so the page works offline and MemoryViz.js stays as
# PyTorch ships it. esbuild keeps d3.event a live binding, as MemoryViz.js needs.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
npm init -y >/dev/null
npm install --no-audit --no-fund d3-selection@1 d3-format@1 d3-axis@1 d3-scale@1 d3-zoom@1 d3-brush@1 esbuild >/dev/null
node node_modules/esbuild/install.js >/dev/null 2>&1 || true
cat >entry.js <<'JS'
// The parts of d3 v5 that MemoryViz.js imports (d3.select, d3.event, d3.format, axisLeft,
// scaleLinear, zoom, zoomIdentity, brushX), from the d3 modules of those versions.
export {select, event} from "d3-selection";
export {format} from "d3-format";
export {axisLeft} from "d3-axis";
export {scaleLinear} from "d3-scale";
export {zoom, zoomIdentity} from "d3-zoom";
export {brushX} from "d3-brush";
JS
./node_modules/.bin/esbuild entry.js --bundle --format=esm --legal-comments=inline --outfile=bundle.js
{
    echo "/* d3-memoryviz.js: the parts of d3 v5 that PyTorch's MemoryViz.js imports, bundled by"
    echo " * tests/torchviz/vendor/build.sh from these npm packages (BSD-3-Clause, Mike Bostock; texts in"
    echo " * LICENSE.d3 beside this file):"
    for p in node_modules/d3-*; do echo " *   $(basename "$p")@$(node -p "require('./$p/package.json').version")"; done
    echo " */"
    cat bundle.js
} >"$here/d3-memoryviz.js"
for p in node_modules/d3-*; do
    echo "== $(basename "$p")@$(node -p "require('./$p/package.json').version") =="
    cat "$p/LICENSE"
    echo
done >"$here/LICENSE.d3"
