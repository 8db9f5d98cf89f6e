// The `hudi-log view` page: block maps of log files, and one block's fields by grammar name with their bytes
// in a hex view. Blocks are parsed here by the JavaScript codec compiled from spec/hudi_log.ksy (inlined
// before this script, with the kaitai-struct runtime); the damage shown is what `hudi-log validate` found,
// embedded as JSON by the Python side. Every intact block the codec parses is checked against that list
// (offset, length, type, instant): a disagreement is shown, never hidden.
(function () {
  "use strict";
  const data = JSON.parse(document.getElementById("hudi-log-data").textContent);
  const Codec = window.HudiLog.HudiLog;
  const HEX_WINDOW = 4096; // bytes shown in the hex view at once
  const MAX_FIELDS = 3000; // field rows listed per block
  const EAGER_BYTES = 8 << 20; // blocks up to this size are parsed on load, bigger ones on click
  const PAGE_RECORDS = 100; // delete records parsed and listed at once (a page)

  const snake = (s) => s.replace(/[A-Z]/g, (c) => "_" + c.toLowerCase());
  const fmt = (n) => (n === null || n === undefined ? "-" : Number(n).toLocaleString("en-US"));
  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    for (const c of children) e.append(c === null || c === undefined ? "" : c);
    return e;
  }
  function decode(b64) {
    const bin = atob(b64);
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  }

  // ---- parsing one block with the compiled grammar ------------------------------------------------
  function parseBlock(file, entry) {
    if (entry.parsed) return entry.parsed;
    const io = new KaitaiStream(file.bytes.buffer);
    io.seek(entry.offset);
    const block = new Codec.Block(io, null, null);
    try {
      block._read();
    } catch (e) {
      entry.parsed = { block, error: (e && (e.name || e.message)) || String(e), end: io.pos };
      return entry.parsed;
    }
    // the grammar parses a block's content lazily (its `body` instance, so the Web IDE opens big
    // blocks at once); here it is parsed with the block, so an intact block is checked whole
    const content = block.formatVersion !== 0 ? block.content : null;
    if (content) {
      try {
        void content.body;
      } catch (e) {
        const body = content._m_body;
        const at = body && body._io ? body._io.byteOffset + body._io.pos : io.pos;
        entry.parsed = { block, error: "content: " + ((e && (e.name || e.message)) || String(e)), end: at };
        return entry.parsed;
      }
    }
    const problems = [];
    if (io.pos - entry.offset !== entry.length) problems.push(`length ${io.pos - entry.offset} != ${entry.length}`);
    if (block.formatVersion !== 0) {
      const type = Codec.BlockType[block.blockType];
      if (type !== entry.block_type) problems.push(`type ${type} != ${entry.block_type}`);
      const instant = block.instantTime;
      if ((instant || null) !== (entry.instant || null)) problems.push(`instant ${instant} != ${entry.instant}`);
    }
    entry.parsed = { block, problems, end: io.pos };
    return entry.parsed;
  }

  function grammarCell(file, entry) {
    if (entry.damaged) return ["damaged", entry.damage_reason];
    if (!entry.parsed && entry.length > EAGER_BYTES) return ["deferred", "parsed on click"];
    const p = parseBlock(file, entry);
    if (p.error) return ["error", "grammar: " + p.error];
    if (p.problems.length) return ["mismatch", "grammar disagrees: " + p.problems.join("; ")];
    return ["ok", "ok"];
  }

  // ---- fields as the grammar names them ----------------------------------------------------------
  function valueText(v, dbg) {
    if (v instanceof Uint8Array) {
      const head = Array.from(v.subarray(0, 16), (b) => b.toString(16).padStart(2, "0")).join(" ");
      let text = "";
      if (v.length && v.length <= 200 && v.every((b) => b >= 32 && b < 127)) text = ' "' + String.fromCharCode(...v) + '"';
      return `[${fmt(v.length)} bytes] ${head}${v.length > 16 ? " …" : ""}${text}`;
    }
    if (dbg && dbg.enumName) {
      const parts = dbg.enumName.split(".");
      let en = window.HudiLog;
      for (const p of parts) en = en && en[p];
      if (en && en[v] !== undefined) return `${en[v]} (${v})`;
    }
    if (typeof v === "string") return JSON.stringify(v.length > 200 ? v.slice(0, 200) + "…" : v);
    return String(v);
  }

  function isStruct(v) {
    return v && typeof v === "object" && v._debug && !(v instanceof Uint8Array);
  }

  function instanceNames(obj) {
    const proto = Object.getPrototypeOf(obj);
    return Object.getOwnPropertyNames(proto).filter((k) => {
      const d = Object.getOwnPropertyDescriptor(proto, k);
      return d && typeof d.get === "function" && !k.startsWith("_");
    });
  }

  // ---- a delete payload's records, a page at a time ---------------------------------------------
  // The grammar parses a delete content's `records` on demand, all at once; a block of 300,000 deletes
  // would take seconds and a large heap. Here they are parsed by the grammar's own types a page at a
  // time, in the layout `delete_record_list` gives them (Avro array blocks: a count, a byte size
  // when the count is negative, that many `delete_record`s; a count of 0 ends the list), from the
  // first record on: a page is reached by reading the ones before it, and each page's start is kept.
  function recordPager(content) {
    const payload = content.payload;
    const io = new KaitaiStream(new DataView(payload.buffer, payload.byteOffset, payload.length));
    // where each page starts: stream position, array block number, items left in that block, record number
    const starts = [{ pos: 0, block: -1, left: 0, record: 0 }];
    return { content, io, starts, page: 0, length: payload.length };
  }

  function readPage(pager, rows, depth) {
    const io = pager.io;
    const at = pager.starts[pager.page];
    let { block, left, record } = at;
    io.seek(at.pos);
    const avroLong = (name) => {
      const start = io.pos;
      const v = new Codec.AvroLong(io, null, null);
      v._read();
      rows.push({ name, depth, range: [io.byteOffset + start, io.byteOffset + io.pos], value: String(v.value) });
      return v.value;
    };
    let shown = 0;
    let end = false;
    try {
      while (shown < PAGE_RECORDS) {
        if (left === 0) {
          if (io.isEof()) throw new Error("the payload ends before the array's closing count");
          block += 1;
          const count = avroLong(`records.array_blocks[${block}].num_items`);
          if (count === 0) { end = true; break; }
          if (Math.abs(count) > 2147483647) throw new Error(`array block count ${count} is out of range`);
          if (count < 0) avroLong(`records.array_blocks[${block}].len_items`);
          left = Math.abs(count);
        }
        const start = io.pos;
        const item = new Codec.DeleteRecord(io, null, null);
        const name = `records.array_blocks[${block}].items[${record}]`;
        try {
          item._read();
        } catch (e) {
          rows.push({ name, depth, range: [io.byteOffset + start, io.byteOffset + io.pos], value: "(" + (e.name || "error") + ")" });
          throw e;
        }
        rows.push({ name, depth, range: [io.byteOffset + start, io.byteOffset + io.pos], value: valueText(item.recordKey.value, null) });
        collectFields(item, "", depth + 1, rows);
        left -= 1;
        record += 1;
        shown += 1;
      }
    } catch (e) {
      rows.push({ name: "records", depth, range: null, value: `the grammar stops here: ${(e && (e.name || e.message)) || e}` });
      end = true;
    }
    if (!end && pager.starts.length === pager.page + 1) pager.starts.push({ pos: io.pos, block, left, record });
    return { first: at.record, last: record, end };
  }

  function collectFields(obj, path, depth, rows, pagers) {
    for (const key of Object.keys(obj._debug)) {
      if (key.startsWith("_m_")) continue;
      if (rows.length >= MAX_FIELDS) return;
      const dbg = obj._debug[key];
      const v = obj[key];
      const name = path + snake(key);
      const range = dbg.end !== undefined ? [dbg.ioOffset + dbg.start, dbg.ioOffset + dbg.end] : null;
      if (Array.isArray(v)) {
        rows.push({ name, depth, range, value: `${fmt(v.length)} items` });
        v.forEach((item, i) => {
          if (rows.length >= MAX_FIELDS) return;
          const d = dbg.arr && dbg.arr[i];
          const r = d && d.end !== undefined ? [d.ioOffset + d.start, d.ioOffset + d.end] : null;
          if (isStruct(item)) {
            rows.push({ name: `${name}[${i}]`, depth: depth + 1, range: r, value: "" });
            collectFields(item, "", depth + 2, rows, pagers);
          } else {
            rows.push({ name: `${name}[${i}]`, depth: depth + 1, range: r, value: valueText(item, dbg) });
          }
        });
      } else if (isStruct(v)) {
        rows.push({ name, depth, range, value: "" });
        collectFields(v, "", depth + 1, rows, pagers);
      } else {
        rows.push({ name, depth, range, value: valueText(v, dbg) });
      }
    }
    for (const key of instanceNames(obj)) {
      if (rows.length >= MAX_FIELDS) return;
      if (pagers && obj instanceof Codec.DeleteContent && key === "records" && obj.contentVersion === 3) {
        // a version-3 payload's records: one page of them (see recordPager), not the whole list
        const pager = pagers.records || (pagers.records = recordPager(obj));
        const row = { name: path + "records", depth, range: null, value: "", instance: true, pager: true };
        rows.push(row);
        const shown = readPage(pager, rows, depth + 1);
        pager.shown = shown;
        row.value = shown.last > shown.first
          ? `records ${fmt(shown.first)}-${fmt(shown.last - 1)} (page ${pager.page + 1}, ${PAGE_RECORDS} a page${shown.end ? ", the last" : ""})`
          : "no records";
        continue;
      }
      let v;
      let failed = null;
      try {
        v = obj[key];
      } catch (e) {
        failed = "(" + (e.name || "error") + ")";
        v = obj["_m_" + key]; // a lazily parsed struct keeps what was read before the grammar stopped
      }
      const name = path + snake(key);
      if (isStruct(v)) {
        // a parsed instance (a block content's `body`): its fields, as for a seq field
        const dbg = obj._debug && obj._debug["_m_" + key];
        const range = dbg && dbg.end !== undefined ? [dbg.ioOffset + dbg.start, dbg.ioOffset + dbg.end] : null;
        rows.push({ name, depth, range, value: failed || "", instance: true });
        collectFields(v, "", depth + 1, rows, pagers);
        continue;
      }
      if (!failed && (v === undefined || Array.isArray(v))) continue;
      rows.push({ name, depth, range: null, value: failed || valueText(v, null), instance: true });
    }
  }

  // ---- the hex view -------------------------------------------------------------------------------
  function renderHex(pane, file, lo, hi, mark) {
    const start = Math.max(lo, (mark ? mark[0] : lo) - ((mark ? mark[0] : lo) - lo) % 16);
    const end = Math.min(hi, start + HEX_WINDOW);
    const lines = [];
    for (let row = start; row < end; row += 16) {
      const cells = [];
      const chars = [];
      for (let o = row; o < Math.min(row + 16, end); o++) {
        const b = file.bytes[o];
        const on = mark && o >= mark[0] && o < mark[1];
        cells.push(`<span class="b${on ? " hl" : ""}" data-o="${o}">${b.toString(16).padStart(2, "0")}</span>`);
        const ch = b >= 32 && b < 127 ? String.fromCharCode(b).replace(/[&<>]/g, (c) => `&#${c.charCodeAt(0)};`) : ".";
        chars.push(on ? `<span class="hl">${ch}</span>` : ch);
      }
      lines.push(`<span class="addr">${row.toString(16).padStart(8, "0")}</span>  ${cells.join(" ")}  ${chars.join("")}`);
    }
    const note = end < hi ? `\n… ${fmt(hi - end)} more bytes (click a field to show its bytes)` : "";
    pane.innerHTML = lines.join("\n") + note;
  }

  // the page `page` (0-based) of a pager's records, reading the pages before it that were not read yet
  function goToPage(pager, page) {
    while (pager.starts.length <= page) {
      pager.page = pager.starts.length - 1;
      const before = pager.starts.length;
      readPage(pager, [], 0);
      if (pager.starts.length === before) break; // the records ended before that page
    }
    pager.page = Math.min(page, pager.starts.length - 1);
  }

  function showEntry(section, file, entry, recordsPage) {
    for (const r of section.querySelectorAll(".sel")) r.classList.remove("sel");
    for (const r of section.querySelectorAll(`[data-index="${entry.index}"]`)) r.classList.add("sel");
    const detail = section.querySelector(".detail");
    detail.innerHTML = "";
    const title = `Block #${entry.index}: ${entry.block_type} at ${fmt(entry.offset)}, ${fmt(entry.length)} bytes`;
    detail.append(el("h3", {}, title));
    const hex = el("pre", { class: "hex" });
    const lo = entry.offset;
    const hi = entry.offset + entry.length;
    if (entry.damaged) {
      detail.append(el("p", { class: "damage-reason" }, `Damaged (${entry.damage_rule}, ${entry.damage_field}): ${entry.damage_reason}`));
    }
    const fields = el("table", { class: "fields" });
    const pagers = {};
    const pageButtons = el("p", { class: "pages" });
    // a damaged span that starts with a magic is parsed too: the fields show where the grammar stops
    const magic = [35, 72, 85, 68, 73, 35].every((b, i) => file.bytes[lo + i] === b);
    const parsed = !entry.damaged || entry.block_type !== "CORRUPT_BLOCK" || magic ? parseBlock(file, entry) : null;
    if (parsed && parsed.error) detail.append(el("p", { class: "damage-reason" }, `The grammar stops here: ${parsed.error} (at byte ${fmt(parsed.end)})`));
    const renderFields = () => {
      fields.innerHTML = "";
      if (recordsPage && parsed && !pagers.records) {
        // a page named in the URL (#...&records=N, 1-based): find the content's pager first
        collectFields(parsed.block, "", 0, [], pagers);
        if (pagers.records) goToPage(pagers.records, recordsPage - 1);
      }
      fields.append(el("tr", {}, el("th", {}, "field"), el("th", {}, "offset"), el("th", {}, "size"), el("th", {}, "value")));
      if (!parsed) return;
      const rows = [];
      collectFields(parsed.block, "", 0, rows, pagers);
      for (const r of rows) {
        const tr = el("tr", { class: "field" + (r.instance ? " instance" : ""), "data-field": r.name },
          el("td", { style: `padding-left:${0.4 + r.depth * 1.1}em` }, r.name),
          el("td", {}, r.range ? fmt(r.range[0]) : ""),
          el("td", {}, r.range ? fmt(r.range[1] - r.range[0]) : ""),
          el("td", {}, r.value));
        if (r.range) {
          tr.addEventListener("click", () => {
            for (const x of fields.querySelectorAll(".on")) x.classList.remove("on");
            tr.classList.add("on");
            renderHex(hex, file, lo, hi, r.range);
          });
        }
        fields.append(tr);
      }
      if (rows.length >= MAX_FIELDS) fields.append(el("tr", {}, el("td", { colspan: "4" }, `… first ${MAX_FIELDS} fields shown`)));
      pageButtons.innerHTML = "";
      const pager = pagers.records;
      if (pager) {
        const go = (page) => { goToPage(pager, page); renderFields(); };
        const prev = el("button", { type: "button", class: "prev-page" }, "◀ previous records");
        const next = el("button", { type: "button", class: "next-page" }, "next records ▶");
        prev.disabled = pager.page === 0;
        next.disabled = pager.shown.end;
        prev.addEventListener("click", () => go(pager.page - 1));
        next.addEventListener("click", () => go(pager.page + 1));
        pageButtons.append(prev, " ", next, ` delete records ${fmt(pager.shown.first)}-${fmt(pager.shown.last - 1)} of a ${fmt(pager.length)}-byte payload`);
      }
    };
    renderFields();
    if (pagers.records) detail.append(pageButtons);
    detail.append(el("div", { class: "split" }, fields.rows.length > 1 ? el("div", { class: "fieldpane" }, fields) : "", hex));
    renderHex(hex, file, lo, hi, entry.damaged ? [lo, hi] : null);
  }

  // ---- one file: header, bar, block list, detail --------------------------------------------------
  function renderFile(file, fi) {
    file.bytes = decode(file.b64);
    const section = el("section", { class: "file", id: `file-${fi}` });
    const damaged = file.entries.filter((e) => e.damaged).length;
    section.append(el("h2", {}, file.name));
    section.append(el("p", { class: "info" }, `${file.path} · ${fmt(file.size)} bytes · ${file.entries.length} blocks · ${damaged} damaged`));
    if (file.error) section.append(el("p", { class: "damage-reason file-error" }, file.error));
    const bar = el("div", { class: "bar" });
    const table = el("table", { class: "blocks" });
    table.append(el("tr", {}, ...["#", "offset", "length", "type", "instant", "records", "grammar / damage"].map((h) => el("th", {}, h))));
    for (const entry of file.entries) {
      const span = el("div", { class: "span" + (entry.damaged ? " damaged" : ""), "data-index": entry.index,
        title: `#${entry.index} ${entry.block_type} @${entry.offset} +${entry.length}` + (entry.damaged ? ` DAMAGED: ${entry.damage_reason}` : ""),
        style: `flex-grow:${entry.length};background:${entry.colour}` });
      bar.append(span);
      const [state, text] = grammarCell(file, entry);
      const row = el("tr", { class: "block" + (entry.damaged ? " damaged" : ""), "data-index": entry.index, "data-state": state },
        el("td", {}, String(entry.index)), el("td", {}, fmt(entry.offset)), el("td", {}, fmt(entry.length)),
        el("td", {}, el("span", { class: "swatch", style: `background:${entry.colour}` }), entry.block_type),
        el("td", {}, entry.instant || "-"), el("td", {}, fmt(entry.records)), el("td", { class: "state" }, text));
      table.append(row);
      const pick = () => showEntry(section, file, entry);
      span.addEventListener("click", pick);
      row.addEventListener("click", pick);
    }
    section.append(bar, table, el("div", { class: "detail" }));
    return section;
  }

  const root = document.getElementById("files");
  data.files.forEach((file, fi) => root.append(renderFile(file, fi)));
  // select what the URL names (#file=F&block=B), else each file's first damaged block, else its first
  const want = new URLSearchParams(location.hash.slice(1));
  data.files.forEach((file, fi) => {
    const section = document.getElementById(`file-${fi}`);
    let entry = file.entries.find((e) => e.damaged) || file.entries[0];
    const named = Number(want.get("file") || 0) === fi;
    if (want.has("block") && named) entry = file.entries[Number(want.get("block"))] || entry;
    if (entry) showEntry(section, file, entry, named && want.has("records") ? Number(want.get("records")) : 0);
    if (want.has("field") && Number(want.get("file") || 0) === fi) {
      const row = section.querySelector(`tr.field[data-field="${want.get("field")}"]`);
      if (row) row.click();
    }
  });
  // how long the page took to open, from navigation start (the bench reads it: tools/bench/view.py)
  document.body.setAttribute("data-render-ms", String(Math.round(performance.now())));
  document.body.setAttribute("data-rendered", "yes");
})();
