#!/usr/bin/env node
// Parses log files with the JavaScript codec compiled from spec/hudi_log.ksy and the npm
// kaitai-struct runtime -- the engine the Kaitai Web IDE runs -- and prints each block as JSON.
//   node tools/regen/parse_js.js JS_DIR FILE...
"use strict";
const fs = require("fs");
const path = require("path");
const Module = require("module");
// The compiled module may live outside the repo (a temp dir): let it find our node_modules.
process.env.NODE_PATH = path.resolve(__dirname, "..", "..", "node_modules");
Module._initPaths();
const KaitaiStream = require("kaitai-struct/KaitaiStream");

const [jsDir, ...files] = process.argv.slice(2);
const HudiLog = require(path.resolve(jsDir, "HudiLog.js"));
const Cls = HudiLog.HudiLog || HudiLog;
const out = [];
for (const file of files) {
  const parsed = new Cls(new KaitaiStream(fs.readFileSync(file)));
  let offset = 0;
  const blocks = parsed.blocks.map((b) => {
    const entries = (m) => m.entries.map((e) => [Cls.HeaderKey[e.key], e.value]);
    const row = {
      offset,
      format_version: b.formatVersion,
      block_type: Cls.BlockType[b.blockType],
      header: entries(b.header),
      footer: entries(b.footer),
      content_length: Number(b.contentLength),
      instant_time: b.instantTime,
      record_count: b.recordCount,
    };
    offset += Number(b.blockSize) + 14;
    return row;
  });
  out.push({ path: file, blocks });
}
process.stdout.write(JSON.stringify(out));
