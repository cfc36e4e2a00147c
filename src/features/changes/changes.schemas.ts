import { type Static, Type } from 'typebox';
import {
  AdminSegmentSchema,
  CreateDependencyBody,
  CreateStrategyBody,
  FlagNameParam,
  FlagVariantSchema,
  type Plan,
  PlanSchema,
  ProjectIdParam,
  SafeguardBody,
  SortOrderBody,
  StrategySchema,
  TransitionCondition,
  UpdateStrategyBody,
  UpsertSegmentBody,
  VariantsBody,
} from '../shapes/index.js';

/**
 * The configuration changes, as values (ADR 0021): each member is one kind, named as Unleash names
 * its change-request changes, and names its target in full (project, flag, environment; a segment
 * by its id) so a list can be stored, shown, checked and applied later by a person, a job or a
 * rule. A change whose
 * payload carries a `snapshot` was made against that state: applying it after the target moved is
 * a conflict (409), never a silent overwrite.
 */

const target = {
  project: ProjectIdParam,
  feature: FlagNameParam,
  environment: Type.String({
    maxLength: 100,
    description: 'The environment name.',
    examples: ['production'],
  }),
};

/** A change of the flag itself, not of one environment. */
const flagTarget = { project: target.project, feature: target.feature };

const StrategyId = Type.String({ maxLength: 100, description: 'The strategy id (a UUID).' });
const Snapshot = Type.Optional(
  Type.Unsafe<Static<typeof StrategySchema>>({
    ...StrategySchema,
    description: 'The strategy as the change was made against; a different current one is a conflict.',
  }),
);

export const UpdateEnabledChange = Type.Object(
  {
    action: Type.Literal('updateEnabled'),
    ...target,
    payload: Type.Object({ enabled: Type.Boolean({ description: 'On or off.' }) }),
  },
  {
    description:
      'Turns the flag on or off in the environment (on adds the default strategy when none is enabled).',
  },
);

export const AddStrategyChange = Type.Object(
  { action: Type.Literal('addStrategy'), ...target, payload: CreateStrategyBody },
  { description: 'Adds a strategy to the flag environment.' },
);

export const UpdateStrategyChange = Type.Object(
  {
    action: Type.Literal('updateStrategy'),
    ...target,
    payload: Type.Object({ id: StrategyId, ...UpdateStrategyBody.properties, snapshot: Snapshot }),
  },
  { description: 'Changes the properties sent of one strategy (absent keeps, null clears the title).' },
);

export const DeleteStrategyChange = Type.Object(
  {
    action: Type.Literal('deleteStrategy'),
    ...target,
    payload: Type.Object({ id: StrategyId, snapshot: Snapshot }),
  },
  { description: 'Removes one strategy.' },
);

export const ReorderStrategyChange = Type.Object(
  { action: Type.Literal('reorderStrategy'), ...target, payload: SortOrderBody },
  { description: 'Sets the sort order of the listed strategies.' },
);

const VariantsSnapshot = Type.Optional(
  Type.Array(FlagVariantSchema, {
    description: 'The variants as the change was made against; different current ones are a conflict.',
  }),
);

const VariantsPayload = Type.Object({ variants: VariantsBody, snapshot: VariantsSnapshot });

export const PatchVariantChange = Type.Object(
  { action: Type.Literal('patchVariant'), ...target, payload: VariantsPayload },
  { description: "Replaces the variants of the flag in the environment (Unleash's name)." },
);

export const UpdateFlagVariantsChange = Type.Object(
  {
    action: Type.Literal('updateFlagVariants'),
    ...flagTarget,
    payload: VariantsPayload,
  },
  {
    description:
      "Replaces the variants of the flag in every environment (the deprecated flag-level variants; the snapshot is the first environment's).",
  },
);

export const AddDependencyChange = Type.Object(
  { action: Type.Literal('addDependency'), ...flagTarget, payload: CreateDependencyBody },
  { description: 'Makes the flag depend on a parent flag of its project, or changes that dependency.' },
);

export const DeleteDependencyChange = Type.Object(
  {
    action: Type.Literal('deleteDependency'),
    ...flagTarget,
    payload: Type.Optional(
      Type.Object({
        feature: Type.Optional(
          Type.String({ maxLength: 100, description: 'The parent; absent: every parent of the flag.' }),
        ),
      }),
    ),
  },
  { description: "Removes the flag's dependency on one parent, or on all (Unleash sends no payload)." },
);

export const ArchiveFeatureChange = Type.Object(
  { action: Type.Literal('archiveFeature'), ...flagTarget },
  {
    description: 'Archives the flag (refused while other flags depend on it; Unleash sends no payload).',
  },
);

const SegmentId = Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'The segment id.' });
const SegmentSnapshot = Type.Optional(
  Type.Unsafe<Static<typeof AdminSegmentSchema>>({
    ...AdminSegmentSchema,
    description:
      'The segment as the change was made against; different name, description, project or constraints now are a conflict.',
  }),
);

export const UpdateSegmentChange = Type.Object(
  {
    action: Type.Literal('updateSegment'),
    payload: Type.Object({ id: SegmentId, ...UpsertSegmentBody.properties, snapshot: SegmentSnapshot }),
  },
  { description: 'Replaces the name, description, project (absent: none) and constraints of a segment.' },
);

export const DeleteSegmentChange = Type.Object(
  {
    action: Type.Literal('deleteSegment'),
    payload: Type.Object({ id: SegmentId, snapshot: SegmentSnapshot }),
  },
  { description: 'Deletes a segment no strategy uses.' },
);

// Release plans (ADR 0023): each change names its flag environment; a plan or milestone by its id.

const ReleaseId = (description: string) => Type.String({ minLength: 1, maxLength: 100, description });
const PlanSnapshot = Type.Optional(
  Type.Unsafe<Plan>({
    ...PlanSchema,
    description:
      'The plan as the change was made against; a conflict when what the change depends on differs now (see each kind).',
  }),
);

export const AddReleasePlanChange = Type.Object(
  {
    action: Type.Literal('addReleasePlan'),
    ...target,
    payload: Type.Object({ templateId: ReleaseId('The template to apply.') }),
  },
  { description: 'Applies a release plan template to the flag environment (no milestone started).' },
);

export const DeleteReleasePlanChange = Type.Object(
  {
    action: Type.Literal('deleteReleasePlan'),
    ...target,
    payload: Type.Object({ planId: ReleaseId('The plan.'), snapshot: PlanSnapshot }),
  },
  {
    description:
      'Removes the plan and the strategies it put on the flag environment (a conflict when its active milestone or milestones changed).',
  },
);

export const StartMilestoneChange = Type.Object(
  {
    action: Type.Literal('startMilestone'),
    ...target,
    payload: Type.Object({
      milestoneId: ReleaseId('The milestone to start.'),
      planId: Type.Optional(
        ReleaseId('The plan that holds it (absent: the one of the flag environment that does).'),
      ),
      snapshot: PlanSnapshot,
    }),
  },
  {
    description:
      "Replaces the plan's strategies on the flag environment with the milestone's (a conflict when the plan's active milestone changed).",
  },
);

export const ChangeMilestoneProgressionChange = Type.Object(
  {
    action: Type.Literal('changeMilestoneProgression'),
    ...target,
    payload: Type.Object({
      sourceMilestone: ReleaseId('The milestone that moves on.'),
      targetMilestone: ReleaseId('The milestone to start next.'),
      transitionCondition: TransitionCondition,
      snapshot: PlanSnapshot,
    }),
  },
  {
    description:
      "Sets when a milestone moves on by itself (a conflict when the source milestone's progression changed).",
  },
);

export const DeleteMilestoneProgressionChange = Type.Object(
  {
    action: Type.Literal('deleteMilestoneProgression'),
    ...target,
    payload: Type.Object({
      sourceMilestone: ReleaseId('The milestone that no longer moves on.'),
      snapshot: PlanSnapshot,
    }),
  },
  { description: "Removes a milestone's progression (a conflict when it changed)." },
);

export const ResumeMilestoneProgressionChange = Type.Object(
  {
    action: Type.Literal('resumeMilestoneProgression'),
    ...target,
    payload: Type.Object({ planId: ReleaseId('The plan.'), snapshot: PlanSnapshot }),
  },
  {
    description:
      "Resumes the progression of the plan's active milestone (a conflict when its active milestone changed).",
  },
);

export const ChangeReleasePlanSafeguardChange = Type.Object(
  {
    action: Type.Literal('changeReleasePlanSafeguard'),
    ...target,
    payload: Type.Object({
      planId: ReleaseId('The plan.'),
      safeguard: SafeguardBody,
      snapshot: PlanSnapshot,
    }),
  },
  { description: "Sets the plan's safeguard (a conflict when its safeguards changed)." },
);

export const DeleteReleasePlanSafeguardChange = Type.Object(
  {
    action: Type.Literal('deleteReleasePlanSafeguard'),
    ...target,
    payload: Type.Object({
      planId: ReleaseId('The plan.'),
      safeguardId: ReleaseId('The safeguard.'),
      snapshot: PlanSnapshot,
    }),
  },
  { description: "Removes the plan's safeguard (a conflict when its safeguards changed)." },
);

export const Change = Type.Union(
  [
    UpdateEnabledChange,
    AddStrategyChange,
    UpdateStrategyChange,
    DeleteStrategyChange,
    ReorderStrategyChange,
    PatchVariantChange,
    UpdateFlagVariantsChange,
    AddDependencyChange,
    DeleteDependencyChange,
    ArchiveFeatureChange,
    UpdateSegmentChange,
    DeleteSegmentChange,
    AddReleasePlanChange,
    DeleteReleasePlanChange,
    StartMilestoneChange,
    ChangeMilestoneProgressionChange,
    DeleteMilestoneProgressionChange,
    ResumeMilestoneProgressionChange,
    ChangeReleasePlanSafeguardChange,
    DeleteReleasePlanSafeguardChange,
  ],
  { description: 'One configuration change.' },
);
export type Change = Static<typeof Change>;
export type ChangeAction = Change['action'];
export type ChangeOf<A extends ChangeAction> = Extract<Change, { action: A }>;

/** The schema of each kind, by its `action` (a change request checks a change it is given against it). */
export const CHANGE_KINDS: ReadonlyMap<string, (typeof Change.anyOf)[number]> = new Map(
  Change.anyOf.map((member) => [member.properties.action.const as string, member]),
);
