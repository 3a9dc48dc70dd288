// One in-page walk over the DOM; returns everything webseg needs as ONE JSON string
// (a promise of it: the walk first waits for web fonts, see below).
// Why one string: Playwright serialises returned objects value by value, which is ~5x slower
// than returning a single string that Python parses with json.loads.
// The walk is iterative (an explicit stack), so deeply nested documents cannot overflow the
// JS call stack; it stops with an error record once opts.maxNodes nodes have been seen.
async (opts) => {
  const KEEP = ["id", "class", "role", "href", "src", "alt", "title", "name", "type",
                "colspan", "rowspan", "lang", "datetime", "content", "property", "itemprop", "rel",
                "start", "reversed", "checked"];
  // Whitespace is kept verbatim inside these (and where the computed white-space preserves it);
  // elsewhere a whitespace-only text node is recorded as one space (webseg.page.PRESERVE_TAGS).
  const PRESERVE = new Set(["pre", "textarea", "listing", "xmp", "plaintext", "code"]);
  const SKIP_TEXT = new Set(["script", "style", "template"]);
  // Form controls whose user-agent style is white-space: pre (a select's options are a menu,
  // not a block of text laid out with spaces)
  const CONTROLS = new Set(["select", "option", "optgroup", "input", "button", "datalist"]);
  const maxNodes = opts.maxNodes;
  // Count what the walk will record (elements + non-blank text outside script/style/template)
  // before any style or layout work: counting elements alone let a page of 150k paragraphs
  // (150k elements, 300k nodes) through, and the walk spent most of the time limit on
  // layout before giving up at maxNodes.
  let nNodes = document.getElementsByTagName("*").length;
  if (nNodes <= maxNodes) {
    const tw = document.createTreeWalker(document, NodeFilter.SHOW_TEXT);
    for (let t = tw.nextNode(); t !== null && nNodes <= maxNodes; t = tw.nextNode()) {
      const pn = t.parentNode;
      if (pn && pn.nodeType === 1 && !SKIP_TEXT.has(pn.localName) && /\S/.test(t.data)) nNodes++;
    }
  }
  if (nNodes > maxNodes) {
    return JSON.stringify({ok: false, error: "too_many_nodes", count: nNodes, limit: maxNodes});
  }
  // Web fonts are requested by layout, and one still loading is measured with its fallback's
  // metrics: whether it had arrived depended on timing (bbcgf.org: boxes 2-20 px apart from one
  // run to the next; a frameless tab lays out later still). Lay out, then wait until no font
  // is loading. The timer bounds a slow font when scripts run; without them timers never fire,
  // but an offline page's fonts are local or refused, and the page's time limit applies.
  if (document.documentElement) document.documentElement.getBoundingClientRect();
  if (document.fonts && document.fonts.status === "loading") {
    await Promise.race([document.fonts.ready, new Promise((r) => setTimeout(r, 3000))]);
  }
  const sx = window.scrollX, sy = window.scrollY;
  const parent = [], kind = [], tag = [], text = [], attrs = [], box = [], bg = [], color = [];
  const fsize = [], fweight = [], italic = [], ffam = [], disp = [], pos = [], vis = [];
  const tables = {ff: new Map(), disp: new Map(), pos: new Map()};
  const code = (t, v) => { let c = tables[t].get(v); if (c === undefined) { c = tables[t].size; tables[t].set(v, c); } return c; };
  const num = /-?[\d.]+(?:e-?\d+)?/g;
  const parseColor = (s) => {
    const m = s.match(num);
    if (!m || m.length < 3) return [0, 0, 0, 0];
    let a = m.length >= 4 ? parseFloat(m[3]) : 1;
    if (s.startsWith("color(")) {  // color(srgb r g b / a) with channels in 0..1
      return [Math.round(+m[0] * 255), Math.round(+m[1] * 255), Math.round(+m[2] * 255), a];
    }
    return [Math.round(+m[0]), Math.round(+m[1]), Math.round(+m[2]), a];
  };
  const range = document.createRange();
  const root = document.documentElement;
  if (!root) return JSON.stringify({ok: false, error: "no_document_element"});
  // Whitespace-only text nodes are not nodes of the page (the node ids, text leaves and model
  // features stay as they were); they are recorded on the next node in document order
  // (ws_before), so writers know where the source separates two leaves by whitespace.
  const preserve = [];
  const wsBefore = {};
  let pending = "";
  // stack entries: [node, parentIndex, parentBgR, G, B, parentOpacity, parentRendered, styleIdx,
  //                 whitespace-only text?]
  const stack = [[root, -1, 255, 255, 255, 1, true, -1, false]];
  let count = 0;
  while (stack.length) {
    const [node, p, pr, pg, pb, pop, prend, sidx, blank] = stack.pop();
    if (blank) {
      if (preserve[p]) pending += node.data;
      else if (!pending) pending = " ";
      continue;
    }
    if (++count > maxNodes) {
      return JSON.stringify({ok: false, error: "too_many_nodes", count: count, limit: maxNodes});
    }
    const idx = parent.length;
    parent.push(p);
    if (pending) { wsBefore[idx] = pending; pending = ""; }
    if (node.nodeType === 3) {
      preserve.push(p >= 0 && preserve[p]);
      kind.push(3); tag.push("#text"); text.push(node.data); attrs.push(null);
      let x = 0, y = 0, w = 0, h = 0;
      if (prend) {
        range.selectNodeContents(node);
        const r = range.getBoundingClientRect();
        x = r.left + sx; y = r.top + sy; w = r.width; h = r.height;
      }
      box.push(x, y, w, h);
      bg.push(pr, pg, pb);
      // text nodes take their parent element's style
      color.push(color[sidx * 4], color[sidx * 4 + 1], color[sidx * 4 + 2], color[sidx * 4 + 3]);
      fsize.push(fsize[sidx]); fweight.push(fweight[sidx]); italic.push(italic[sidx]);
      ffam.push(ffam[sidx]); disp.push(code("disp", "#text")); pos.push(pos[sidx]);
      vis.push(prend && pop > 0 && w > 0 && h > 0 ? 1 : 0);
      continue;
    }
    const el = node;
    const name = (el.localName || el.nodeName || "").toLowerCase();
    kind.push(1); tag.push(name); text.push("");
    let pre = PRESERVE.has(name) || (p >= 0 && preserve[p]);
    let a = null;
    for (const k of KEEP) {
      const v = el.getAttribute(k);
      if (v !== null) { if (a === null) a = {}; a[k] = v.length > 2000 ? v.slice(0, 2000) : v; }
    }
    // a list item's number (webseg.page.ITEM_VALUE_TAGS): only there, not a form's values
    if (name === "li" && el.hasAttribute("value")) {
      if (a === null) a = {};
      a["value"] = el.getAttribute("value").slice(0, 20);
    }
    attrs.push(a);
    let rendered = false, shown = false, r = pr, g = pg, b = pb, op = pop, visible = 0;
    if (prend) {
      const cs = getComputedStyle(el);
      const d = cs.display;
      rendered = d !== "none";
      shown = rendered && cs.visibility === "visible";
      const wsp = cs.whiteSpace || "";
      if (wsp.startsWith("pre") || wsp === "break-spaces") {
        // the outermost block whose style keeps whitespace (pre-line: its line breaks) is
        // marked for the writers (webseg.page.PRE_STYLE_ATTR)
        if (!pre && !CONTROLS.has(name)) {
          if (a === null) a = {};
          a["white-space"] = wsp;
          attrs[attrs.length - 1] = a;
        }
        pre = true;
      }
      const c = parseColor(cs.color);
      color.push(c[0], c[1], c[2], Math.round(c[3] * 255));
      const bgc = parseColor(cs.backgroundColor);
      const al = bgc[3];
      r = Math.round(al * bgc[0] + (1 - al) * pr);
      g = Math.round(al * bgc[1] + (1 - al) * pg);
      b = Math.round(al * bgc[2] + (1 - al) * pb);
      op = pop * parseFloat(cs.opacity || "1");
      fsize.push(parseFloat(cs.fontSize) || 0);
      fweight.push(parseInt(cs.fontWeight, 10) || 400);
      italic.push(cs.fontStyle === "normal" ? 0 : 1);
      const fam = (cs.fontFamily.split(",")[0] || "").replace(/["']/g, "").trim().toLowerCase();
      ffam.push(code("ff", fam)); disp.push(code("disp", d)); pos.push(code("pos", cs.position));
      if (rendered) {
        const rc = el.getBoundingClientRect();
        box.push(rc.left + sx, rc.top + sy, rc.width, rc.height);
        visible = shown && op > 0 && (rc.width > 0 || rc.height > 0) ? 1 : 0;
      } else {
        box.push(0, 0, 0, 0);
      }
    } else {
      color.push(0, 0, 0, 255); fsize.push(0); fweight.push(400); italic.push(0);
      ffam.push(code("ff", "")); disp.push(code("disp", "none")); pos.push(code("pos", "static"));
      box.push(0, 0, 0, 0);
    }
    bg.push(r, g, b);
    vis.push(visible);
    preserve.push(pre);
    // Children of a display:none element get no style or box (none is computed for them).
    // Text takes "rendered" only when its parent is shown: visibility is inherited by text,
    // while an element child may override visibility:hidden, so it only needs "rendered".
    const kids = el.childNodes;
    const skipText = SKIP_TEXT.has(name);
    const childRendered = prend && rendered;
    for (let i = kids.length - 1; i >= 0; i--) {
      const k = kids[i];
      const t = k.nodeType;
      if (t === 1) {
        stack.push([k, idx, r, g, b, op, childRendered, idx]);
      } else if (t === 3 && !skipText) {
        stack.push([k, idx, r, g, b, op, childRendered && shown, idx, !/\S/.test(k.data)]);
      }
    }
  }
  const tab = (t) => Array.from(tables[t].keys());
  const de = document.documentElement, body = document.body;
  return JSON.stringify({
    ok: true, url: document.URL, title: document.title, encoding: document.characterSet,
    width: Math.max(de.scrollWidth, body ? body.scrollWidth : 0),
    height: Math.max(de.scrollHeight, body ? body.scrollHeight : 0),
    parent, kind, tag, text, attrs, box, bg, color, font_size: fsize, font_weight: fweight,
    italic, font_family: ffam, font_families: tab("ff"), display: disp, displays: tab("disp"),
    position: pos, positions: tab("pos"), visible: vis, ws_before: wsBefore,
  });
}
