#!/usr/bin/env node
// Opens log files the way the Kaitai Web IDE does: the debug-mode JavaScript codec of
// generated/HudiLog.js parses the file's seq fields, then each block's one-line representation
// (`-webide-representation`: type, instant, record count) is evaluated; block contents (the lazy
// `body` instances) are parsed only for the blocks named with --expand, and a delete content's
// `records` (its payload's layout, one click further in the Web IDE) only for those named with
// --records. Prints JSON per file:
// {"path", "blocks", "records", "expanded", "deletes", "ms", "heap_mb"} or {"path", "error"}.
//   node [--max-old-space-size=MB] [--expose-gc] tools/regen/open_like_webide.js [--expand I,J] [--records I,J] FILE...
"use strict";
const fs = require("fs");
const path = require("path");
const ROOT = path.resolve(__dirname, "..", "..");
const KaitaiStream = require(path.join(ROOT, "node_modules", "kaitai-struct", "KaitaiStream"));
const mod = require(path.join(ROOT, "generated", "HudiLog.js"));
const Codec = mod.HudiLog || mod;

let args = process.argv.slice(2);
const blockSet = (flag) => {
  const at = args.indexOf(flag);
  if (at < 0) return new Set();
  const set = new Set(args[at + 1].split(",").map(Number));
  args.splice(at, 2);
  return set;
};
const expand = blockSet("--expand");
const expandRecords = blockSet("--records");
const out = [];
for (const file of args) {
  const t0 = process.hrtime.bigint();
  try {
    const root = new Codec(new KaitaiStream(fs.readFileSync(file)));
    root._read();
    let records = 0;
    const expanded = [];
    const deletes = [];
    root.blocks.forEach((b, i) => {
      void Codec.BlockType[b.blockType];
      void b.instantTime;
      records += b.numRecords;
      if (expand.has(i) || expandRecords.has(i)) {
        const body = b.content.body;
        expanded.push(body.numRecords !== undefined ? body.numRecords : body.payload ? "payload" : "body");
        if (expandRecords.has(i)) {
          // the deleted keys: the items of every array block (content version 3)
          const list = body.records;
          deletes.push(list.arrayBlocks.reduce((n, blk) => n + blk.items.length, 0));
        }
      }
    });
    if (global.gc) global.gc(); // --expose-gc: the heap that stays, not garbage not yet collected
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    out.push({ path: file, blocks: root.blocks.length, records, expanded, deletes, ms, heap_mb: process.memoryUsage().heapUsed / 2 ** 20 });
    void root; // held until measured
  } catch (e) {
    out.push({ path: file, error: (e && (e.name + ": " + e.message)) || String(e) });
  }
}
process.stdout.write(JSON.stringify(out));
