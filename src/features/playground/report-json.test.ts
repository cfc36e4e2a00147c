import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  compileSnapshot,
  type EvaluationContext,
  evaluateCompiled,
  type FlagEvaluation,
  prepareContext,
  type SnapshotInput,
  type StrategyResult,
} from '../../evaluation/index.js';
import { OutcomeTexts, reportJsonInto } from './report-json.js';

/** One report's text, as the playground joins it. */
const reportJson = (
  ...args: Parameters<typeof reportJsonInto> extends [string[], ...infer R] ? R : never
) => {
  const out: string[] = [];
  reportJsonInto(out, ...args);
  return out.join('');
};

/**
 * The playground's report as an object, field by field (docs/evaluation.md §12): the reference that
 * `reportJson`'s text must equal once serialised, byte for byte. A segment missing from the snapshot
 * is reported under its id as name.
 */
function report(evaluation: FlagEvaluation, project: string, environment: string, extra: object) {
  const strategy = (s: StrategyResult) => {
    const id = s.id ?? '';
    return {
      name: s.name,
      id,
      title: s.title || undefined,
      disabled: s.disabled,
      parameters: s.parameters,
      result: s.result,
      constraints: s.constraints,
      segments: s.segments.map((g) => ({
        id: g.id,
        name: g.name ?? String(g.id),
        result: g.result,
        constraints: g.constraints,
      })),
      links: {
        edit: `/projects/${project}/features/${evaluation.name}/strategies/edit?environmentId=${environment}&strategyId=${id}`,
      },
    };
  };
  return {
    name: evaluation.name,
    projectId: project,
    strategies: { result: evaluation.strategies.result, data: evaluation.strategies.data.map(strategy) },
    hasUnsatisfiedDependency: evaluation.hasUnsatisfiedDependency,
    isEnabledInCurrentEnvironment: evaluation.isEnabledInCurrentEnvironment,
    isEnabled: evaluation.isEnabled,
    variant: evaluation.variant,
    feature_enabled: evaluation.isEnabled,
    variants: evaluation.variants,
    ...extra,
  };
}

const golden = JSON.parse(
  readFileSync(new URL('../../../test/golden/evaluation-examples.json', import.meta.url), 'utf8'),
) as { evaluations: { example: string; state: SnapshotInput; context: EvaluationContext }[] };

/** Every field a report can carry, each present and absent somewhere. */
const rich: { example: string; state: SnapshotInput; context: EvaluationContext } = {
  example: 'rich',
  context: { userId: 'u1', appName: 'web', properties: { region: 'e"u' } },
  state: {
    segments: [
      {
        id: 1,
        name: 'beta "testers"',
        constraints: [{ contextName: 'userId', operator: 'IN', values: ['U1'], caseInsensitive: true }],
      },
      { id: 2, constraints: [] },
    ],
    features: [
      {
        name: 'parent',
        enabled: true,
        strategies: [{ name: 'default' }],
        variants: [{ name: 'p', weight: 1000 }],
      },
      // A dependency met by some contexts only (userId u1), of a child that is off for everyone.
      {
        name: 'picky-parent',
        enabled: true,
        strategies: [{ name: 'userWithId', parameters: { userIds: 'u1' } }],
      },
      {
        name: 'picky-child',
        enabled: true,
        dependencies: [{ feature: 'picky-parent' }],
        strategies: [{ name: 'userWithId', parameters: { userIds: 'nobody' } }],
      },
      {
        name: 'rich',
        enabled: true,
        dependencies: [
          { feature: 'parent', variants: ['p'] },
          { feature: 'nowhere', enabled: false },
        ],
        variants: [
          {
            name: 'flag-level',
            weight: 1000,
            stickiness: 'default',
            payload: { type: 'string', value: 'ü' },
          },
        ],
        strategies: [
          { name: 'default', id: 's0', title: 'Old', disabled: true },
          {
            name: 'flexibleRollout',
            id: 's1',
            title: '',
            parameters: { rollout: '100', stickiness: 'default', groupId: 'rich' },
            constraints: [
              {
                contextName: 'region',
                operator: 'STR_CONTAINS',
                values: ['e"u'],
                inverted: true,
                caseInsensitive: false,
              },
              { contextName: 'version', operator: 'SEMVER_GT', value: '1.0.0' },
              { contextName: 'userId', operator: 'IN', values: [] },
            ],
            segments: [1, 2, 99],
          },
          {
            name: 'userWithId',
            title: 'Listed users',
            parameters: { userIds: 'u1,u2' },
            segments: [1],
            variants: [
              { name: 'a', weight: 500, stickiness: 'default', payload: { type: 'json', value: '{"x":1}' } },
              {
                name: 'b',
                weight: 500,
                stickiness: 'default',
                overrides: [{ contextName: 'userId', values: ['u1'] }],
              },
            ],
          },
          {
            name: 'applicationHostname',
            parameters: { hostNames: 'h' },
            constraints: [{ contextName: 'appName', operator: 'IN', values: ['web'] }],
          },
        ],
      },
    ],
  },
};

describe('reportJson', () => {
  // Every flag of every worked example's configuration (strategies of each kind, constraints with
  // every operator, segments present and missing, strategy and flag variants, dependencies), each
  // serialised twice in a row: the second time from the text kept for the compiled strategy.
  it.each([rich, ...golden.evaluations])(
    'example $example: every flag reported as the object report serialises',
    (row) => {
      const snapshot = compileSnapshot(row.state);
      const view = prepareContext(row.context, { now: new Date(), random: () => 0.42 });
      for (const environment of ['development', 'a&b "quoted"']) {
        for (const flag of snapshot.flags.values()) {
          const evaluation = evaluateCompiled(snapshot, flag, view);
          const extra = { environment, context: row.context };
          const fields = `,"environment":${JSON.stringify(environment)},"context":${JSON.stringify(row.context)}`;
          const expected = JSON.stringify(report(evaluation, 'p-ü', environment, extra));
          expect(reportJson(evaluation, flag, 'p-ü', environment, fields)).toBe(expected);
          expect(reportJson(evaluation, flag, 'p-ü', environment, fields)).toBe(expected);
        }
      }
    },
  );

  // A strategy's common outcomes keep their whole text: the same compiled configuration met by
  // many contexts (as in an advanced playground) must still give each context its own results,
  // including outcomes beyond the few kept.
  it.each([rich, ...golden.evaluations])(
    'example $example: one configuration, 36 contexts, each reported as the object report serialises, with and without room for kept texts',
    (row) => {
      const snapshot = compileSnapshot(row.state);
      const contexts: EvaluationContext[] = [];
      for (const userId of ['u1', 'U1', 'u2', 'x', undefined])
        for (const appName of ['web', 'other'])
          for (const region of ['e"u', 'eu'])
            contexts.push({
              ...row.context,
              userId,
              appName,
              properties: { ...row.context.properties, region },
            });
      contexts.push(...[row.context, { version: '2.0.0' }, { version: '0.1.0' }, {}, { sessionId: 's' }]);
      contexts.push({ ...row.context, currentTime: '2000-01-01T00:00:00Z' });
      // Room for every text, then for a few only (the rest written from their pieces each time).
      for (const limit of [1_000_000, 1_500]) {
        const outcomes = new OutcomeTexts(limit);
        for (const context of contexts) {
          const view = prepareContext(context, { now: new Date(), random: () => 0.42 });
          for (const flag of snapshot.flags.values()) {
            const evaluation = evaluateCompiled(snapshot, flag, view);
            const expected = JSON.stringify(report(evaluation, 'p', 'dev', {}));
            expect(reportJson(evaluation, flag, 'p', 'dev', '', outcomes)).toBe(expected);
          }
        }
      }
    },
  );

  it('makes its pieces and kept reports again for a flag that moved to another project or environment', () => {
    const state = golden.evaluations.find((row) => row.state.features.some((f) => f.strategies?.length))!;
    const snapshot = compileSnapshot(state.state);
    const flag = [...snapshot.flags.values()].find((f) => f.strategies.length > 0)!;
    const evaluation = evaluateCompiled(
      snapshot,
      flag,
      prepareContext({}, { now: new Date(), random: () => 0.1 }),
    );
    // Without kept texts, and with them (a flag's whole report is kept per project and environment).
    for (const outcomes of [undefined, new OutcomeTexts(1_000_000)]) {
      for (const [project, environment] of [
        ['one', 'dev'],
        ['two', 'dev'],
        ['one', 'dev'],
        ['one', 'prod'],
      ] as const) {
        const answer = JSON.parse(reportJson(evaluation, flag, project, environment, '', outcomes));
        expect(answer.projectId).toBe(project);
        expect(answer.strategies.data[0].links.edit).toContain(`/projects/${project}/features/`);
        expect(answer.strategies.data[0].links.edit).toContain(`environmentId=${environment}&`);
      }
    }
  });
});
