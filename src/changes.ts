import { changeRequestGate } from './features/change-requests/index.js';
import { type Applier, createApplier } from './features/changes/index.js';
import { dependencyChanges } from './features/dependencies/index.js';
import { archiveChanges } from './features/flags/index.js';
import { releasePlanChanges } from './features/release-plans/index.js';
import { segmentChanges } from './features/segments/index.js';
import { strategyChanges, updateEnabledChange } from './features/strategies/index.js';
import { variantChanges } from './features/variants/index.js';

/**
 * The one applier of configuration changes, composed of the handlers each owning slice writes
 * (ADR 0021). The handlers hold no state (a call passes its Deps), so one applier serves every app.
 */
export const changes: Applier = createApplier(
  {
    ...strategyChanges,
    updateEnabled: updateEnabledChange,
    ...variantChanges,
    ...dependencyChanges,
    ...archiveChanges,
    ...segmentChanges,
    ...releasePlanChanges,
  },
  changeRequestGate,
);
