import type { Permission } from '../../platform/http/auth.js';
import type { Change } from '../changes/index.js';

/**
 * What an action set can do, as Unleash names it: each kind turns its parameters into changes for
 * the one applier (ADR 0021), so an action meets the rules, locks, events and change-request gate
 * of the same change made by a person. The names of the parameters it needs are what Unleash's
 * web UI reads from `GET …/actions/config`.
 */
interface ActionKind {
  label: string;
  description: string;
  permissions: Permission[];
  changes(params: { project: string; environment: string; featureName: string }): Change[];
}

const toggle = (enabled: boolean): ActionKind => ({
  label: enabled ? 'Enable flag' : 'Disable flag',
  description: `${enabled ? 'Enables' : 'Disables'} a feature flag in an environment.`,
  permissions: ['UPDATE_FEATURE_ENVIRONMENT'],
  changes: ({ project, environment, featureName }) => [
    { action: 'updateEnabled', project, feature: featureName, environment, payload: { enabled } },
  ],
});

export const ACTION_KINDS: Record<string, ActionKind> = {
  TOGGLE_FEATURE_ON: toggle(true),
  TOGGLE_FEATURE_OFF: toggle(false),
};

/** The parameters every kind needs; `project` is the action set's own. */
export const ACTION_PARAMETERS = ['project', 'environment', 'featureName'] as const;
