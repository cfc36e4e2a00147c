import { type Static, Type } from 'typebox';
import { Nullable } from '../../platform/http/schemas.js';

/**
 * A release plan and its parts as the API answers them (Unleash's `interfaces/releasePlans.ts`): a
 * leaf, because release-plan changes (src/features/changes/) carry a plan as their snapshot.
 */

export const MilestoneStrategySchema = Type.Object(
  {
    id: Type.String({ description: 'The milestone strategy’s id.' }),
    milestoneId: Type.String({ description: 'Its milestone.' }),
    sortOrder: Type.Integer({ description: 'Its order.' }),
    name: Type.String({ description: 'The strategy type.' }),
    strategyName: Type.String({ description: 'The strategy type (deprecated name).' }),
    title: Nullable(Type.String({ description: 'Its title.' })),
    parameters: Type.Record(Type.String(), Type.String(), { description: 'Its parameters.' }),
    constraints: Type.Array(Type.Unknown(), { description: 'Its constraints.' }),
    variants: Type.Array(Type.Unknown(), { description: 'Its variants.' }),
    segments: Type.Array(Type.Integer(), { description: 'Its segment ids.' }),
  },
  { description: 'A strategy of a milestone.' },
);
export type MilestoneStrategy = Static<typeof MilestoneStrategySchema>;

export const TransitionCondition = Type.Object(
  {
    intervalMinutes: Type.Integer({
      minimum: 1,
      maximum: 525_600,
      description: 'Minutes after the milestone starts.',
    }),
  },
  { description: 'When the next milestone starts by itself.' },
);

export const MilestoneSchema = Type.Object(
  {
    id: Type.String({ description: 'The milestone’s id.' }),
    name: Type.String({ description: 'Its name.' }),
    sortOrder: Type.Integer({ description: 'Its place.' }),
    releasePlanDefinitionId: Type.String({ description: 'The template or plan it belongs to.' }),
    strategies: Type.Array(MilestoneStrategySchema, { description: 'Its strategies.' }),
    startedAt: Nullable(Type.String({ format: 'date-time', description: 'When it started (plans).' })),
    pausedAt: Nullable(Type.String({ format: 'date-time', description: 'When its progression paused.' })),
    progressionExecutedAt: Nullable(
      Type.String({ format: 'date-time', description: 'When its progression started the next one.' }),
    ),
    transitionCondition: Nullable(TransitionCondition),
  },
  { description: 'A milestone.' },
);
export type Milestone = Static<typeof MilestoneSchema>;

export const ImpactMetric = Type.Object(
  {
    metricName: Type.Union([Type.Literal('no_share'), Type.Literal('exposures')], {
      description:
        'What is watched: the share of `no` answers the flag got in the plan’s environment (0-1), or how many times it was evaluated there (yes + no), from the SDKs’ metrics.',
    }),
    timeRange: Type.Union(
      [Type.Literal('hour'), Type.Literal('day'), Type.Literal('week'), Type.Literal('month')],
      {
        description: 'Over the last hour, day, week (7 days) or month (30 days).',
      },
    ),
    aggregationMode: Type.Optional(
      Type.String({ maxLength: 20, description: 'Kept for Unleash tools; not used.' }),
    ),
    labelSelectors: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), { description: 'Kept for Unleash tools; not used.' }),
    ),
  },
  { description: 'The metric a safeguard watches.' },
);

export const TriggerCondition = Type.Object(
  {
    operator: Type.Union([Type.Literal('>'), Type.Literal('<')], { description: 'Above or below.' }),
    threshold: Type.Number({ minimum: 0, maximum: 1e12, description: 'The threshold.' }),
  },
  { description: 'When the safeguard trips.' },
);

export const SafeguardBody = Type.Object(
  { impactMetric: ImpactMetric, triggerCondition: TriggerCondition },
  { description: 'A safeguard: pause the plan’s progression while the condition holds.' },
);
export type SafeguardInput = Static<typeof SafeguardBody>;

export const SafeguardSchema = Type.Object(
  {
    id: Type.String({ description: 'The safeguard’s id.' }),
    action: Type.Object(
      {
        id: Type.String({ description: 'The plan.' }),
        type: Type.Literal('pauseReleasePlanProgressions', { description: 'What it does when it trips.' }),
      },
      { description: 'What tripping does.' },
    ),
    impactMetric: ImpactMetric,
    triggerCondition: TriggerCondition,
  },
  { description: 'A safeguard of a release plan.' },
);
export type Safeguard = Static<typeof SafeguardSchema>;

export const PlanSchema = Type.Object(
  {
    id: Type.String({ description: 'The plan’s id.' }),
    discriminator: Type.Literal('plan', { description: 'A plan, not a template.' }),
    name: Type.String({ description: 'Its name (its template’s).' }),
    description: Nullable(Type.String({ description: 'Its description.' })),
    featureName: Type.String({ description: 'The flag.' }),
    environment: Type.String({ description: 'The environment.' }),
    createdAt: Type.String({ format: 'date-time', description: 'When it was added.' }),
    createdByUserId: Nullable(Type.Integer({ description: 'Who added it.' })),
    activeMilestoneId: Nullable(Type.String({ description: 'The milestone whose strategies are on now.' })),
    releasePlanTemplateId: Nullable(Type.String({ description: 'The template it was made from.' })),
    milestones: Type.Array(MilestoneSchema, { description: 'Its milestones, in order.' }),
    safeguards: Type.Array(SafeguardSchema, { description: 'Its safeguards (at most one).' }),
  },
  { description: 'A release plan on a flag environment.' },
);
export type Plan = Static<typeof PlanSchema>;
