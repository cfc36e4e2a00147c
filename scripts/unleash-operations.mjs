// Writes the operation list of an Unleash OpenAPI document (method, path, operationId, tags,
// deprecated) to test/golden/unleash-operations.json, which the coverage test compares with this
// service's own document. Usage: node scripts/unleash-operations.mjs <unleash openapi.json>
import { readFileSync, writeFileSync } from 'node:fs';

const source = process.argv[2];
if (!source) {
  console.error('usage: node scripts/unleash-operations.mjs <unleash openapi.json>');
  process.exit(2);
}
const doc = JSON.parse(readFileSync(source, 'utf8'));
const operations = [];
for (const [path, item] of Object.entries(doc.paths)) {
  for (const method of ['get', 'post', 'put', 'patch', 'delete']) {
    const op = item[method];
    if (!op) continue;
    operations.push({
      method: method.toUpperCase(),
      path,
      operationId: op.operationId,
      tags: op.tags ?? [],
      ...(op.deprecated ? { deprecated: true } : {}),
    });
  }
}
operations.sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method));
const out = { source: `${doc.info.title} ${doc.info.version}`, operations };
writeFileSync('test/golden/unleash-operations.json', `${JSON.stringify(out, null, 2)}\n`);
console.log(`${operations.length} operations of ${out.source}`);
