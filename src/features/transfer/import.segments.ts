import { isDeepStrictEqual } from 'node:util';
import type { ImportedSegment } from '../segments/index.js';
import { constraintsProblems, storedConstraint } from '../strategies/index.js';
import type { TargetSegment } from './import.store.js';
import type { ImportInput } from './transfer.schemas.js';

/** What an import does with the segments its document lists (matched by name). */
export interface SegmentPlan {
  /** Missing here and defined in the document: created before the flags are written. */
  create: ImportedSegment[];
  /** Definitions with invalid constraints, as text (nothing is created then). */
  problems: string[];
  /** Existing here with other constraints than the document's: used as they are, not overwritten. */
  differing: string[];
}

/**
 * A listed segment that exists here (global, or of the target project) is used as it is; one
 * that does not exist is created when the entry has `constraints` (a Flagship export), in the
 * target project when it was project-specific; an entry without a definition (Unleash's
 * `{id, name}`) must name an existing segment, as before.
 */
export function planSegments(input: ImportInput, existing: Map<string, TargetSegment>): SegmentPlan {
  const plan: SegmentPlan = { create: [], problems: [], differing: [] };
  const seen = new Set<string>();
  for (const [i, s] of (input.data.segments ?? []).entries()) {
    if (seen.has(s.name)) continue;
    seen.add(s.name);
    if (s.constraints === undefined) continue;
    const have = existing.get(s.name);
    if (have) {
      const usable = have.project === null || have.project === input.project;
      if (usable && !isDeepStrictEqual(have.constraints, s.constraints.map(storedConstraint))) {
        plan.differing.push(s.name);
      }
      continue;
    }
    const problems = constraintsProblems(s.constraints, `/body/data/segments/${i}/constraints`);
    for (const p of problems) plan.problems.push(`segments[${i}] (${s.name}): ${p.message}`);
    if (problems.length > 0) continue;
    plan.create.push({
      name: s.name,
      description: s.description || null,
      project: s.project ? input.project : null,
      constraints: s.constraints.map(storedConstraint),
    });
  }
  return plan;
}
