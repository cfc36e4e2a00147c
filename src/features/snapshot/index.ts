export type { FlagMeta } from './snapshot.input.js';
export { Configuration, ConfigurationCache, type EnvironmentSnapshot } from './snapshot.js';
