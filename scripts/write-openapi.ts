// Writes openapi.json from the route schemas; `--check` fails when the committed file has drifted.
import { readFile, writeFile } from 'node:fs/promises';
import { Kysely, PGliteDialect } from 'kysely';
import { buildApp } from '../src/app.js';
import { testConfig } from '../src/config.js';
import type { Database } from '../src/platform/db/index.js';

const unused = () => {
  throw new Error('generating the OpenAPI document needs no database');
};
// The app is only built, never asked anything: a database that is never opened is enough.
const database: Database = {
  db: new Kysely({ dialect: new PGliteDialect({ pglite: unused }) }),
  engine: 'pglite',
  session: unused,
  listen: async () => async () => {},
  keepUntilWrite: (read) => read,
  ping: unused,
  close: async () => {},
};

const app = await buildApp({ database, config: testConfig(), now: () => new Date() });
await app.ready();
const text = `${JSON.stringify(app.swagger(), null, 2)}\n`;
await app.close();

const file = new URL('../openapi.json', import.meta.url);
if (process.argv.includes('--check')) {
  const committed = await readFile(file, 'utf8').catch(() => '');
  if (committed !== text) {
    console.error('openapi.json is out of date: run `npm run openapi` and commit the result.');
    process.exit(1);
  }
  console.log('openapi.json is up to date');
} else {
  await writeFile(file, text);
  console.log('wrote openapi.json');
}
