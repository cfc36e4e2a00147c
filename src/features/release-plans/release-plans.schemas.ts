import { type Static, Type } from 'typebox';
import { Nullable } from '../../platform/http/schemas.js';
import {
  CreateStrategyBody,
  FlagNameParam,
  MilestoneSchema,
  PlanSchema,
  ProjectIdParam,
  TransitionCondition,
} from '../shapes/index.js';

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
