// `npm run flags -- export|import …`: export flag configuration from a running service into a file,
// or import a file into it (validated first), with progress per stage. Talks HTTP only (the
// features-batch API), so it works against any instance, or an Unleash server, given a token.
import { readFile, stat, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { parseArgs } from 'node:util';
import { parse as parseYaml, stringify as toYaml } from 'yaml';

const USAGE = `Usage:
  npm run flags -- export --environment <env> (--project <id> | --tag <value> | --features <a,b,…> | --all)
                          [--out <file.json|file.yaml>]
  npm run flags -- import --project <id> --environment <env> --file <file.json|file.yaml>
                          [--dry-run] [--force]

Options for both: --url <service URL> (FLAGSHIP_URL, default http://localhost:4242)
                  --token <API token or personal access token> (FLAGSHIP_TOKEN)
export: writes the document to --out (JSON, or YAML for .yaml/.yml), else to standard output.
import: reads an export (JSON or YAML); asks the service to validate it, prints errors, warnings and
        missing permissions, then imports it in one transaction unless --dry-run. Warnings stop
        the import unless --force; a file that changes nothing is not imported (no --force needed). Exit code 1 when anything is refused.`;

const { values: opts, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    url: { type: 'string', default: process.env.FLAGSHIP_URL ?? 'http://localhost:4242' },
    token: { type: 'string', default: process.env.FLAGSHIP_TOKEN },
    environment: { type: 'string' },
    project: { type: 'string' },
    tag: { type: 'string' },
    features: { type: 'string' },
    all: { type: 'boolean', default: false },
    out: { type: 'string' },
    file: { type: 'string' },
    'dry-run': { type: 'boolean', default: false },
    force: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});

/** Progress goes to standard error, so an export to standard output stays a clean document. */
const say = (line: string) => process.stderr.write(`${line}\n`);
const mb = (bytes: number) => `${(bytes / 1_048_576).toFixed(1)} MB`;
const seconds = (since: number) => `${((performance.now() - since) / 1000).toFixed(1)} s`;

class Failure extends Error {}

interface Answer {
  status: number;
  body: string;
}

/**
 * POSTs a JSON body, writing it in 1 MB pieces and reporting how much is sent, then reports the
 * time spent waiting for the answer every second: on a large file each stage shows it is moving.
 */
function post(path: string, body: unknown, stage: string): Promise<Answer> {
  const text = Buffer.from(JSON.stringify(body));
  const url = new URL(path, opts.url);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const started = performance.now();
  return new Promise((resolve, reject) => {
    let waiting: NodeJS.Timeout | undefined;
    const req = send(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': text.length,
          ...(opts.token ? { authorization: opts.token } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        let received = 0;
        res.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          received += chunk.length;
        });
        res.on('end', () => {
          clearInterval(waiting);
          say(`  ${stage}: answered ${res.statusCode} after ${seconds(started)} (${mb(received)})`);
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') });
        });
      },
    );
    req.on('error', (error) => {
      clearInterval(waiting);
      reject(new Failure(`${stage}: cannot reach ${url.origin}: ${error.message}`));
    });
    const PIECE = 1_048_576;
    let offset = 0;
    const write = () => {
      while (offset < text.length) {
        const piece = text.subarray(offset, offset + PIECE);
        offset += piece.length;
        if (text.length > PIECE) say(`  ${stage}: sent ${mb(offset)} of ${mb(text.length)}`);
        if (!req.write(piece)) {
          req.once('drain', write);
          return;
        }
      }
      req.end();
      waiting = setInterval(() => say(`  ${stage}: waiting for the service… ${seconds(started)}`), 1000);
    };
    write();
  });
}

function errorOf(answer: Answer): string {
  try {
    const body = JSON.parse(answer.body) as { name?: string; message?: string; details?: unknown[] };
    const details = (body.details ?? []).map((d) => `\n    - ${describe(d)}`).join('');
    return `${answer.status} ${body.name ?? ''}: ${body.message ?? answer.body}${details}`;
  } catch {
    return `${answer.status}: ${answer.body.slice(0, 500)}`;
  }
}

function describe(item: unknown): string {
  const { message, affectedItems, path } = item as {
    message?: string;
    affectedItems?: string[];
    path?: string;
  };
  const items = affectedItems?.length ? ` ${affectedItems.join(', ')}` : '';
  return `${path ? `${path}: ` : ''}${message ?? JSON.stringify(item)}${items}`;
}

interface ExportDocument {
  features: unknown[];
  featureStrategies: unknown[];
  featureTags?: unknown[];
  [key: string]: unknown;
}

async function exportFlags() {
  if (!opts.environment) throw new Failure('export needs --environment');
  const selection = opts.tag
    ? { tag: opts.tag }
    : opts.features
      ? {
          features: opts.features
            .split(',')
            .map((f) => f.trim())
            .filter(Boolean),
        }
      : opts.project
        ? { project: opts.project }
        : opts.all
          ? { features: [] }
          : undefined;
  if (!selection) throw new Failure('export needs --project, --tag, --features or --all');
  const started = performance.now();
  say(`1/2 exporting ${JSON.stringify(selection)} in ${opts.environment} from ${opts.url}`);
  const answer = await post(
    '/api/admin/features-batch/export',
    { environment: opts.environment, ...selection },
    'export',
  );
  if (answer.status !== 200) throw new Failure(`export refused: ${errorOf(answer)}`);
  const document = JSON.parse(answer.body) as ExportDocument;
  say(
    `  ${document.features.length} flags, ${document.featureStrategies.length} strategies, ${document.featureTags?.length ?? 0} tags`,
  );
  const yaml = /\.ya?ml$/i.test(opts.out ?? '');
  const text = yaml ? toYaml(document) : `${JSON.stringify(document, null, 2)}\n`;
  if (opts.out) {
    say(`2/2 writing ${opts.out} (${yaml ? 'YAML' : 'JSON'}, ${mb(Buffer.byteLength(text))})`);
    await writeFile(opts.out, text);
  } else {
    say('2/2 writing to standard output');
    process.stdout.write(text);
  }
  say(`done in ${seconds(started)}`);
}

async function importFlags() {
  if (!opts.project || !opts.environment || !opts.file) {
    throw new Failure('import needs --project, --environment and --file');
  }
  const started = performance.now();
  say(`1/4 reading ${opts.file} (${mb((await stat(opts.file)).size)})`);
  const text = await readFile(opts.file, 'utf8');
  say(`2/4 parsing ${/\.ya?ml$/i.test(opts.file) ? 'YAML' : 'JSON'}`);
  let parsed: unknown;
  try {
    parsed = /\.ya?ml$/i.test(opts.file) ? parseYaml(text, { maxAliasCount: 100 }) : JSON.parse(text);
  } catch (error) {
    throw new Failure(`${opts.file} is not a document: ${(error as Error).message.split('\n')[0]}`);
  }
  // An export, or a whole import body whose `data` is the export.
  const wrapped = parsed as { data?: ExportDocument } & Partial<ExportDocument>;
  const data = (wrapped.data ?? wrapped) as ExportDocument;
  if (!Array.isArray(data.features)) throw new Failure(`${opts.file} is not an export: no "features" list`);
  say(
    `  ${data.features.length} flags, ${data.featureStrategies?.length ?? 0} strategies in ${seconds(started)}`,
  );
  const body = { project: opts.project, environment: opts.environment, data };

  say(`3/4 validating against project ${opts.project}, environment ${opts.environment}`);
  const checked = await post('/api/admin/features-batch/validate', body, 'validate');
  if (checked.status !== 200) throw new Failure(`validation refused: ${errorOf(checked)}`);
  const validation = JSON.parse(checked.body) as Record<'errors' | 'warnings' | 'permissions', unknown[]> & {
    changes?: number;
  };
  for (const kind of ['errors', 'warnings', 'permissions'] as const) {
    for (const item of validation[kind]) say(`  ${kind.slice(0, -1)}: ${describe(item)}`);
  }
  if (validation.errors.length > 0 || validation.permissions.length > 0) {
    throw new Failure('not imported: the service reports the problems above');
  }
  // The service tried the import: with nothing to change, there is nothing to import or force.
  if (validation.changes === 0) {
    say(`nothing to change: the project already is as the file says (${seconds(started)})`);
    return;
  }
  if (validation.warnings.length > 0 && !opts.force && !opts['dry-run']) {
    throw new Failure('not imported: there are warnings (above); run again with --force to import anyway');
  }
  if (opts['dry-run']) {
    say(`dry run: nothing imported (${seconds(started)})`);
    return;
  }
  say('4/4 importing (one transaction: all or nothing)');
  const imported = await post('/api/admin/features-batch/import', body, 'import');
  if (imported.status !== 200) throw new Failure(`import refused, nothing changed: ${errorOf(imported)}`);
  say(`done in ${seconds(started)}`);
}

try {
  const [command] = positionals;
  if (opts.help || !command) say(USAGE);
  else if (command === 'export') await exportFlags();
  else if (command === 'import') await importFlags();
  else throw new Failure(`unknown command "${command}"\n${USAGE}`);
} catch (error) {
  say(error instanceof Failure ? error.message : String((error as Error).stack ?? error));
  process.exitCode = 1;
}
