#!/usr/bin/env node
// The security audit of the production dependencies (docs/reliability.security.md):
//
//   node scripts/audit.mjs [--strict] [--report <npm-audit.json>] [--allowlist <file>] [--today YYYY-MM-DD]
//
// Runs `npm audit --omit=dev --json` and fails (exit 1) on any advisory that audit-allowlist.json
// does not accept, and on any allow-list entry that is malformed or past its review date (so an
// accepted risk is looked at again). The allow-list is checked even when the audit cannot run.
//
// When the advisory service cannot be reached (no network, a registry mirror without the audit
// endpoint, npm's error instead of a report), the audit is reported as NOT DONE on stderr and
// the exit is 0, so that an outage elsewhere does not block every change; with --strict (or
// AUDIT_STRICT=1) it is exit 2 instead. --report reads a saved report instead of running npm.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function parseArgs(argv) {
  const options = { strict: process.env.AUDIT_STRICT === '1', allowlist: join(root, 'audit-allowlist.json') };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--strict') options.strict = true;
    else if (arg === '--report') options.report = argv[++i];
    else if (arg === '--allowlist') options.allowlist = argv[++i];
    else if (arg === '--today') options.today = argv[++i];
    else {
      console.error(`audit: unknown argument ${arg}`);
      process.exit(64);
    }
  }
  return options;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** The allow-list's entries and what is wrong with them (malformed, expired). */
function checkAllowlist(list, today) {
  const problems = [];
  const entries = Array.isArray(list?.advisories) ? list.advisories : null;
  if (!entries) return { entries: [], problems: ['the allow-list has no "advisories" array'] };
  entries.forEach((entry, i) => {
    const where = `allow-list entry ${i + 1} (${entry?.id ?? '?'})`;
    for (const field of ['id', 'package', 'reason', 'reviewBy']) {
      if (typeof entry?.[field] !== 'string' || entry[field].trim() === '') {
        problems.push(`${where}: "${field}" is missing`);
      }
    }
    if (typeof entry?.reviewBy === 'string') {
      if (!DATE.test(entry.reviewBy) || Number.isNaN(Date.parse(entry.reviewBy))) {
        problems.push(`${where}: "reviewBy" must be a date YYYY-MM-DD`);
      } else if (entry.reviewBy < today) {
        problems.push(
          `${where}: its review date ${entry.reviewBy} has passed; review it and renew or remove it`,
        );
      }
    }
  });
  return { entries, problems };
}

/** Every advisory of an npm audit report (v2, npm 7+): package, ids, title, severity. */
function advisoriesOf(report) {
  const found = new Map();
  for (const vulnerability of Object.values(report.vulnerabilities ?? {})) {
    for (const via of vulnerability.via ?? []) {
      if (typeof via !== 'object' || via === null) continue; // a dependency's advisory, listed there
      const url = typeof via.url === 'string' ? via.url : '';
      const ghsa = /GHSA(-[23456789cfghjmpqrvwx]{4}){3}/i.exec(url)?.[0];
      const key = `${via.name}|${url || via.source}`;
      if (found.has(key)) continue;
      found.set(key, {
        package: via.name,
        ids: [url, ghsa, via.source === undefined ? undefined : String(via.source)].filter(Boolean),
        title: via.title ?? '',
        severity: via.severity ?? 'unknown',
        range: via.range ?? '',
        url,
      });
    }
  }
  return [...found.values()];
}

const accepts = (entry, advisory) =>
  entry.package === advisory.package &&
  advisory.ids.some((id) => id.toLowerCase() === String(entry.id).trim().toLowerCase());

function runNpmAudit() {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const result = spawnSync(npm, ['audit', '--omit=dev', '--json'], {
    cwd: root,
    encoding: 'utf8',
    timeout: 120_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.error) return { failure: `npm could not run: ${result.error.message}` };
  return { text: result.stdout, stderr: result.stderr };
}

function main() {
  const options = parseArgs(process.argv.slice(2));
  const today = options.today ?? new Date().toISOString().slice(0, 10);
  let failed = false;

  const { entries, problems } = checkAllowlist(JSON.parse(readFileSync(options.allowlist, 'utf8')), today);
  for (const problem of problems) console.error(`audit: FAIL ${problem}`);
  if (problems.length > 0) failed = true;

  const run = options.report ? { text: readFileSync(options.report, 'utf8') } : runNpmAudit();
  let report;
  try {
    report = run.text ? JSON.parse(run.text) : undefined;
  } catch {
    report = undefined;
  }
  if (!report || typeof report.vulnerabilities !== 'object' || report.vulnerabilities === null) {
    const why =
      run.failure ??
      report?.message ??
      report?.error?.summary ??
      (run.stderr ?? '').trim().split('\n').pop() ??
      'no report';
    console.error(`audit: NOT DONE: the advisory service could not be asked (${why || 'no report'}).`);
    if (options.strict) {
      console.error('audit: --strict: an audit that cannot run is a failure.');
      process.exit(failed ? 1 : 2);
    }
    console.error('audit: not counted as a failure (without --strict); the allow-list was checked.');
    process.exit(failed ? 1 : 0);
  }

  const advisories = advisoriesOf(report);
  const used = new Set();
  let refused = 0;
  for (const advisory of advisories) {
    const entry = entries.find((e) => accepts(e, advisory));
    const line = `${advisory.package} ${advisory.range}: ${advisory.title} (${advisory.severity}) ${advisory.url}`;
    if (entry) {
      used.add(entry);
      console.log(`audit: accepted until ${entry.reviewBy}: ${line}`);
    } else {
      failed = true;
      refused++;
      console.error(`audit: FAIL not in the allow-list: ${line}`);
    }
  }
  for (const entry of entries) {
    if (!used.has(entry))
      console.log(
        `audit: note: allow-list entry ${entry.id} (${entry.package}) no longer matches any advisory; it can go`,
      );
  }
  const total = report.metadata?.dependencies?.prod ?? report.metadata?.dependencies?.total;
  console.log(
    `audit: ${advisories.length} advisories in production dependencies${total ? ` (${total} packages)` : ''}, ${refused} not accepted.`,
  );
  process.exit(failed ? 1 : 0);
}

main();
