import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';

/** One line of the results table. lowerIsBetter decides how the target is checked. */
export interface Row {
  scenario: string;
  figure: string;
  value: number;
  baseline?: number;
  unit: string;
  target?: number;
  lowerIsBetter?: boolean;
  note?: string;
}

export interface EngineResults {
  engine: string;
  date: string;
  args: string;
  dataset: string;
  rows: Row[];
  notes: string[];
  /** RESULTS.md marker key; the engine name when absent. */
  section?: string;
  /** Heading of the section; "PostgreSQL"/"PGlite" when absent. */
  title?: string;
}

const fmt = (n: number, unit: string) => {
  const digits = n >= 100 ? 0 : n >= 10 ? 1 : 2;
  return `${n.toFixed(digits)} ${unit}`.trim();
};

function cells(row: Row): string[] {
  const lower = row.lowerIsBetter ?? true;
  const ratio = row.baseline ? `${(row.value / row.baseline).toFixed(2)}×` : '—';
  const target = row.target === undefined ? '—' : `${lower ? '≤' : '≥'} ${fmt(row.target, row.unit)}`;
  const met =
    row.target === undefined
      ? '—'
      : (lower ? row.value <= row.target : row.value >= row.target)
        ? 'met'
        : '**missed**';
  return [
    row.scenario,
    row.figure,
    fmt(row.value, row.unit),
    row.baseline === undefined ? '—' : fmt(row.baseline, row.unit),
    ratio,
    target,
    met,
    row.note ?? '',
  ];
}

const HEAD = ['Scenario', 'Figure', 'Service', 'Baseline', 'Ratio', 'Target', 'Met', 'Notes'];

export function markdownTable(rows: Row[]): string {
  const line = (xs: string[]) => `| ${xs.join(' | ')} |`;
  return [line(HEAD), line(HEAD.map(() => '---')), ...rows.map((r) => line(cells(r)))].join('\n');
}

export function printTable(rows: Row[]): void {
  const all = [HEAD, ...rows.map(cells)];
  const widths = HEAD.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  for (const r of all) console.log(r.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  '));
}

export function machineFacts(): string {
  const cpu = cpus();
  return `${cpu.length} × ${cpu[0]?.model ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB RAM, Node ${process.version}, ${process.platform}`;
}

/**
 * Writes the engine's section into RESULTS.md between its markers, keeping everything else in the
 * file (hand-written analysis, the other engine's section) as it is.
 */
export function writeResults(path: string, results: EngineResults): void {
  writeSection(path, results.section ?? results.engine, [
    `### ${results.title ?? (results.engine === 'postgres' ? 'PostgreSQL' : 'PGlite')}`,
    '',
    `Run ${results.date} on ${machineFacts()}.`,
    `Command: \`npm run bench -- ${results.args}\`. Dataset: ${results.dataset}.`,
    '',
    markdownTable(results.rows),
    '',
    ...results.notes.map((n) => `- ${n}`),
  ]);
}

/**
 * Replaces the text between `<!-- results:<key>:start -->` and `<!-- results:<key>:end -->` (or
 * appends the markers at the end of the file), leaving everything else as it is.
 */
export function writeSection(path: string, key: string, lines: string[]): void {
  const start = `<!-- results:${key}:start -->`;
  const end = `<!-- results:${key}:end -->`;
  const section = [start, ...lines, end].join('\n');
  const current = existsSync(path) ? readFileSync(path, 'utf8') : '# Benchmark results\n';
  const from = current.indexOf(start);
  const to = current.indexOf(end);
  const next =
    from >= 0 && to > from
      ? current.slice(0, from) + section + current.slice(to + end.length)
      : `${current.trimEnd()}\n\n${section}\n`;
  writeFileSync(path, next);
}
