// subset-spec.js - cuts a forge's published OpenAPI 3 / Swagger 2 description
// down to the operations tracegate calls, so that prism starts in ~2 s
// instead of ~10 s, and fills the gaps the tests found (see docs/forges.md).
//
//   node subset-spec.js IN OUT [options] 'METHOD /path' ...
//
// IN may be .json, .yaml, or either gzipped. Kept: the named operations and
// every local $ref they reach, transitively. Options (applied in this order):
//   --merge=FILE        add FILE's paths and components/definitions first
//                       (operations a spec lacks, written from the forge's docs)
//   --fold-basepath     Swagger 2: put basePath in front of every path (prism
//                       routes on paths alone and ignores basePath)
//   --vnd-alias         copy application/json responses to
//                       application/vnd.github+json (prism mock negotiates)
//   --set=POINTER=JSON  replace the value at a JSON pointer of the result
//                       (RFC 6901; a final "-" appends to an array)
// Needs js-yaml on NODE_PATH for YAML input.
'use strict';
const fs = require('fs');
const zlib = require('zlib');

function load(file) {
  let buf = fs.readFileSync(file);
  if (file.endsWith('.gz')) buf = zlib.gunzipSync(buf);
  const text = buf.toString('utf8');
  return /\.ya?ml(\.gz)?$/.test(file) ? require('js-yaml').load(text) : JSON.parse(text);
}

const args = process.argv.slice(2);
const opts = args.filter((a) => a.startsWith('--'));
const [input, output, ...ops] = args.filter((a) => !a.startsWith('--'));
if (!input || !output || !ops.length) {
  console.error("usage: node subset-spec.js IN OUT [--merge=F] [--fold-basepath] [--vnd-alias] [--set=P=JSON] 'METHOD /path'...");
  process.exit(2);
}
const opt = (name) => opts.filter((o) => o.startsWith(`--${name}=`)).map((o) => o.slice(name.length + 3));
const spec = load(input);
const sections = ['components', 'definitions', 'parameters', 'responses'];

for (const file of opt('merge')) {
  const add = load(file);
  Object.assign((spec.paths ||= {}), add.paths || {});
  for (const k of sections) {
    if (!add[k]) continue;
    spec[k] ||= {};
    if (k === 'components') {
      for (const [kind, items] of Object.entries(add.components)) Object.assign((spec.components[kind] ||= {}), items);
    } else {
      Object.assign(spec[k], add[k]);
    }
  }
}

const out = { ...spec, paths: {} };
for (const k of sections) if (spec[k]) out[k] = {};
delete out.tags;
delete out['x-webhooks'];
delete out.webhooks;

const unescape = (s) => s.replace(/~1/g, '/').replace(/~0/g, '~');
const copied = new Set();
function copyRefs(node) {
  if (Array.isArray(node)) return node.forEach(copyRefs);
  if (!node || typeof node !== 'object') return;
  const ref = node.$ref;
  if (typeof ref === 'string' && ref.startsWith('#/') && !copied.has(ref)) {
    copied.add(ref);
    const parts = ref.slice(2).split('/').map(unescape);
    let src = spec;
    let dst = out;
    for (const p of parts.slice(0, -1)) {
      src = src && src[p];
      dst = dst[p] ||= {};
    }
    const last = parts[parts.length - 1];
    if (!src || src[last] === undefined) throw new Error(`dangling $ref ${ref}`);
    dst[last] = src[last];
    copyRefs(src[last]);
  }
  for (const v of Object.values(node)) copyRefs(v);
}

for (const op of ops) {
  const [method, path] = op.split(' ');
  const m = method.toLowerCase();
  const item = spec.paths[path];
  if (!item || !item[m]) throw new Error(`no operation ${op} in ${input}`);
  const dst = (out.paths[path] ||= {});
  if (item.parameters) dst.parameters = item.parameters;
  dst[m] = item[m];
}
copyRefs(out.paths);

if (opts.includes('--fold-basepath') && out.basePath) {
  const base = out.basePath.replace(/\/$/, '');
  out.paths = Object.fromEntries(Object.entries(out.paths).map(([p, v]) => [base + p, v]));
  delete out.basePath;
}

if (opts.includes('--vnd-alias')) {
  const alias = (responses) => {
    for (const r of Object.values(responses || {}))
      if (r && r.content && r.content['application/json']) r.content['application/vnd.github+json'] = r.content['application/json'];
  };
  for (const item of Object.values(out.paths)) for (const o of Object.values(item)) if (o && o.responses) alias(o.responses);
  if (out.components) alias(out.components.responses);
}

for (const s of opt('set')) {
  const eq = s.indexOf('=');
  const parts = s.slice(0, eq).replace(/^\//, '').split('/').map(unescape);
  const value = JSON.parse(s.slice(eq + 1));
  let node = out;
  for (const p of parts.slice(0, -1)) {
    if (node[p] === undefined) throw new Error(`--set: no ${p} on the way to ${s.slice(0, eq)}`);
    node = node[p];
  }
  const last = parts[parts.length - 1];
  if (last === '-' && Array.isArray(node)) node.push(value);
  else node[last] = value;
}

fs.writeFileSync(output, JSON.stringify(out));
console.error(`subset-spec: ${output}: ${Object.keys(out.paths).length} paths, ${copied.size} refs, ${fs.statSync(output).size} bytes`);
