/**
 * Configuration changes as values and the one applier of them (a leaf: it imports no slice but the
 * leaves; the slices write the handlers and app.ts composes them). See ADR 0021.
 */
export {
  type Applier,
  type ChangeCheck,
  type ChangeContext,
  type ChangeGuard,
  type ChangeHandler,
  type ChangeHandlers,
  createApplier,
  type HandlerContext,
  type PreviewEvent,
} from './changes.applier.js';
export { ChangeConflict, checkSnapshot } from './changes.errors.js';
export { againstIfMatch, recomputedOnConflict } from './changes.requests.js';
export type { ChangeResults } from './changes.results.js';
export {
  AddStrategyChange,
  CHANGE_KINDS,
  Change,
  type ChangeAction,
  type ChangeOf,
  DeleteStrategyChange,
  PatchVariantChange,
  ReorderStrategyChange,
  UpdateEnabledChange,
  UpdateFlagVariantsChange,
  UpdateStrategyChange,
} from './changes.schemas.js';
export { changeTarget, type FlagEnvironmentPath, pathOf } from './changes.target.js';
