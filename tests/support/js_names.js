// Judge for tests/refs.rs: where NAME occurs as an identifier in JavaScript,
// by the TypeScript compiler's parser (comments, strings and regexes are
// not identifiers). Usage: node js_names.js TYPESCRIPT_DIR ROOT NAME
// Prints `code PATH LINE COL` (1-based; COL in UTF-16 units).
const [tsDir, root, name] = process.argv.slice(2);
const ts = require(tsDir);
const fs = require('fs');
const path = require('path');
function walk(dir) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name < b.name ? -1 : 1)) {
    if (e.name.startsWith('.') || e.name === 'node_modules') continue;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p);
    else if (e.name.endsWith('.js')) file(p);
  }
}
function file(p) {
  const text = fs.readFileSync(p, 'utf8');
  const sf = ts.createSourceFile(p, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  const rel = path.relative(root, p).split(path.sep).join('/');
  const visit = (n) => {
    let at = -1;
    if (n.kind === ts.SyntaxKind.Identifier && n.text === name) at = n.getStart(sf);
    if (n.kind === ts.SyntaxKind.PrivateIdentifier && n.text === '#' + name) at = n.getStart(sf) + 1;
    if (at >= 0) {
      const { line, character } = sf.getLineAndCharacterOfPosition(at);
      console.log(`code ${rel} ${line + 1} ${character + 1}`);
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
}
walk(root);
