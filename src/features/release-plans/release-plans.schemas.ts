import { type Static, Type } from 'typebox';
import { Nullable } from '../../platform/http/schemas.js';
import { CreateStrategyBody, FlagNameParam, ProjectIdParam } from '../shapes/index.js';

/** Release plan templates and plans as Unleash's web UI sends and reads them (its `interfaces/releasePlans.ts`). */

const IdString = (description: string) => Type.String({ minLength: 1, maxLength: 100, description });

const MilestoneStrategyBody = Type.Object(
  {
    ...CreateStrategyBody.properties,
    sortOrder: Type.Integer({
      minimum: 0,
      maximum: 2_147_483_647,
      description: 'Its order in the milestone.',
    }),
  },
  { description: 'A strategy the milestone puts on the flag environment, as a strategy is created.' },
);

const MilestoneBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 255, description: 'The milestone’s name.' }),
    sortOrder: Type.Integer({ minimum: 0, maximum: 2_147_483_647, description: 'Its place in the plan.' }),
    strategies: Type.Optional(
      Type.Array(MilestoneStrategyBody, {
        maxItems: 50,
        description: 'What it puts on the flag environment.',
      }),
    ),
  },
  { description: 'One milestone of a template.' },
);
export type MilestoneInput = Static<typeof MilestoneBody>;

export const TemplateBody = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: 255,
      description: 'The template’s name (unique among those in use).',
    }),
    description: Type.Optional(Nullable(Type.String({ maxLength: 2000, description: 'What it is for.' }))),
    milestones: Type.Array(MilestoneBody, {
      minItems: 1,
      maxItems: 50,
      description: 'Its milestones, in order (at least one).',
    }),
  },
  { description: 'A release plan template to create, or its new content.' },
);
export type TemplateInput = Static<typeof TemplateBody>;

const MilestoneStrategySchema = Type.Object(
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

const TransitionCondition = Type.Object(
  {
    intervalMinutes: Type.Integer({
      minimum: 1,
      maximum: 525_600,
      description: 'Minutes after the milestone starts.',
    }),
  },
  { description: 'When the next milestone starts by itself.' },
);

const MilestoneSchema = Type.Object(
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

export const TemplateSchema = Type.Object(
  {
    id: Type.String({ description: 'The template’s id.' }),
    discriminator: Type.Literal('template', { description: 'A template, not a plan.' }),
    name: Type.String({ description: 'Its name.' }),
    description: Nullable(Type.String({ description: 'What it is for.' })),
    createdAt: Type.String({ format: 'date-time', description: 'When it was created.' }),
    createdByUserId: Nullable(Type.Integer({ description: 'Who created it.' })),
    archivedAt: Nullable(Type.String({ format: 'date-time', description: 'When it was archived.' })),
    milestones: Type.Array(MilestoneSchema, { description: 'Its milestones, in order.' }),
  },
  { description: 'A release plan template: ordered milestones, usable in every project.' },
);
export type Template = Static<typeof TemplateSchema>;

export const TemplateListSchema = Type.Array(TemplateSchema, {
  description: 'The templates in use, by name.',
});

const ImpactMetric = Type.Object(
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

const TriggerCondition = Type.Object(
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

export const PlanListSchema = Type.Array(PlanSchema, { description: 'The plans of the flag environment.' });

export const AddPlanBody = Type.Object(
  { templateId: IdString('The template to apply.') },
  { description: 'The template to apply to the flag environment.' },
);

export const ProgressionBody = Type.Object(
  {
    targetMilestone: IdString('The milestone to start next.'),
    transitionCondition: TransitionCondition,
  },
  { description: 'When and where a milestone moves on by itself.' },
);

export const SafeguardParams = Type.Object({
  projectId: ProjectIdParam,
  featureName: FlagNameParam,
  environment: Type.String({ maxLength: 100, description: 'The environment.' }),
  planId: IdString('The plan’s id.'),
  safeguardId: IdString('The safeguard’s id.'),
});

export const TemplateParams = Type.Object({ templateId: IdString('The template’s id.') });

const flagEnvironment = {
  projectId: ProjectIdParam,
  featureName: FlagNameParam,
  environment: Type.String({ maxLength: 100, description: 'The environment.' }),
};
export const FlagEnvironmentParams = Type.Object(flagEnvironment);
export const PlanParams = Type.Object({ ...flagEnvironment, planId: IdString('The plan’s id.') });
export const MilestoneParams = Type.Object({
  ...flagEnvironment,
  planId: IdString('The plan’s id.'),
  milestoneId: IdString('The milestone’s id.'),
});
export const ProgressionParams = Type.Object({
  ...flagEnvironment,
  sourceMilestoneId: IdString('The milestone that moves on.'),
});
