import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileSnapshot } from './compile.js';
import { decideFlag } from './decide.js';
import { evaluateFlag } from './evaluate.js';
import type { EvaluationContext, FlagInput, SegmentInput, SnapshotInput } from './types.js';

// docs/evaluation.md §0.1, §14: the engine passes every check of @unleash/client-specification 6.1.0
// (279 over 22 files).
const specDir = join(
  dirname(createRequire(import.meta.url).resolve('@unleash/client-specification/package.json')),
  'specifications',
);

interface DeltaEvent {
  type: 'hydration' | 'feature-updated' | 'feature-removed' | 'segment-updated' | 'segment-removed';
  features?: FlagInput[];
  segments?: SegmentInput[];
  feature?: FlagInput;
  featureName?: string;
  segment?: SegmentInput;
  segmentId?: number;
}

interface SpecFile {
  name: string;
  state: SnapshotInput | { events: DeltaEvent[] };
  tests?: { description: string; context: EvaluationContext; toggleName: string; expectedResult: boolean }[];
  variantTests?: {
    description: string;
    context: EvaluationContext;
    toggleName: string;
    expectedResult: { name: string; enabled: boolean; payload?: unknown; feature_enabled: boolean };
  }[];
}

/** Files 19-20 carry delta-API events; replaying them in order gives the client-API state. */
function replay(events: DeltaEvent[]): SnapshotInput {
  const features = new Map<string, FlagInput>();
  const segments = new Map<number, SegmentInput>();
  for (const event of events) {
    if (event.type === 'hydration') {
      features.clear();
      segments.clear();
      for (const feature of event.features ?? []) features.set(feature.name, feature);
      for (const segment of event.segments ?? []) segments.set(segment.id, segment);
    } else if (event.type === 'feature-updated' && event.feature)
      features.set(event.feature.name, event.feature);
    else if (event.type === 'feature-removed' && event.featureName) features.delete(event.featureName);
    else if (event.type === 'segment-updated' && event.segment) segments.set(event.segment.id, event.segment);
    else if (event.type === 'segment-removed' && event.segmentId !== undefined)
      segments.delete(event.segmentId);
    else throw new Error(`unhandled delta event ${JSON.stringify(event)}`);
  }
  return { features: [...features.values()], segments: [...segments.values()] };
}

const files: string[] = JSON.parse(readFileSync(join(specDir, 'index.json'), 'utf8'));
const env = { now: new Date(), random: Math.random };
let checks = 0;

describe('client specification 6.1.0', () => {
  for (const file of files) {
    const spec: SpecFile = JSON.parse(readFileSync(join(specDir, file), 'utf8'));
    const snapshot = compileSnapshot('events' in spec.state ? replay(spec.state.events) : spec.state);
    describe(spec.name, () => {
      for (const test of spec.tests ?? []) {
        checks++;
        it(test.description, () => {
          const evaluation = evaluateFlag(snapshot, test.toggleName, test.context, env);
          expect(evaluation?.isEnabled ?? false).toBe(test.expectedResult);
          // The SDK-style fast path gives the same answer.
          expect(decideFlag(snapshot, test.toggleName, test.context, env)?.isEnabled ?? false).toBe(
            test.expectedResult,
          );
        });
      }
      for (const test of spec.variantTests ?? []) {
        checks++;
        it(`variant: ${test.description}`, () => {
          for (const decide of [evaluateFlag, decideFlag]) {
            const variant = decide(snapshot, test.toggleName, test.context, env)?.variant ?? {
              name: 'disabled',
              enabled: false,
              feature_enabled: false,
            };
            const { name, enabled, payload, feature_enabled } = variant as typeof test.expectedResult;
            const actual = { name, enabled, feature_enabled, ...(payload === undefined ? {} : { payload }) };
            expect(actual).toEqual(test.expectedResult);
          }
        });
      }
    });
  }

  it('runs all 279 checks of the 22 files', () => {
    expect(files).toHaveLength(22);
    expect(checks).toBe(279);
  });
});
