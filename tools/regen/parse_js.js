#!/usr/bin/env node
// Parses log files with the JavaScript codec compiled from spec/hudi_log.ksy and the npm
// kaitai-struct runtime -- the engine the Kaitai Web IDE runs -- and prints, per file, the whole
// parse tree as JSON: every seq field and every instance, names in the .ksy's snake_case, so that
// tests/test_grammar_js.py can compare it with the generated Python codec's tree field by field.
//   node tools/regen/parse_js.js [--module Hfile] JS_DIR FILE...
// Per file: {"path", "tree"} or {"path", "error": {"name", "src_path"}} when parsing fails.
// Values: byte arrays as {"bytes": hex} (or {"sha256", "len"} above 64 bytes), numbers as numbers
// (NaN and infinities as strings), an instance that throws as {"error": name}.
"use strict";
const crypto = require("crypto");
const fs = require("fs");
const path = require("path");
const Module = require("module");
// The compiled module may live outside the repo (a temp dir): let it find our node_modules.
process.env.NODE_PATH = path.resolve(__dirname, "..", "..", "node_modules");
Module._initPaths();
const KaitaiStream = require("kaitai-struct/KaitaiStream");

const snake = (name) => name.replace(/[A-Z]/g, (c) => "_" + c.toLowerCase());

function bytes(arr) {
  const buf = Buffer.from(arr.buffer, arr.byteOffset, arr.byteLength);
  if (buf.length > 64) return { sha256: crypto.createHash("sha256").update(buf).digest("hex"), len: buf.length };
  return { bytes: buf.toString("hex") };
}

function dump(v) {
  if (v === undefined || v === null) return null;
  if (v instanceof Uint8Array) return bytes(v);
  if (Array.isArray(v)) return v.map(dump);
  if (typeof v === "number") return Number.isFinite(v) ? v : String(v);
  if (typeof v !== "object") return v;
  const out = {};
  for (const key of Object.keys(v)) {
    if (key.startsWith("_")) continue;
    out[snake(key)] = dump(v[key]);
  }
  // instances are getters on the prototype
  const proto = Object.getPrototypeOf(v);
  for (const key of Object.getOwnPropertyNames(proto)) {
    const d = Object.getOwnPropertyDescriptor(proto, key);
    if (!d || typeof d.get !== "function" || key.startsWith("_")) continue;
    try {
      out[snake(key)] = dump(v[key]);
    } catch (e) {
      // a grammar error inside a lazily parsed instance (a block's `body`): where it broke;
      // anything else (a text that is not UTF-8 ...) by its name
      const grammar = /^(Validation\w*Error|EOFError|UndecidedEndiannessError)$/.test(e.name || "") || e instanceof RangeError;
      out[snake(key)] = grammar
        ? { error: "grammar", src_path: e.srcPath || null }
        : { error: e.name || String(e) };
    }
  }
  return out;
}

const args = process.argv.slice(2);
// --module Hfile: the codec of spec/hfile.ksy instead of the log's
const moduleAt = args.indexOf("--module");
const moduleName = moduleAt >= 0 ? args.splice(moduleAt, 2)[1] : "HudiLog";
const [jsDir, ...files] = args;
const Loaded = require(path.resolve(jsDir, `${moduleName}.js`));
const Cls = Loaded[moduleName] || Loaded;
const out = [];
for (const file of files) {
  try {
    const parsed = new Cls(new KaitaiStream(fs.readFileSync(file)));
    out.push({ path: file, tree: dump(parsed) });
  } catch (e) {
    out.push({ path: file, error: { name: e.name || String(e), src_path: e.srcPath || null } });
  }
}
process.stdout.write(JSON.stringify(out));
