"""Writes an HTML page that opens a snapshot pickle in PyTorch's MemoryViz.js (this directory),
offline: an import map sends MemoryViz.js's CDN imports of d3 to vendor/d3-memoryviz.js, and the
pickle is embedded as base64 and handed to MemoryViz's add_local_files, as PyTorch's
torch.cuda._memory_viz writes its pages. A small harness (not part of MemoryViz) then shows each
view for each device, hovers every drawn allocation (MemoryViz's own mouseover handlers) and writes
what it saw into <pre id="cmt-result"> as JSON: for the tests (tests/cases/export_torch_viewer.sh)
and for the README's screenshot (--shot: stay on the Active Memory Timeline, the tooltip of the
allocation whose stack has FUNCTION shown).

usage: page.py SNAPSHOT.pickle OUT.html [--shot FUNCTION]"""
import base64
import json
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
snap, out = sys.argv[1], sys.argv[2]
shot = sys.argv[4] if len(sys.argv) > 4 and sys.argv[3] == "--shot" else ""
data = open(snap, "rb").read()
data += b"\0" * (-len(data) % 3)  # MemoryViz's decoder reads whole 3-byte groups (no '=' padding)
d3 = "file://" + os.path.join(here, "vendor", "d3-memoryviz.js")
imports = {u: d3 for u in ("https://cdn.skypack.dev/d3@5", "https://cdn.skypack.dev/d3-axis@1",
                           "https://cdn.skypack.dev/d3-scale@1", "https://cdn.skypack.dev/d3-zoom@1",
                           "https://cdn.skypack.dev/d3-brush@1")}
page = """<!DOCTYPE html>
<html>
<head>
<meta charset="utf-8">
<script type="importmap">%s</script>
<script>
window.cmtErrors = [];
window.addEventListener('error', e => window.cmtErrors.push(String(e.message)));
window.addEventListener('unhandledrejection', e => window.cmtErrors.push(String(e.reason)));
</script>
</head>
<body>
<script type="module">
import {add_local_files} from %s;
const local_files = %s;
const shot = %s;
add_local_files(local_files, 'Active Memory Timeline');

const selects = document.querySelectorAll('body > select');
const [viewSel, gpuSel] = [selects[1], selects[2]];
function shown() {
  return [...document.querySelectorAll('body > div')].find(d => (d.getAttribute('style') || '').includes('display: float'));
}
function hover(el) {
  el.dispatchEvent(new MouseEvent('mouseover', {bubbles: true}));
}
// everything below runs at once, before the page's load event (so --dump-dom always sees it):
// the Allocator State History draws on a mousedown on its last event, as a click there does
function look() {
  const result = {errors: [], devices: [...gpuSel.options].map(o => o.text), views: []};
  if (shot) {
    const polys = [...shown().querySelector('svg').querySelectorAll('polygon')];
    const pre = shown().querySelector('div > pre');
    for (const p of polys) {
      hover(p);
      if (pre.textContent.includes(shot)) break;
    }
    document.body.dataset.done = '1';
    return;
  }
  for (const dev of result.devices) {
    for (const view of [...viewSel.options].map(o => o.text)) {
      viewSel.value = view;
      gpuSel.value = dev;
      viewSel.dispatchEvent(new Event('change'));
      const div = shown();
      const r = {device: dev, view, polygons: 0, rects: 0, tooltips: [], events: 0};
      if (view === 'Allocator State History') {
        const events = div.querySelector('div[style*="font-family: monospace"]');
        if (events && events.lastElementChild) {
          events.lastElementChild.dispatchEvent(new MouseEvent('mousedown', {bubbles: true}));
        }
        r.rects = div.querySelectorAll('svg rect').length;
        r.events = div.querySelectorAll('pre').length - 1;
        const pre = [...div.querySelectorAll('pre')].at(-1);
        for (const rect of div.querySelectorAll('svg rect')) {
          hover(rect);
          r.tooltips.push(pre.textContent);
        }
      } else {
        const svg = div.querySelector('svg');
        const polys = [...svg.querySelectorAll('polygon')];
        r.polygons = polys.length;
        const pre = div.querySelector('div > pre');
        for (const p of polys) {
          hover(p);
          r.tooltips.push(pre.textContent);
        }
      }
      result.views.push(r);
    }
  }
  result.errors = window.cmtErrors;
  const out = document.createElement('pre');
  out.id = 'cmt-result';
  out.textContent = JSON.stringify(result);
  document.body.appendChild(out);
  document.body.dataset.done = '1';
}
try {
  look();
} catch (e) {
  window.cmtErrors.push('harness: ' + e);
  const out = document.createElement('pre');
  out.id = 'cmt-result';
  out.textContent = JSON.stringify({errors: window.cmtErrors});
  document.body.appendChild(out);
}
</script>
</body>
</html>
""" % (json.dumps({"imports": imports}), json.dumps("file://" + os.path.join(here, "MemoryViz.js")),
       json.dumps([{"name": os.path.basename(snap), "base64": base64.b64encode(data).decode()}]),
       json.dumps(shot))
with open(out, "w") as f:
    f.write(page)
