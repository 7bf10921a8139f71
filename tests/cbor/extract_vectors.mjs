// Write RFC 8949 Appendix A's examples (Table 6) as tests/cbor/appendix_a.txt
// from the npm package cborg (its test/appendix_a.js: the examples of the CBOR
// working group's test-vectors collection, hex and decoded value), and check
// tests/cbor/appendix_f.txt against the Appendix F.1 list in the Debian
// package golang-github-fxamacker-cbor-dev (decode_test.go).
//
//   node extract_vectors.mjs [--check] [--cborg DIR] [--fxamacker FILE]
//
//   --cborg DIR        the cborg package (npm pack cborg@6.1.5, unpacked: DIR
//                      holds test/appendix_a.js): writes appendix_a.txt beside
//                      this script, or with --check compares it with the
//                      committed file (exit 1 if they differ)
//   --fxamacker FILE   decode_test.go of golang-github-fxamacker-cbor-dev 2.4.0:
//                      every hex of its "Data from 7049bis G.1" block must be
//                      a line of appendix_f.txt (lines it lacks are listed)
//
// appendix_a.txt has one line per example, fields separated by a TAB:
//
//   <hex> TAB <preferred|not-preferred> TAB <diagnostic notation>
//
// The diagnostic notation is printed here from the bytes (a small decoder of
// our own, written from RFC 8949 sections 3 and 8) in the RFC's own spelling:
// bignums (tags 2 and 3) as decimal numbers, floats with ".0" when integral,
// strings with \uXXXX escapes beyond ASCII, "_ " after the opening bracket of
// indefinite-length items, no encoding indicators. Each line is checked
// against the package's value for that example. "preferred" follows RFC 8949
// section 4.1: every argument in its shortest head, every float in the
// shortest of the three widths that keeps its value (NaN: f97e00), bignums
// without leading zero bytes and only beyond the 64-bit integer range, and
// definite lengths only.
//
// cborg lists the examples of RFC 7049, which had one more: simple(24) as
// f818. RFC 8949 removed it (errata 5917; a two-byte simple value below 32 is
// not well-formed, Appendix F.1), so it is left out here and listed on stderr.
import {readFileSync, writeFileSync} from 'node:fs';
import {dirname, join, resolve} from 'node:path';
import {fileURLToPath, pathToFileURL} from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const usage = 'usage: node extract_vectors.mjs [--check] [--cborg DIR] [--fxamacker FILE]';

let check = false;
let cborgDir = null;
let fxFile = null;
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--check') check = true;
  else if (argv[i] === '--cborg' && i + 1 < argv.length) cborgDir = argv[++i];
  else if (argv[i] === '--fxamacker' && i + 1 < argv.length) fxFile = argv[++i];
  else {
    console.error(usage);
    process.exit(2);
  }
}
if (!cborgDir && !fxFile) {
  console.error(usage);
  process.exit(2);
}

// ---- a decoder of well-formed CBOR into a small tree ----------------------
//
// Items: {t: 'uint'|'nint', v: BigInt (the argument)}, {t: 'bytes'|'text',
// v: Uint8Array, chunks: null | [Uint8Array...]}, {t: 'array', v: [...],
// indef}, {t: 'map', v: [[k, v]...], indef}, {t: 'tag', n: BigInt, v: item},
// {t: 'simple', v: number}, {t: 'float', v: number, width: 2|4|8}; every item
// also has `short`: its heads (and its float) are in preferred form.

function decodeAll(bytes) {
  let pos = 0;
  const fail = (msg) => {
    throw new Error(`${msg} at byte ${pos}`);
  };
  const byte = () => {
    if (pos >= bytes.length) fail('input ends inside an item');
    return bytes[pos++];
  };
  // The head: major type, additional information, argument (BigInt, or null
  // for indefinite length), and whether the argument is in its shortest form.
  function head() {
    const ib = byte();
    const major = ib >> 5;
    const ai = ib & 31;
    if (ai < 24) return {major, ai, arg: BigInt(ai), short: true};
    if (ai >= 28 && ai <= 30) fail('reserved additional information');
    if (ai === 31) return {major, ai, arg: null, short: true};
    const n = 1 << (ai - 24);
    let arg = 0n;
    for (let i = 0; i < n; i++) arg = (arg << 8n) | BigInt(byte());
    const minimal = n === 1 ? arg >= 24n : arg >= 1n << BigInt(4 * n);
    return {major, ai, arg, short: minimal};
  }
  function bytesOf(n) {
    if (BigInt(bytes.length - pos) < n) fail('string longer than the input');
    const out = bytes.slice(pos, pos + Number(n));
    pos += Number(n);
    return out;
  }
  function item() {
    const h = head();
    switch (h.major) {
      case 0:
      case 1:
        if (h.arg === null) fail('indefinite integer');
        return {t: h.major === 0 ? 'uint' : 'nint', v: h.arg, short: h.short};
      case 2:
      case 3: {
        const t = h.major === 2 ? 'bytes' : 'text';
        if (h.arg !== null) return {t, v: bytesOf(h.arg), chunks: null, short: h.short};
        const chunks = [];
        let short = false; // an indefinite length is never preferred
        for (;;) {
          if (bytes[pos] === 0xff) {
            pos++;
            break;
          }
          const c = head();
          if (c.major !== h.major || c.arg === null) fail('bad chunk');
          chunks.push(bytesOf(c.arg));
        }
        const all = new Uint8Array(chunks.reduce((s, c) => s + c.length, 0));
        let at = 0;
        for (const c of chunks) {
          all.set(c, at);
          at += c.length;
        }
        return {t, v: all, chunks, short};
      }
      case 4:
      case 5: {
        const out = [];
        let short = h.short && h.arg !== null;
        const one = () => {
          const it = item();
          short = short && it.short;
          return it;
        };
        if (h.arg !== null) {
          for (let i = 0n; i < h.arg; i++) out.push(h.major === 4 ? one() : [one(), one()]);
        } else {
          while (bytes[pos] !== 0xff) {
            if (pos >= bytes.length) fail('indefinite container not closed');
            out.push(h.major === 4 ? one() : [one(), one()]);
          }
          pos++;
        }
        return {t: h.major === 4 ? 'array' : 'map', v: out, indef: h.arg === null, short};
      }
      case 6: {
        if (h.arg === null) fail('indefinite tag');
        const v = item();
        let short = h.short && v.short;
        if ((h.arg === 2n || h.arg === 3n) && v.t === 'bytes') {
          // A bignum is preferred without leading zeros, and only when the
          // value does not fit major type 0 or 1 (RFC 8949 section 3.4.3).
          const big = bignum(v.v);
          short = short && (v.v.length === 0 || v.v[0] !== 0) && big >= 1n << 64n;
        }
        return {t: 'tag', n: h.arg, v, short};
      }
      default: {
        if (h.ai < 24) return {t: 'simple', v: h.ai, short: true};
        if (h.ai === 24) {
          if (h.arg < 32n) fail('two-byte simple value below 32');
          return {t: 'simple', v: Number(h.arg), short: true};
        }
        if (h.ai === 31) fail('break outside an indefinite-length item');
        const width = 1 << (h.ai - 24);
        const v = floatOf(h.arg, width);
        return {t: 'float', v, width, short: width === shortestWidth(v)};
      }
    }
  }
  const v = item();
  if (pos !== bytes.length) fail('bytes after the item');
  return v;
}

function bignum(b) {
  let n = 0n;
  for (const x of b) n = (n << 8n) | BigInt(x);
  return n;
}

function floatOf(bits, width) {
  if (width === 2) {
    const h = Number(bits);
    const sign = h & 0x8000 ? -1 : 1;
    const exp = (h >> 10) & 31;
    const mant = h & 1023;
    if (exp === 0) return sign * mant * 2 ** -24;
    if (exp === 31) return mant ? NaN : sign * Infinity;
    return sign * (1024 + mant) * 2 ** (exp - 25);
  }
  const view = new DataView(new ArrayBuffer(8));
  if (width === 4) {
    view.setUint32(0, Number(bits));
    return view.getFloat32(0);
  }
  view.setBigUint64(0, bits);
  return view.getFloat64(0);
}

// The narrowest IEEE width (2, 4, 8 bytes) that holds v exactly.
function shortestWidth(v) {
  if (Number.isNaN(v) || !Number.isFinite(v)) return 2;
  if (Math.fround(v) !== v) return 8;
  // float16: 11 significant bits, exponents -14..15, subnormals down to 2^-24
  const a = Math.abs(v);
  if (a === 0) return 2;
  if (a > 65504) return 4;
  let e = Math.floor(Math.log2(a));
  if (2 ** e > a) e--; // log2 may round up just below a power of two
  else if (2 ** (e + 1) <= a) e++;
  const quantum = 2 ** Math.max(e - 10, -24);
  return a % quantum === 0 ? 2 : 4;
}

// ---- diagnostic notation, as RFC 8949 Appendix A writes it ----------------

const hexOf = (b) => Buffer.from(b).toString('hex');

function floatText(v) {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return 'Infinity';
  if (v === -Infinity) return '-Infinity';
  if (Object.is(v, -0)) return '-0.0';
  const s = String(v); // the shortest text that reads back exactly
  if (/[.]/.test(s)) return s;
  const e = s.indexOf('e');
  return e < 0 ? s + '.0' : s.slice(0, e) + '.0' + s.slice(e);
}

function textText(b) {
  const s = Buffer.from(b).toString('utf8');
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0);
    if (ch === '"' || ch === '\\') out += '\\' + ch;
    else if (cp >= 0x20 && cp < 0x7f) out += ch;
    else {
      for (let i = 0; i < ch.length; i++) out += '\\u' + ch.charCodeAt(i).toString(16).padStart(4, '0');
    }
  }
  return out + '"';
}

function diag(it) {
  switch (it.t) {
    case 'uint':
      return it.v.toString();
    case 'nint':
      return (-1n - it.v).toString();
    case 'bytes':
    case 'text': {
      const one = (b) => (it.t === 'bytes' ? `h'${hexOf(b)}'` : textText(b));
      if (!it.chunks) return one(it.v);
      return `(_ ${it.chunks.map(one).join(', ')})`;
    }
    case 'array':
      return (it.indef ? '[_ ' : '[') + it.v.map(diag).join(', ') + ']';
    case 'map':
      return (it.indef ? '{_ ' : '{') + it.v.map(([k, v]) => `${diag(k)}: ${diag(v)}`).join(', ') + '}';
    case 'tag':
      if ((it.n === 2n || it.n === 3n) && it.v.t === 'bytes') {
        const n = bignum(it.v.v);
        return (it.n === 2n ? n : -1n - n).toString();
      }
      return `${it.n}(${diag(it.v)})`;
    case 'simple':
      return ['false', 'true', 'null', 'undefined'][it.v - 20] ?? `simple(${it.v})`;
    case 'float':
      return floatText(it.v);
  }
  throw new Error('unknown item ' + it.t);
}

// ---- the package's values, for the check ----------------------------------

// The value cborg's test compares with (its `decoded`: numbers, BigInt,
// strings, arrays, plain objects).
function plain(it) {
  switch (it.t) {
    case 'uint':
    case 'nint': {
      const n = it.t === 'uint' ? it.v : -1n - it.v;
      return n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n;
    }
    case 'text':
      return Buffer.from(it.v).toString('utf8');
    case 'bytes':
      return `h'${hexOf(it.v)}'`;
    case 'array':
      return it.v.map(plain);
    case 'map': {
      const o = {};
      for (const [k, v] of it.v) o[plain(k)] = plain(v);
      return o;
    }
    case 'tag':
      if ((it.n === 2n || it.n === 3n) && it.v.t === 'bytes') {
        const n = bignum(it.v.v);
        return it.n === 2n ? n : -1n - n;
      }
      return diag(it);
    case 'simple':
      return it.v >= 20 && it.v <= 23 ? [false, true, null, undefined][it.v - 20] : diag(it);
    case 'float':
      return it.v;
  }
  throw new Error('unknown item ' + it.t);
}

function same(a, b) {
  if (typeof a === 'number' && typeof b === 'number') return Object.is(a, b) || (a === b && a !== 0);
  if (typeof a === 'bigint' || typeof b === 'bigint') {
    try {
      return BigInt(a) === BigInt(b);
    } catch {
      return false;
    }
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => same(x, b[i]));
  }
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    return ka.length === kb.length && ka.every((k, i) => k === kb[i] && same(a[k], b[k]));
  }
  return a === b;
}

// ---- Appendix A ------------------------------------------------------------

const aFile = join(here, 'appendix_a.txt');
const fFile = join(here, 'appendix_f.txt');
let failed = false;

if (cborgDir) {
  const pkg = JSON.parse(readFileSync(join(cborgDir, 'package.json'), 'utf8'));
  const url = pathToFileURL(resolve(cborgDir, 'test', 'appendix_a.js')).href;
  const {fixtures} = await import(url);
  if (!Array.isArray(fixtures) || fixtures.length === 0) {
    console.error(`no fixtures in ${url}`);
    process.exit(1);
  }
  const lines = [
    '# RFC 8949 Appendix A (Table 6, "Examples of Encoded CBOR Data Items"), one example a line:',
    '#   <hex> TAB <preferred|not-preferred> TAB <diagnostic notation as the RFC writes it>',
    '# preferred: the preferred serialization of RFC 8949 section 4.1 (shortest heads, shortest',
    '# float that keeps the value, definite lengths); such an example must encode back to its bytes.',
    `# Generated by tests/cbor/extract_vectors.mjs from npm cborg ${pkg.version} (test/appendix_a.js).`,
  ];
  let rows = 0;
  for (const f of fixtures) {
    const hex = f.hex.toLowerCase();
    let it;
    try {
      it = decodeAll(Uint8Array.from(Buffer.from(hex, 'hex')));
    } catch (e) {
      console.error(`left out ${hex}: not well-formed under RFC 8949 (${e.message})`);
      continue;
    }
    const d = diag(it);
    // The package's own value: `decoded` when JSON-like, else `diagnostic`
    // (a string, or a number for Infinity and NaN, or undefined).
    const mine = plain(it);
    let ok;
    if ('decoded' in f) ok = same(mine, f.decoded);
    else if (typeof f.diagnostic === 'string') ok = d === f.diagnostic || same(mine, f.diagnostic);
    else ok = same(mine, f.diagnostic);
    if (!ok) {
      console.error(`${hex}: our reading ${d} differs from cborg's ${String(f.decoded ?? f.diagnostic)}`);
      failed = true;
    }
    if (/\t|\n/.test(d)) throw new Error('tab or newline in ' + d);
    lines.push(`${hex}\t${it.short ? 'preferred' : 'not-preferred'}\t${d}`);
    rows++;
  }
  const text = lines.join('\n') + '\n';
  if (check) {
    let old = '';
    try {
      old = readFileSync(aFile, 'utf8');
    } catch {}
    if (old !== text) {
      console.error(`${aFile} differs from what cborg ${pkg.version} gives (run without --check to rewrite it)`);
      failed = true;
    } else console.error(`appendix_a.txt: ${rows} examples, as cborg ${pkg.version} gives them`);
  } else {
    writeFileSync(aFile, text);
    console.error(`appendix_a.txt: ${rows} examples from cborg ${pkg.version}`);
  }
}

// ---- Appendix F, against fxamacker/cbor's list ----------------------------

if (fxFile) {
  const src = readFileSync(fxFile, 'utf8');
  const start = src.indexOf('// Data from 7049bis G.1');
  if (start < 0) {
    console.error(`${fxFile}: no "Data from 7049bis G.1" block`);
    process.exit(1);
  }
  const end = src.indexOf('\n}', start);
  const theirs = [...src.slice(start, end).matchAll(/hexDecode\("([0-9a-fA-F]+)"\)/g)].map((m) => m[1].toLowerCase());
  const ours = readFileSync(fFile, 'utf8')
    .split('\n')
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => l.split('\t')[0]);
  const missing = theirs.filter((h) => !ours.includes(h));
  const extra = ours.filter((h) => !theirs.includes(h));
  for (const h of missing) console.error(`appendix_f.txt lacks ${h}, which fxamacker/cbor lists`);
  if (missing.length) failed = true;
  console.error(
    `appendix_f.txt: ${ours.length} examples; fxamacker/cbor lists ${theirs.length}, all in it` +
      (missing.length ? ' but ' + missing.length : '') +
      (extra.length ? `; not in its list: ${extra.join(' ')}` : ''),
  );
}

process.exit(failed ? 1 : 0);
