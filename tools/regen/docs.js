// The grammar's documentation, written from spec/hudi_log.ksy for a person to read offline:
//   generated/hudi_log.html  one self-contained page (style inline, nothing fetched): every type's fields
//                            with offset, size, type and doc (Markdown rendered), instances, enums, and
//   generated/hudi_log.svg   a diagram of one block's layout, narrow enough for a page (also inlined).
// regen.js calls renderDocs(spec); the regeneration test holds both files fresh.
//
// Why not the compiler's html/graphviz targets: they print compiler internals (SwitchType(...),
// ValueInstanceSpec(...)) for instances, `???` for offsets that depend on earlier fields, leave Markdown
// raw, load a stylesheet from the network, and draw every type in one 12,000-pt-wide graph.
"use strict";

const PRIMITIVE = /^([us])([1248])(le|be)?$|^f([48])(le|be)?$/;

function esc(s) {
  return String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

// ---- Markdown: the subset the .ksy docs use (paragraphs, lists, `code`, **bold**, *em*, links) ---------
function inline(text) {
  const parts = String(text).split(/(`[^`]*`)/);
  return parts
    .map((p) => {
      if (p.startsWith("`") && p.endsWith("`") && p.length > 1) return `<code>${esc(p.slice(1, -1))}</code>`;
      return esc(p)
        .replace(/\[([^\]]+)\]\((https?:[^)\s]+)\)/g, '<a href="$2">$1</a>')
        .replace(/\*\*([^*]+)\*\*/g, "<strong>$1</strong>")
        .replace(/(^|[\s(])\*([^*\s][^*]*)\*/g, "$1<em>$2</em>");
    })
    .join("");
}

function markdown(text) {
  if (text === undefined || text === null) return "";
  const out = [];
  for (const para of String(text).trim().split(/\n\s*\n/)) {
    const lines = para.split("\n");
    if (lines.every((l) => /^\s*([-*]|\d+\.)\s/.test(l) || /^\s{2,}\S/.test(l))) {
      const items = [];
      for (const l of lines) {
        if (/^\s*([-*]|\d+\.)\s/.test(l)) items.push(l.replace(/^\s*([-*]|\d+\.)\s+/, ""));
        else items[items.length - 1] += " " + l.trim();
      }
      out.push("<ul>" + items.map((i) => `<li>${inline(i)}</li>`).join("") + "</ul>");
    } else {
      out.push(`<p>${inline(lines.map((l) => l.trim()).join(" "))}</p>`);
    }
  }
  return out.join("\n");
}

// ---- sizes and offsets ---------------------------------------------------------------------------------
// The fixed size in bytes of a field or type, or null when it depends on the data.
function fieldSize(spec, attr, seen = new Set()) {
  if (attr.repeat) return null;
  if (attr.contents !== undefined) return Array.isArray(attr.contents) ? attr.contents.length : String(attr.contents).length;
  if (attr.size !== undefined) return typeof attr.size === "number" ? attr.size : null;
  if (typeof attr.type !== "string") return null;
  const m = PRIMITIVE.exec(attr.type);
  if (m) return Number(m[2] || m[4]);
  const name = attr.type.replace(/\(.*\)$/, "");
  const t = spec.types && spec.types[name];
  if (!t || seen.has(name)) return null;
  seen.add(name);
  let total = 0;
  for (const a of t.seq || []) {
    const n = a.if === undefined ? fieldSize(spec, a, seen) : null;
    if (n === null) return null;
    total += n;
  }
  return total;
}

function sizeText(spec, attr) {
  const n = fieldSize(spec, attr);
  if (n !== null) return String(n);
  let base;
  if (attr.size !== undefined) base = `<code>${esc(attr.size)}</code>`;
  else if (attr["size-eos"]) base = "to the end";
  else base = "varies";
  if (attr.repeat === "expr") return `${base} × <code>${esc(attr["repeat-expr"])}</code>`;
  if (attr.repeat === "until") return `${base}, repeated until <code>${esc(attr["repeat-until"])}</code>`;
  if (attr.repeat === "eos") return `${base}, repeated to the end`;
  return base;
}

// Offsets within the type: a number while every earlier field has a fixed size and is always present;
// after that, "after <field>" (the position depends on the data: never "???").
function offsets(spec, seq) {
  const out = [];
  let at = 0;
  let prev = null;
  for (const attr of seq) {
    out.push(at === null ? `after <code>${esc(prev)}</code>` : String(at));
    const n = attr.if === undefined ? fieldSize(spec, attr) : null;
    at = at === null || n === null ? null : at + n;
    prev = attr.id;
  }
  return out;
}

// ---- types ---------------------------------------------------------------------------------------------
function typeCell(attr) {
  const t = attr.type;
  let text;
  if (attr.contents !== undefined) text = `magic <code>${esc(JSON.stringify(attr.contents))}</code>`;
  else if (t === undefined) text = "bytes";
  else if (typeof t === "string") {
    const name = t.replace(/\(.*\)$/, "");
    text = PRIMITIVE.test(t) || t === "str" || t === "bool" ? `<code>${esc(t)}</code>` : `<a href="#type-${esc(name)}">${esc(t)}</a>`;
  } else {
    const cases = Object.entries(t.cases || {})
      .map(([k, v]) => `<li><code>${esc(k)}</code>: <a href="#type-${esc(v)}">${esc(v)}</a></li>`)
      .join("");
    text = `by <code>${esc(t["switch-on"])}</code>:<ul class="cases">${cases}</ul>otherwise bytes`;
  }
  if (attr.enum) text += ` → enum <a href="#enum-${esc(attr.enum)}">${esc(attr.enum)}</a>`;
  return text;
}

function rules(attr) {
  const out = [];
  if (attr.if !== undefined) out.push(`only if <code>${esc(attr.if)}</code>`);
  const v = attr.valid;
  if (v !== undefined) {
    if (typeof v !== "object") out.push(`must be <code>${esc(v)}</code>`);
    else {
      if (v.min !== undefined) out.push(`≥ ${esc(v.min)}`);
      if (v.max !== undefined) out.push(`≤ ${esc(v.max)}`);
      if (v["any-of"]) out.push(`one of ${v["any-of"].map((x) => `<code>${esc(x)}</code>`).join(", ")}`);
      if (v["in-enum"]) out.push("a value of the enum");
      if (v.expr !== undefined) out.push(`check <code>${esc(v.expr)}</code>`);
    }
  }
  return out.join("; ");
}

function docRefs(refs) {
  if (!refs) return "";
  const list = Array.isArray(refs) ? refs : [refs];
  return `<p class="ref">See: ${list.map((r) => (/^https?:/.test(r) ? `<a href="${esc(r)}">${esc(r.replace(/^.*\//, ""))}</a>` : inline(r))).join(", ")}</p>`;
}

function typeSection(spec, name, t, title) {
  const seq = t.seq || [];
  const offs = offsets(spec, seq);
  const rows = seq
    .map((a, i) => `<tr><td class="num">${offs[i]}</td><td class="num">${sizeText(spec, a)}</td><td><code class="id">${esc(a.id)}</code></td>` +
      `<td>${typeCell(a)}</td><td>${rules(a)}</td><td class="doc">${markdown(a.doc)}${docRefs(a["doc-ref"])}</td></tr>`)
    .join("\n");
  const params = (t.params || []).map((p) => `<code>${esc(p.id)}</code> (${esc(p.type)})`).join(", ");
  let html = `<section class="type" id="type-${esc(name)}"><h3>${esc(title || name)}</h3>\n${markdown(t.doc)}${docRefs(t["doc-ref"])}`;
  if (params) html += `<p>Parameters: ${params}</p>`;
  if (seq.length) {
    html += `<table><thead><tr><th>offset</th><th>size</th><th>field</th><th>type</th><th>rules</th><th>meaning</th></tr></thead><tbody>\n${rows}\n</tbody></table>`;
  }
  const inst = Object.entries(t.instances || {});
  if (inst.length) {
    const irows = inst
      .map(([id, a]) => {
        let how;
        if (a.value !== undefined) how = `<code>${esc(String(a.value).trim())}</code>`;
        else how = `read at <code>${esc(a.pos)}</code>${a.io ? ` of <code>${esc(a.io)}</code>` : ""}, ${sizeText(spec, a)} bytes, ${typeCell(a)}`;
        if (a.enum && a.value !== undefined) how += ` → enum <a href="#enum-${esc(a.enum)}">${esc(a.enum)}</a>`;
        const cond = a.if !== undefined ? `only if <code>${esc(a.if)}</code>` : "";
        return `<tr><td><code class="id">${esc(id)}</code></td><td>${how}</td><td>${cond}</td><td class="doc">${markdown(a.doc)}</td></tr>`;
      })
      .join("\n");
    html += `<h4>Computed values (instances)</h4><table><thead><tr><th>name</th><th>value</th><th>rules</th><th>meaning</th></tr></thead><tbody>\n${irows}\n</tbody></table>`;
  }
  return html + "</section>";
}

function enumSection(name, values) {
  const rows = Object.entries(values)
    .map(([k, v]) => {
      const id = typeof v === "object" ? v.id : v;
      const doc = typeof v === "object" ? markdown(v.doc) : "";
      return `<tr><td class="num">${esc(k)}</td><td><code class="id">${esc(id)}</code></td><td class="doc">${doc}</td></tr>`;
    })
    .join("\n");
  return `<section class="enum" id="enum-${esc(name)}"><h3>enum ${esc(name)}</h3><table><thead><tr><th>value</th><th>name</th><th>meaning</th></tr></thead><tbody>\n${rows}\n</tbody></table></section>`;
}

// ---- the diagram of one block --------------------------------------------------------------------------
// The block type's fields in file order as boxes, each as wide as its label needs (a content's real size
// is unbounded: sizes are written in the box). Format version 1 over two rows, then version 0's layout.
function blockDiagram(spec) {
  const seq = spec.types.block.seq;
  const W = 760;
  const H = 54;
  const box = (a) => {
    const n = fieldSize(spec, a);
    return { id: a.id, size: n !== null ? `${n} bytes` : a.size !== undefined ? `${a.size} bytes` : "varies", wide: n === null };
  };
  const v1 = seq.filter((a) => a.if !== "format_version == 0").map(box);
  const v0 = seq.filter((a) => a.if === undefined || a.if === "format_version == 0").map(box);
  const rows = [
    ["Format version 1 (every Hudi since 0.4.1)", v1.slice(0, 5)],
    ["", v1.slice(5)],
    ["Format version 0 (legacy)", v0],
  ];
  const out = [];
  let y = 28;
  for (const [title, row] of rows) {
    if (title) {
      out.push(`<text x="10" y="${y + 14}" font-weight="bold">${esc(title)}</text>`);
      y += 22;
    }
    const weights = row.map((b) => Math.max(b.id.length, b.size.length) + 3 + (b.wide ? 6 : 0));
    const total = weights.reduce((t, w) => t + w, 0);
    let x = 10;
    row.forEach((b, i) => {
      const w = ((W - 20) * weights[i]) / total;
      const fill = b.wide ? "#dbe8f5" : "#f5f0db";
      out.push(`<rect x="${x.toFixed(1)}" y="${y}" width="${(w - 4).toFixed(1)}" height="${H}" rx="3" fill="${fill}" stroke="#555"/>`);
      out.push(`<text x="${(x + w / 2 - 2).toFixed(1)}" y="${y + 22}" text-anchor="middle" font-weight="bold">${esc(b.id)}</text>`);
      out.push(`<text x="${(x + w / 2 - 2).toFixed(1)}" y="${y + 41}" text-anchor="middle" fill="#444">${esc(b.size)}</text>`);
      x += w;
    });
    y += H + 12;
  }
  const height = y + 44;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${height}" viewBox="0 0 ${W} ${height}" font-family="DejaVu Sans, sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="10" y="18" font-size="14" font-weight="bold">One log block (type block of spec/hudi_log.ksy), fields in file order</text>`,
    ...out,
    `<text x="10" y="${height - 26}" fill="#444">Yellow: fixed size. Blue: sized by the data (header and footer: a count, then key/length/value entries).</text>`,
    `<text x="10" y="${height - 8}" fill="#444">On disk: len_block + 14 bytes; reverse_pointer = len_block + 6, the distance back to the magic.</text>`,
    "</svg>",
    "",
  ].join("\n");
}

const STYLE = `
body { font: 15px/1.5 system-ui, "DejaVu Sans", sans-serif; color: #222; max-width: 1100px; margin: 1.5em auto; padding: 0 1em; }
h1 { font-size: 1.6em; margin-bottom: .2em; } h2 { margin-top: 1.6em; border-bottom: 1px solid #ccc; }
h3 { margin: 1.4em 0 .3em; } h4 { margin: .8em 0 .3em; font-size: 1em; }
table { border-collapse: collapse; width: 100%; margin: .4em 0 1em; font-size: 13.5px; }
th, td { border: 1px solid #ddd; padding: 3px 6px; text-align: left; vertical-align: top; }
th { background: #f4f4f4; } td.num { white-space: nowrap; } td.doc p { margin: 0 0 .3em; }
code { font: 12.5px "DejaVu Sans Mono", monospace; background: #f6f6f6; padding: 0 2px; }
code.id { font-weight: bold; background: none; }
ul.cases { margin: .2em 0; padding-left: 1.2em; } p.ref { font-size: 12px; color: #555; margin: .2em 0; }
nav ul { columns: 3; } .diagram svg { max-width: 100%; height: auto; }
`;

// `source` names the .ksy in the page; a spec without the log's `block` type (spec/hfile.ksy) gets no diagram.
function renderDocs(spec, source = "spec/hudi_log.ksy") {
  const meta = spec.meta || {};
  const typeNames = Object.keys(spec.types || {});
  const enumNames = Object.keys(spec.enums || {});
  const svg = source === "spec/hudi_log.ksy" ? blockDiagram(spec) : null;
  const body = [
    `<h1>${inline(meta.title || meta.id)}</h1>`,
    `<p class="ref">Format id <code>${esc(meta.id)}</code>, file extension <code>${esc(meta["file-extension"] || "")}</code>, ` +
      `default byte order ${meta.endian === "be" ? "big-endian" : "little-endian"}, text ${esc(meta.encoding || "")}, ` +
      `license ${esc(meta.license || "")}. Written from ${esc(source)} by tools/regen (do not edit).</p>`,
    markdown(spec.doc),
    docRefs(spec["doc-ref"]),
    svg ? `<div class="diagram">${svg.replace(/^<svg /, '<svg role="img" aria-label="one log block" ')}</div>` : "",
    `<nav><h2>Contents</h2><ul>${["file", ...typeNames].map((n) => `<li><a href="#type-${esc(n)}">${esc(n)}</a></li>`).join("")}` +
      `${enumNames.map((n) => `<li><a href="#enum-${esc(n)}">enum ${esc(n)}</a></li>`).join("")}</ul></nav>`,
    "<h2>Types</h2>",
    typeSection(spec, "file", { seq: spec.seq, doc: "The whole file.", instances: spec.instances }, "file (the top level)"),
    ...typeNames.map((n) => typeSection(spec, n, spec.types[n])),
    "<h2>Enums</h2>",
    ...enumNames.map((n) => enumSection(n, spec.enums[n])),
  ];
  const html = [
    "<!DOCTYPE html>",
    `<html lang="en"><head><meta charset="utf-8"><title>${esc(String(meta.title || meta.id).replace(/`/g, ""))}</title>`,
    `<style>${STYLE}</style></head><body>`,
    ...body,
    "</body></html>",
    "",
  ].join("\n");
  return { html, svg };
}

module.exports = { renderDocs, markdown };
