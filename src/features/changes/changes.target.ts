/**
 * A change's target and a route's path parameters name the same flag environment in two spellings
 * (Unleash's change fields, the admin API's path): the one conversion each way.
 */
export interface FlagEnvironmentPath {
  projectId: string;
  featureName: string;
  environment: string;
}

export const changeTarget = (path: FlagEnvironmentPath) => ({
  project: path.projectId,
  feature: path.featureName,
  environment: path.environment,
});

export const pathOf = (change: {
  project: string;
  feature: string;
  environment: string;
}): FlagEnvironmentPath => ({
  projectId: change.project,
  featureName: change.feature,
  environment: change.environment,
});
