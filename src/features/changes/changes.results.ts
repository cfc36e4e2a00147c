import type { Static } from 'typebox';
import type { FlagVariantSchema, Plan, Safeguard, StrategySchema } from '../shapes/index.js';
import type { ChangeAction } from './changes.schemas.js';

type Strategy = Static<typeof StrategySchema>;
/** The variants of a flag (environment) as the variant routes answer them. */
type Variants = { version: number; variants: Static<typeof FlagVariantSchema>[] };

/** What applying each kind of change answers (a route sends it back). */
export interface ChangeResults extends Record<ChangeAction, unknown> {
  updateEnabled: undefined;
  addStrategy: Strategy;
  updateStrategy: Strategy;
  deleteStrategy: undefined;
  reorderStrategy: undefined;
  patchVariant: Variants;
  updateFlagVariants: Variants;
  addDependency: undefined;
  deleteDependency: undefined;
  archiveFeature: undefined;
  updateSegment: undefined;
  deleteSegment: undefined;
  addReleasePlan: Plan;
  deleteReleasePlan: undefined;
  startMilestone: undefined;
  changeMilestoneProgression: undefined;
  deleteMilestoneProgression: undefined;
  resumeMilestoneProgression: undefined;
  changeReleasePlanSafeguard: Safeguard;
  deleteReleasePlanSafeguard: undefined;
}
