import type { Db } from '../../platform/db/index.js';
import type { Permission } from '../../platform/http/auth.js';
import type { Change } from '../changes/index.js';
import { flagsTagged } from './actions.store.js';

/**
 * What an action set can do, as Unleash names it: each kind turns its parameters into changes for
 * the one applier (ADR 0021), so an action meets the rules, locks, events and change-request gate
 * of the same change made by a person. The names of the parameters it needs are what Unleash's
 * web UI reads from `GET …/actions/config`.
 */

/** A parameter an action names besides `project` (always the action set's own). */
export type ActionParameter = 'environment' | 'featureName' | 'tag';

export interface ActionParams {
  project: string;
  environment: string;
  featureName?: string;
  /** `type:value`, as the config lists the project's tags. */
  tag?: string;
}

interface ActionKind {
  label: string;
  description: string;
  permissions: Permission[];
  parameters: ActionParameter[];
  /** The changes, as the flags are when it runs (a tag names the flags that carry it then). */
  changes(db: Db, params: ActionParams): Promise<Change[]>;
}

const enabledIn = (enabled: boolean, project: string, environment: string, feature: string): Change => ({
  action: 'updateEnabled',
  project,
  feature,
  environment,
  payload: { enabled },
});

const toggle = (enabled: boolean): ActionKind => ({
  label: enabled ? 'Enable flag' : 'Disable flag',
  description: `${enabled ? 'Enables' : 'Disables'} a feature flag in an environment.`,
  permissions: ['UPDATE_FEATURE_ENVIRONMENT'],
  parameters: ['environment', 'featureName'],
  changes: async (_db, { project, environment, featureName }) => [
    enabledIn(enabled, project, environment, featureName as string),
  ],
});

const toggleTagged = (enabled: boolean): ActionKind => ({
  label: enabled ? 'Enable flags by tag' : 'Disable flags by tag',
  description: `${enabled ? 'Enables' : 'Disables'} in an environment every flag of the project that has the tag.`,
  permissions: ['UPDATE_FEATURE_ENVIRONMENT'],
  parameters: ['environment', 'tag'],
  changes: async (db, { project, environment, tag }) =>
    (await flagsTagged(db, project, tag as string)).map((flag) =>
      enabledIn(enabled, project, environment, flag),
    ),
});

export const ACTION_KINDS: Record<string, ActionKind> = {
  TOGGLE_FEATURE_ON: toggle(true),
  TOGGLE_FEATURE_OFF: toggle(false),
  TOGGLE_FEATURES_ON_BY_TAG: toggleTagged(true),
  TOGGLE_FEATURES_OFF_BY_TAG: toggleTagged(false),
};
