#!/usr/bin/env node
// Opens log files the way the Kaitai Web IDE does: the debug-mode JavaScript codec of
// generated/HudiLog.js parses the file's seq fields, then each block's one-line representation
// (`-webide-representation`: type, instant, record count) is evaluated; block contents (the lazy
// `body` instances) are parsed only for the blocks named with --expand. Prints JSON per file:
// {"path", "blocks", "records", "expanded", "ms", "heap_mb"} or {"path", "error"}.
//   node [--max-old-space-size=MB] tools/regen/open_like_webide.js [--expand I,J] FILE...
"use strict";
const fs = require("fs");
const path = require("path");
const ROOT = path.resolve(__dirname, "..", "..");
const KaitaiStream = require(path.join(ROOT, "node_modules", "kaitai-struct", "KaitaiStream"));
const mod = require(path.join(ROOT, "generated", "HudiLog.js"));
const Codec = mod.HudiLog || mod;

let args = process.argv.slice(2);
let expand = new Set();
if (args[0] === "--expand") {
  expand = new Set(args[1].split(",").map(Number));
  args = args.slice(2);
}
const out = [];
for (const file of args) {
  const t0 = process.hrtime.bigint();
  try {
    const root = new Codec(new KaitaiStream(fs.readFileSync(file)));
    root._read();
    let records = 0;
    const expanded = [];
    root.blocks.forEach((b, i) => {
      void Codec.BlockType[b.blockType];
      void b.instantTime;
      records += b.numRecords;
      if (expand.has(i)) {
        const body = b.content.body;
        expanded.push(body.numRecords !== undefined ? body.numRecords : body.payload ? "payload" : "body");
      }
    });
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    out.push({ path: file, blocks: root.blocks.length, records, expanded, ms, heap_mb: process.memoryUsage().heapUsed / 2 ** 20 });
  } catch (e) {
    out.push({ path: file, error: (e && (e.name + ": " + e.message)) || String(e) });
  }
}
process.stdout.write(JSON.stringify(out));
