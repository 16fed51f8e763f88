// tests/trace/speedscope_import.mjs — load a Chrome Trace Event file with
// speedscope's own importer (the npm package's built bundle, unchanged but
// for one statement that hands out its import module) and print what it
// understood, as JSON: per profile (thread) its name, total non-idle
// weight and each frame's self and total weight (microseconds), plus the
// warnings the importer gave.
//
//   node speedscope_import.mjs NODE_MODULES_DIR FILE > out.json
import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';

const [modules, file] = process.argv.slice(2);
const dist = path.join(modules, 'speedscope', 'dist', 'release');
const bundle = fs.readdirSync(dist).find((f) => /^speedscope-.*\.js$/.test(f));
if (!bundle) throw new Error('no speedscope bundle in ' + dist);
const src = fs.readFileSync(path.join(dist, bundle), 'utf8');
// The bundle is one IIFE; its import module is the promise `jr` of
// speedscope 1.25.0 (the version tests/trace/package.json pins).
const head = '"use strict";(()=>{';
if (!src.startsWith(head) || !src.includes('(await jr).importProfilesFromArrayBuffer'))
  throw new Error('unexpected speedscope bundle (not 1.25.0?)');
const patched = head + 'globalThis.__pkImport=()=>jr;' + src.slice(head.length);

// The page code after the importer's definition wants a DOM: give it
// inert stand-ins; only the importer runs for real.
const inert = () => new Proxy(function () {}, {
  get: (t, k) => (k === Symbol.toPrimitive ? () => '' : k === 'then' ? undefined : inert()),
  apply: () => inert(), construct: () => inert(),
});
const warnings = [];
const quiet = { log() {}, info() {}, error: (...a) => warnings.push(a.join(' ')), warn: (...a) => warnings.push(a.join(' ')) };
const ctx = { console: quiet, setTimeout, clearTimeout, TextDecoder, TextEncoder, atob, btoa, URL,
  Uint8Array, ArrayBuffer, DataView, Promise, WebAssembly, Blob, Response, DecompressionStream,
  ReadableStream, performance };
ctx.window = ctx; ctx.globalThis = ctx; ctx.self = ctx;
ctx.document = inert(); ctx.navigator = { userAgent: 'node', platform: 'Linux' };
ctx.location = { href: 'file:///speedscope', hash: '', protocol: 'file:', search: '' };
ctx.addEventListener = () => {}; ctx.removeEventListener = () => {};
ctx.localStorage = { getItem: () => null, setItem: () => {} };
vm.createContext(ctx);
try {
  vm.runInContext(patched, ctx);
} catch (e) {
  /* the page's rendering fails on the stand-ins, after the importer is defined */
}
if (!ctx.__pkImport) throw new Error('speedscope bundle did not define its importer');
const importer = await ctx.__pkImport();
const bytes = fs.readFileSync(file);
const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
const group = await importer.importProfilesFromArrayBuffer(path.basename(file), buffer);
if (!group) throw new Error('speedscope did not recognise ' + file);
const out = { name: group.name, warnings, profiles: [] };
for (const p of group.profiles) {
  const frames = [];
  p.forEachFrame((f) => frames.push({ key: f.key, self: f.getSelfWeight(), total: f.getTotalWeight() }));
  out.profiles.push({ name: p.getName(), unit: p.getWeightUnit(), total: p.getTotalWeight(),
    non_idle: p.getTotalNonIdleWeight(), frames });
}
process.stdout.write(JSON.stringify(out));
