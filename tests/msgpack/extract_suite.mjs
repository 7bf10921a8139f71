// Write the cases of the npm package msgpack-test-suite (its prebuilt
// dist/msgpack-test-suite.json: per source file, a list of values, each
// with the MessagePack encodings that must decode to it) as lines for
// `msgpack_tool suite`:
//
//   <file>#<index> TAB <expected value as tokens> TAB <hex>,<hex>,...
//
//   node extract_suite.mjs PACKAGE_DIR OUT_FILE
//
// Tokens are those of mp_tool.c. Numbers follow the suite's own drivers:
// compared by value, so an integral number within int64/uint64 is
// i:<decimal> (from `bignum` when the case has one: exact beyond 2^53),
// any other number d:<float64 bits>.
import {readFileSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';

const [pkgDir, outFile] = process.argv.slice(2);
if (!pkgDir || !outFile) {
  console.error('usage: node extract_suite.mjs PACKAGE_DIR OUT_FILE');
  process.exit(2);
}

const suite = JSON.parse(readFileSync(join(pkgDir, 'dist', 'msgpack-test-suite.json'), 'utf8'));
const hexOf = (buf) => Buffer.from(buf).toString('hex');
const bytesOf = (dashed) => dashed.replace(/-/g, '');

function numberToken(v) {
  if (Number.isInteger(v) && v >= -(2 ** 63) && v < 2 ** 64) return 'i:' + BigInt(v).toString();
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, v);
  return 'd:' + view.getBigUint64(0).toString(16).padStart(16, '0');
}

function valueTokens(v, out) {
  if (v === null) out.push('n');
  else if (v === true) out.push('t');
  else if (v === false) out.push('f');
  else if (typeof v === 'number') out.push(numberToken(v));
  else if (typeof v === 'string') out.push('s:' + hexOf(Buffer.from(v, 'utf8')));
  else if (Array.isArray(v)) {
    out.push('[' + v.length);
    for (const e of v) valueTokens(e, out);
  } else if (typeof v === 'object') {
    const keys = Object.keys(v);
    out.push('{' + keys.length);
    for (const k of keys) {
      out.push('s:' + hexOf(Buffer.from(k, 'utf8')));
      valueTokens(v[k], out);
    }
  } else throw new Error('unexpected value ' + JSON.stringify(v));
}

function caseTokens(c) {
  const out = [];
  if ('bignum' in c) out.push('i:' + BigInt(c.bignum).toString());
  else if ('nil' in c) out.push('n');
  else if ('bool' in c) valueTokens(c.bool, out);
  else if ('number' in c) valueTokens(c.number, out);
  else if ('string' in c) valueTokens(c.string, out);
  else if ('binary' in c) out.push('b:' + bytesOf(c.binary));
  else if ('array' in c) valueTokens(c.array, out);
  else if ('map' in c) valueTokens(c.map, out);
  else if ('timestamp' in c) out.push('T:' + c.timestamp[0] + ':' + c.timestamp[1]);
  else if ('ext' in c) out.push('x:' + c.ext[0] + ':' + bytesOf(c.ext[1]));
  else throw new Error('unexpected case ' + JSON.stringify(c));
  return out.join(' ') + ' ';
}

const lines = [];
let encodings = 0;
for (const file of Object.keys(suite).sort()) {
  suite[file].forEach((c, i) => {
    if (!Array.isArray(c.msgpack) || c.msgpack.length === 0) throw new Error(`${file}#${i}: no encodings`);
    encodings += c.msgpack.length;
    lines.push(`${file}#${i}\t${caseTokens(c)}\t${c.msgpack.map(bytesOf).join(',')}`);
  });
}
writeFileSync(outFile, lines.join('\n') + '\n');
console.error(`msgpack-test-suite: ${lines.length} values, ${encodings} encodings from ${Object.keys(suite).length} files`);
