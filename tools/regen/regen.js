#!/usr/bin/env node
// Regenerates generated/ from spec/hudi_log.ksy (and spec/hfile.ksy: generated/hfile.py, Hfile.js,
// hfile.html, the same way; no diagram) with the pinned kaitai-struct-compiler (npm, 0.11.0):
//   generated/hudi_log.py   Python parser + serializer (read-write)
//   generated/hudi_log.html HTML documentation, self-contained (tools/regen/docs.js)
//   generated/hudi_log.svg  a diagram of one block (tools/regen/docs.js)
//   generated/HudiLog.js    JavaScript parser in debug mode (every field's start/end recorded, as the
//                           Web IDE compiles it), and generated/KaitaiStream.js, the pinned npm runtime:
//                           both are inlined into `hudi-log view` pages, so page and grammar cannot drift
//
//   node tools/regen/regen.js            write generated/
//   node tools/regen/regen.js --check    exit 1 if generated/ differs from what would be written
//   node tools/regen/regen.js --lang javascript --out DIR [--spec spec/hfile.ksy]   compile another target (used by tests)
//
// Why the patch: the npm build's compile() hard-codes RuntimeConfig(readWrite = false); the compiler
// itself supports read-write output (the JVM build's `--read-write`). We load the pinned compiler file,
// verify it byte for byte (SHA-256), flip exactly that one constructor argument, and evaluate it. Any
// other compiler version or build fails loudly instead of silently generating read-only code.
//
// A second patch keeps the compiler's warnings: the npm build's compile() throws on an error but drops
// warnings (the JVM build prints them, e.g. Kaitai's style check asking for `len_*` / `num_*` names of
// sizes and counts). We collect every problem it finds, and regeneration (and --check) fails on any, so
// the .ksy builds with no warnings in the official compiler too.
"use strict";

const crypto = require("crypto");
const fs = require("fs");
const path = require("path");
const Module = require("module");

const ROOT = path.resolve(__dirname, "..", "..");
const SPEC = path.join(ROOT, "spec", "hudi_log.ksy");
const HFILE_SPEC = path.join(ROOT, "spec", "hfile.ksy");
const OUT = path.join(ROOT, "generated");

const COMPILER_VERSION = "0.11.0";
const COMPILER_SHA256 = "c9aacee51040be0977299210fc2624e6bbf2a51770b3dca579accbbaa84ba353";
// The only place compile() builds its RuntimeConfig: (autoRead, readStoresPos, opaqueTypes,
// zeroCopySubstream, readWrite, ...). We set readWrite (5th) to true and autoRead (1st) to false,
// as the JVM compiler's --read-write does: objects are built empty for writing, and parsing
// calls _read() explicitly.
const CONFIG_READ_ONLY = "new $c_Lio_kaitai_struct_RuntimeConfig((!debug), debug, false, true, false,";
const CONFIG_READ_WRITE = "new $c_Lio_kaitai_struct_RuntimeConfig(false, debug, false, true, true,";
// Where compile() receives the problems of precompilation (errors and warnings), before it throws on
// the first error: each one's message is kept in `module.ksyProblems`.
const PROBLEMS_AT = "var problems = $as_sc_Iterable(problems$2);";
const PROBLEMS_KEPT = PROBLEMS_AT +
  " $n(problems).foreach__F1__V(new $c_sjsr_AnonFunction1((p) => { module.ksyProblems.push(String($n(p).message__T())); }));";
// every problem the compiler reported, across compilations
const problems = [];

function loadCompiler(readWrite) {
  const pkgDir = path.dirname(require.resolve("kaitai-struct-compiler/package.json"));
  const version = JSON.parse(fs.readFileSync(path.join(pkgDir, "package.json"), "utf8")).version;
  if (version !== COMPILER_VERSION) {
    throw new Error(`kaitai-struct-compiler ${version} installed, ${COMPILER_VERSION} pinned (run npm ci)`);
  }
  const file = path.join(pkgDir, "kaitai-struct-compiler.js");
  const source = fs.readFileSync(file, "utf8");
  const digest = crypto.createHash("sha256").update(source).digest("hex");
  if (digest !== COMPILER_SHA256) {
    throw new Error(`${file}: SHA-256 ${digest}, expected ${COMPILER_SHA256}`);
  }
  const once = (text, what, patched) => {
    const parts = text.split(what);
    if (parts.length !== 2) throw new Error(`compiler code not found exactly once: ${what}`);
    return parts.join(patched);
  };
  let patched = once(source, PROBLEMS_AT, PROBLEMS_KEPT);
  if (readWrite) patched = once(patched, CONFIG_READ_ONLY, CONFIG_READ_WRITE);
  const m = new Module(file, module);
  m.filename = file;
  m.paths = Module._nodeModulePaths(pkgDir);
  m.ksyProblems = problems;
  m._compile(patched, file);
  return m.exports;
}

function loadSpec(file = SPEC) {
  const YAML = require("yaml");
  return YAML.parse(fs.readFileSync(file, "utf8"));
}

async function compileTo(lang, readWrite, debug = false, file = SPEC) {
  const compiler = loadCompiler(readWrite);
  const files = await compiler.compile(lang, loadSpec(file), null, debug);
  return files;
}

// Everything generated/ should hold, as {relative name: contents}.
async function expectedOutputs() {
  const out = {};
  const py = await compileTo("python", true);
  for (const [name, text] of Object.entries(py)) out[name] = text;
  const { html, svg } = require("./docs").renderDocs(loadSpec());
  out["hudi_log.html"] = html;
  out["hudi_log.svg"] = svg;
  // the viewer's engine: debug mode records each field's byte range for the hex view
  const js = await compileTo("javascript", false, true);
  for (const [name, text] of Object.entries(js)) out[name] = text;
  // the HFile grammar (metadata-table base files and HFILE_DATA_BLOCK contents), compiled alike
  for (const [name, text] of Object.entries(await compileTo("python", true, false, HFILE_SPEC))) out[name] = text;
  for (const [name, text] of Object.entries(await compileTo("javascript", false, true, HFILE_SPEC))) out[name] = text;
  out["hfile.html"] = require("./docs").renderDocs(loadSpec(HFILE_SPEC), "spec/hfile.ksy").html;
  out["KaitaiStream.js"] = fs.readFileSync(require.resolve("kaitai-struct/KaitaiStream.js"), "utf8");
  out["__init__.py"] =
    '"""Code generated by tools/regen/regen.js from spec/hudi_log.ksy. Do not edit."""\n';
  return out;
}

function reportProblems() {
  console.error(`kaitai-struct-compiler warns (fix the .ksy; nothing written):\n${[...new Set(problems)].join("\n")}`);
  return 1;
}

async function main(argv) {
  const langAt = argv.indexOf("--lang");
  if (langAt >= 0) {
    const lang = argv[langAt + 1];
    const outDir = argv[argv.indexOf("--out") + 1];
    const specAt = argv.indexOf("--spec");
    const file = specAt >= 0 ? path.resolve(argv[specAt + 1]) : SPEC;
    const files = await compileTo(lang, argv.includes("--read-write"), false, file);
    if (problems.length) return reportProblems();
    fs.mkdirSync(outDir, { recursive: true });
    for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(outDir, name), text);
    return 0;
  }
  const outputs = await expectedOutputs();
  if (problems.length) return reportProblems();
  if (argv.includes("--check")) {
    const stale = [];
    for (const [name, text] of Object.entries(outputs)) {
      const p = path.join(OUT, name);
      if (!fs.existsSync(p) || fs.readFileSync(p, "utf8") !== text) stale.push(name);
    }
    const extra = fs.readdirSync(OUT).filter((n) => !(n in outputs) && n !== "__pycache__");
    if (stale.length || extra.length) {
      console.error(`generated/ is stale: differs ${stale.join(", ") || "-"}; unexpected ${extra.join(", ") || "-"}`);
      console.error("run: npm run regen");
      return 1;
    }
    console.log("generated/ is up to date");
    return 0;
  }
  fs.mkdirSync(OUT, { recursive: true });
  for (const [name, text] of Object.entries(outputs)) fs.writeFileSync(path.join(OUT, name), text);
  console.log(`wrote ${Object.keys(outputs).sort().join(", ")} to generated/`);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    console.error(err && err.stack ? err.stack : String(err));
    process.exit(2);
  },
);
